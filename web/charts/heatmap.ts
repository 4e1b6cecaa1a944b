import * as d3 from "d3";
import { createSvg, clip, textWidth, widest } from "../lib/svg.js";

export interface HeatmapData {
  title: string;
  rows: string[];
  columns: string[];
  /** One cell per (row, column) that has data; `lines` are printed in the cell. */
  cells: { row: number; col: number; value: number | null; lines: string[]; tip: string }[];
  /** Caption of the colour scale. */
  scaleLabel: string;
}

export interface HeatmapOptions {
  /** "diverging": centred on 0 (blue below, red above, clamped at ±domain); "sequential": 0..domain. */
  mode: "diverging" | "sequential";
  domain: number;
  cellWidth?: number;
  cellHeight?: number;
  /** Format of scale tick labels. */
  tickFormat?: (v: number) => string;
}

/**
 * A matrix of coloured cells with text in each (e.g. +600% and "7 vs 1"). Diverging mode uses
 * ColorBrewer RdBu (colour-blind safe), reversed so increases are red and decreases blue.
 */
export function heatmapChart(data: HeatmapData, options: HeatmapOptions): SVGSVGElement {
  const cw = options.cellWidth ?? 86;
  const ch = options.cellHeight ?? 40;
  // Labels are measured so none is cut: rows on the left; columns turned by 35° above, the last
  // one reaching right past its cell; the colour ramp's caption beside the ramp.
  const rowLabels = data.rows.map((r) => clip(r, 30));
  const colLabels = data.columns.map((c) => clip(c, 30));
  const colW = widest(colLabels, 11);
  const slant = { cos: Math.cos((35 * Math.PI) / 180), sin: Math.sin((35 * Math.PI) / 180) };
  const lastCol = textWidth(colLabels[colLabels.length - 1] ?? "", 11);
  const margin = {
    top: Math.ceil(Math.max(30, colW * slant.sin + 16)),
    right: Math.ceil(Math.max(20, lastCol * slant.cos - cw / 2 + 12)),
    bottom: 64,
    left: Math.ceil(16 + widest(rowLabels)),
  };
  const rampW = 260;
  const width = Math.ceil(Math.max(360, margin.left + data.columns.length * cw + margin.right, margin.left + rampW + 10 + textWidth(data.scaleLabel) + 12));
  const height = margin.top + data.rows.length * ch + margin.bottom;
  const svg = createSvg(width, height, data.title);
  const colour =
    options.mode === "diverging"
      ? (v: number) => d3.interpolateRdBu(0.5 - Math.max(-1, Math.min(1, v / options.domain)) / 2)
      : (v: number) => d3.interpolateBlues(0.05 + 0.9 * Math.max(0, Math.min(1, v / (options.domain || 1))));
  const light = (v: number) => (options.mode === "diverging" ? Math.abs(v / options.domain) < 0.55 : v / (options.domain || 1) < 0.55);
  const g = svg.append("g").attr("transform", `translate(${margin.left},${margin.top})`);
  g.selectAll("text.col")
    .data(data.columns)
    .join("text")
    .attr("class", "col")
    .attr("transform", (_d, i) => `translate(${i * cw + cw / 2},-8) rotate(-35)`)
    .attr("font-size", 11)
    .attr("data-tip", (d) => d)
    .text((_d, i) => colLabels[i]);
  g.selectAll("text.row")
    .data(data.rows)
    .join("text")
    .attr("class", "row")
    .attr("x", -8)
    .attr("y", (_d, i) => i * ch + ch / 2)
    .attr("dy", "0.35em")
    .attr("text-anchor", "end")
    .attr("data-tip", (d) => d)
    .text((_d, i) => rowLabels[i]);
  const cell = g
    .selectAll("g.cell")
    .data(data.cells)
    .join("g")
    .attr("class", "cell")
    .attr("data-row", (d) => data.rows[d.row])
    .attr("data-col", (d) => data.columns[d.col])
    .attr("transform", (d) => `translate(${d.col * cw},${d.row * ch})`)
    .attr("data-tip", (d) => d.tip);
  cell
    .append("rect")
    .attr("width", cw - 2)
    .attr("height", ch - 2)
    .attr("rx", 2)
    .attr("fill", (d) => (d.value === null ? "#f2f2f2" : colour(d.value)));
  cell
    .selectAll("text")
    .data((d) => d.lines.map((line, i) => ({ line, i, n: d.lines.length, value: d.value })))
    .join("text")
    .attr("class", "cell-label")
    .attr("x", (cw - 2) / 2)
    .attr("y", (d) => (ch - 2) / 2 + (d.i - (d.n - 1) / 2) * 13)
    .attr("dy", "0.35em")
    .attr("text-anchor", "middle")
    .attr("font-size", (d) => (d.i === 0 ? 12 : 10))
    .attr("font-weight", (d) => (d.i === 0 ? 600 : 400))
    .attr("fill", (d) => (d.value === null || light(d.value) ? "#222" : "#fff"))
    .attr("pointer-events", "none")
    .text((d) => d.line);
  // Colour ramp legend.
  const legend = svg
    .append("g")
    .attr("class", "legend")
    .attr("transform", `translate(${margin.left},${height - 40})`);
  const steps = 40;
  const lo = options.mode === "diverging" ? -options.domain : 0;
  for (let i = 0; i < steps; i++) {
    const v = lo + ((options.domain - lo) * (i + 0.5)) / steps;
    legend
      .append("rect")
      .attr("x", (i * rampW) / steps)
      .attr("width", rampW / steps + 0.5)
      .attr("height", 10)
      .attr("fill", colour(v));
  }
  const axis = d3.scaleLinear().domain([lo, options.domain]).range([0, rampW]);
  legend
    .append("g")
    .attr("transform", "translate(0,10)")
    .call(
      d3
        .axisBottom(axis)
        .ticks(5)
        .tickFormat((v) => (options.tickFormat ?? String)(Number(v))),
    );
  legend
    .append("text")
    .attr("x", rampW + 10)
    .attr("y", 9)
    .attr("fill", "#444")
    .text(data.scaleLabel);
  return svg.node()!;
}
