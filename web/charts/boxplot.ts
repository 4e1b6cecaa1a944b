import * as d3 from "d3";
import type { ScaleSummary } from "../../src/report/types.js";
import { createSvg, fitText, widest } from "../lib/svg.js";
import { fmtCount, fmtNum } from "../lib/format.js";

export interface BoxplotData {
  title: string;
  points: number;
  groups: { label: string; colour: string; summary: ScaleSummary }[];
}

/**
 * Box plot per group on a 1..points scale (whiskers = min/max, box = quartiles, bar = median,
 * diamond = mean) with a strip of dots sized by how many ratings have each value.
 */
export function boxplotChart(data: BoxplotData, options: { width?: number } = {}): SVGSVGElement {
  const rowH = 34;
  const width = options.width ?? 460;
  const labels = data.groups.map((g) => fitText(g.label, 200));
  const margin = { top: 28, right: 20, bottom: 30, left: Math.ceil(Math.max(60, widest(labels) + 16)) };
  const height = margin.top + data.groups.length * rowH + margin.bottom;
  const svg = createSvg(width, height, data.title);
  svg
    .append("text")
    .attr("x", 8)
    .attr("y", 16)
    .attr("font-weight", 600)
    .attr("data-tip", data.title)
    .text(fitText(data.title, (width - 16) / 1.08));
  const x = d3
    .scaleLinear()
    .domain([1, data.points])
    .range([margin.left, width - margin.right]);
  svg
    .append("g")
    .attr("transform", `translate(0,${height - margin.bottom})`)
    .call(d3.axisBottom(x).ticks(data.points).tickFormat(d3.format("d")));
  const row = svg
    .selectAll("g.box")
    .data(data.groups)
    .join("g")
    .attr("class", "box")
    .attr("transform", (_d, i) => `translate(0,${margin.top + i * rowH})`)
    .attr(
      "data-tip",
      (d) =>
        `${d.label}\nn = ${fmtCount(d.summary.n)} · mean ${fmtNum(d.summary.mean)} · median ${fmtNum(d.summary.median)}\nQ1 ${fmtNum(d.summary.q1)} · Q3 ${fmtNum(d.summary.q3)} · range ${fmtNum(d.summary.min)}–${fmtNum(d.summary.max)}`,
    );
  row
    .append("text")
    .attr("x", margin.left - 8)
    .attr("y", rowH / 2)
    .attr("dy", "0.35em")
    .attr("text-anchor", "end")
    .attr("data-tip", (d) => d.label)
    .text((_d, i) => labels[i]);
  const mid = rowH / 2;
  row
    .append("line")
    .attr("x1", (d) => x(d.summary.min))
    .attr("x2", (d) => x(d.summary.max))
    .attr("y1", mid)
    .attr("y2", mid)
    .attr("stroke", "#555");
  row
    .append("rect")
    .attr("x", (d) => x(d.summary.q1))
    .attr("width", (d) => Math.max(2, x(d.summary.q3) - x(d.summary.q1)))
    .attr("y", mid - 9)
    .attr("height", 18)
    .attr("fill", (d) => d.colour)
    .attr("fill-opacity", 0.35)
    .attr("stroke", (d) => d.colour);
  row
    .append("line")
    .attr("x1", (d) => x(d.summary.median))
    .attr("x2", (d) => x(d.summary.median))
    .attr("y1", mid - 9)
    .attr("y2", mid + 9)
    .attr("stroke", "#111")
    .attr("stroke-width", 2);
  row
    .append("path")
    .attr("d", (d) => `M${x(d.summary.mean)},${mid - 5}l5,5l-5,5l-5,-5z`)
    .attr("fill", "#111");
  row.each(function (d) {
    const max = d3.max(d.summary.counts) || 1;
    d3.select(this)
      .selectAll("circle")
      .data(d.summary.counts.map((n, i) => ({ n, v: i + 1 })).filter((c) => c.n > 0))
      .join("circle")
      .attr("cx", (c) => x(c.v))
      .attr("cy", mid + 13)
      .attr("r", (c) => 1.5 + 3.5 * Math.sqrt(c.n / max))
      .attr("fill", d.colour)
      .attr("data-tip", (c) => `${d.label}: ${fmtCount(c.n)} ratings of ${c.v}`);
  });
  return svg.node()!;
}
