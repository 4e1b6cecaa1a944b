import * as d3 from "d3";
import { createSvg, drawLegend, clip } from "../lib/svg.js";

export interface StackedBarsData {
  title: string;
  rows: { label: string; total: number; segments: { key: string; label: string; value: number; colour: string }[] }[];
  /** Legend entries (all keys, in order). */
  legend: { label: string; colour: string }[];
}

/** Horizontal 100%-stacked bars: the share of each code within each row (e.g. each condition). */
export function stackedBarsChart(data: StackedBarsData, options: { width?: number } = {}): SVGSVGElement {
  const width = options.width ?? 760;
  const margin = { top: 8, right: 56, bottom: 28, left: 130 };
  const barH = 26;
  const plotH = data.rows.length * (barH + 8);
  const legendProbe = createSvg(1, 1, "probe");
  const legendH = drawLegend(legendProbe.append("g"), data.legend, width - 20);
  const height = margin.top + plotH + margin.bottom + legendH + 10;
  const svg = createSvg(width, height, data.title);
  const x = d3.scaleLinear().domain([0, 1]).range([margin.left, width - margin.right]);
  const row = svg
    .selectAll("g.row")
    .data(data.rows)
    .join("g")
    .attr("class", "row")
    .attr("transform", (_d, i) => `translate(0,${margin.top + i * (barH + 8)})`);
  row.append("text").attr("x", margin.left - 8).attr("y", barH / 2).attr("dy", "0.35em").attr("text-anchor", "end").text((d) => clip(d.label, 20)).attr("data-tip", (d) => d.label);
  row.append("text").attr("x", width - margin.right + 6).attr("y", barH / 2).attr("dy", "0.35em").attr("fill", "#666").text((d) => `n=${d.total}`);
  row.each(function (d) {
    let acc = 0;
    const sum = d3.sum(d.segments, (s) => s.value) || 1;
    d3.select(this)
      .selectAll("rect.segment")
      .data(d.segments.filter((s) => s.value > 0))
      .join("rect")
      .attr("class", "segment")
      .attr("data-code", (s) => s.key)
      .attr("y", 0)
      .attr("height", barH)
      .attr("x", (s) => {
        const left = x(acc / sum);
        acc += s.value;
        return left;
      })
      .attr("width", (s) => Math.max(0, x(s.value / sum) - x(0)))
      .attr("fill", (s) => s.colour)
      .attr("stroke", "#fff")
      .attr("data-tip", (s) => `${d.label}: ${s.label}\n${s.value} turns (${((s.value / sum) * 100).toFixed(1)}%)`);
  });
  svg
    .append("g")
    .attr("transform", `translate(0,${margin.top + plotH})`)
    .call(d3.axisBottom(x).ticks(5, "%"));
  drawLegend(svg.append("g").attr("transform", `translate(10,${margin.top + plotH + margin.bottom + 4})`), data.legend, width - 20);
  return svg.node()!;
}
