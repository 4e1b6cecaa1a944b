import * as d3 from "d3";
import { createSvg, drawLegend, clip, markerPath, widest, type LegendItem } from "../lib/svg.js";
import type { Marker } from "../lib/palette.js";
import { fmtCount, fmtShare } from "../lib/format.js";

export interface StackedBarsData {
  title: string;
  rows: { label: string; total: number; unit?: string; segments: { key: string; label: string; value: number; colour: string; marker?: Marker }[] }[];
  /** Legend entries (all keys, in order). */
  legend: LegendItem[];
  /** What the values count ("turns" by default) and how to print them (counts by default). */
  unit?: string;
  format?: (v: number) => string;
}

/** Horizontal 100%-stacked bars: the share of each code within each row (e.g. each condition). */
export function stackedBarsChart(data: StackedBarsData, options: { width?: number } = {}): SVGSVGElement {
  const width = options.width ?? 760;
  const total = (d: StackedBarsData["rows"][number]) => `n = ${(data.format ?? fmtCount)(d.total)}`;
  // Room for the row labels on the left and the totals on the right, measured (nothing is cut).
  const labels = data.rows.map((r) => clip(r.label, 24));
  const margin = { top: 8, right: Math.ceil(widest(data.rows.map(total)) + 14), bottom: 28, left: Math.ceil(Math.max(60, widest(labels) + 14)) };
  const barH = 26;
  const plotH = data.rows.length * (barH + 8);
  const legendProbe = createSvg(1, 1, "probe");
  const legendH = drawLegend(legendProbe.append("g"), data.legend, width - 20);
  const height = margin.top + plotH + margin.bottom + legendH + 10;
  const svg = createSvg(width, height, data.title);
  const x = d3
    .scaleLinear()
    .domain([0, 1])
    .range([margin.left, width - margin.right]);
  const row = svg
    .selectAll("g.row")
    .data(data.rows)
    .join("g")
    .attr("class", "row")
    .attr("transform", (_d, i) => `translate(0,${margin.top + i * (barH + 8)})`);
  row
    .append("text")
    .attr("x", margin.left - 8)
    .attr("y", barH / 2)
    .attr("dy", "0.35em")
    .attr("text-anchor", "end")
    .text((_d, i) => labels[i])
    .attr("data-tip", (d) => d.label);
  row
    .append("text")
    .attr("x", width - margin.right + 6)
    .attr("y", barH / 2)
    .attr("dy", "0.35em")
    .attr("fill", "#666")
    .text(total);
  row.each(function (d) {
    const sum = d3.sum(d.segments, (s) => s.value) || 1;
    // Left edge of each drawn segment, accumulated once.
    let acc = 0;
    const placed = d.segments
      .filter((s) => s.value > 0)
      .map((s) => {
        const left = x(acc / sum);
        acc += s.value;
        return { s, left, width: Math.max(0, x(s.value / sum) - x(0)) };
      });
    const unit = d.unit ?? data.unit ?? "turns";
    d3.select(this)
      .selectAll("rect.segment")
      .data(placed)
      .join("rect")
      .attr("class", "segment")
      .attr("data-code", (p) => p.s.key)
      .attr("y", 0)
      .attr("height", barH)
      .attr("x", (p) => p.left)
      .attr("width", (p) => p.width)
      .attr("fill", (p) => p.s.colour)
      .attr("stroke", "#fff")
      .attr("data-tip", (p) => `${d.label}: ${p.s.label}\n${(data.format ?? fmtCount)(p.s.value)} ${unit} (${fmtShare(p.s.value / sum)})`);
    // Second channel (speakers past the eighth): the marker, white, in segments wide enough for it.
    d3.select(this)
      .selectAll("path.marker")
      .data(placed.filter((p) => p.s.marker && p.width >= 10))
      .join("path")
      .attr("class", "marker")
      .attr("transform", (p) => `translate(${p.left + p.width / 2},${barH / 2})`)
      .attr("d", (p) => markerPath(p.s.marker!, 8))
      .attr("fill", "#fff")
      .attr("pointer-events", "none");
  });
  svg
    .append("g")
    .attr("transform", `translate(0,${margin.top + plotH})`)
    .call(d3.axisBottom(x).ticks(5, "%"));
  drawLegend(svg.append("g").attr("transform", `translate(10,${margin.top + plotH + margin.bottom + 4})`), data.legend, width - 20);
  return svg.node()!;
}
