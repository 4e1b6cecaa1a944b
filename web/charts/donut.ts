import * as d3 from "d3";
import { createSvg, drawLegend, fitText } from "../lib/svg.js";
import { fmtCount, fmtShare } from "../lib/format.js";

export interface DonutData {
  title: string;
  /** Slices in legend order; zero-valued slices are kept in the legend but not drawn. */
  slices: { key: string; label: string; value: number; colour: string }[];
}

export interface DonutOptions {
  size?: number;
  legend?: boolean;
}

/** A donut with percentage labels on slices of 5% or more; centre shows the total. */
export function donutChart(data: DonutData, options: DonutOptions = {}): SVGSVGElement {
  const size = options.size ?? 220;
  const total = d3.sum(data.slices, (s) => s.value);
  const legendWidth = size;
  const svg = createSvg(size, size + 30, data.title);
  svg
    .append("text")
    .attr("x", size / 2)
    .attr("y", 16)
    .attr("text-anchor", "middle")
    .attr("font-weight", 600)
    .attr("data-tip", data.title)
    .text(fitText(data.title, (size - 8) / 1.08));
  const r = size / 2 - 12;
  const g = svg.append("g").attr("transform", `translate(${size / 2},${size / 2 + 22})`);
  const arcs = d3
    .pie<DonutData["slices"][number]>()
    .sort(null)
    .value((s) => s.value)(data.slices.filter((s) => s.value > 0));
  const arc = d3
    .arc<d3.PieArcDatum<DonutData["slices"][number]>>()
    .innerRadius(r * 0.55)
    .outerRadius(r);
  g.selectAll("path.slice")
    .data(arcs)
    .join("path")
    .attr("class", "slice")
    .attr("data-code", (d) => d.data.key)
    .attr("d", arc)
    .attr("fill", (d) => d.data.colour)
    .attr("stroke", "#fff")
    .attr("stroke-width", 1)
    .attr("data-tip", (d) => `${d.data.label}\n${fmtCount(d.data.value)} of ${fmtCount(total)} turns (${fmtShare(d.data.value / total)})`);
  g.selectAll("text.pct")
    .data(arcs.filter((a) => a.data.value / total >= 0.05))
    .join("text")
    .attr("class", "pct")
    .attr("transform", (d) => `translate(${arc.centroid(d)})`)
    .attr("text-anchor", "middle")
    .attr("dy", "0.35em")
    .attr("font-size", 11)
    .attr("fill", "#fff")
    .attr("stroke", "#0007")
    .attr("stroke-width", 2.5)
    .attr("paint-order", "stroke")
    .attr("pointer-events", "none")
    .text((d) => `${Math.round((d.data.value / total) * 100)}%`);
  g.append("text").attr("text-anchor", "middle").attr("dy", "-0.1em").attr("font-size", 18).attr("font-weight", 600).text(fmtCount(total));
  g.append("text").attr("text-anchor", "middle").attr("dy", "1.2em").attr("fill", "#666").text("turns");
  if (options.legend) {
    const lg = svg.append("g").attr("transform", `translate(4,${size + 30})`);
    const h = drawLegend(
      lg,
      data.slices.filter((s) => s.value > 0).map((s) => ({ label: s.label, colour: s.colour })),
      legendWidth - 8,
    );
    svg.attr("height", size + 36 + h).attr("viewBox", `0 0 ${size} ${size + 36 + h}`);
    svg.select("rect.bg").attr("height", size + 36 + h);
  }
  return svg.node()!;
}
