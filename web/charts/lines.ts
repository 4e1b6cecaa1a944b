import * as d3 from "d3";
import { createSvg, drawLegend, markerPath } from "../lib/svg.js";
import type { Marker } from "../lib/palette.js";
import { fmtNum } from "../lib/format.js";

export interface LinesData {
  title: string;
  /** `dash` and `marker` are the second visual channel of speakers past the eighth. */
  series: { label: string; colour: string; dash?: string; marker?: Marker; points: [number, number][] }[];
  xLabel: string;
  yLabel: string;
  /** Category labels for x (e.g. session thirds) instead of a numeric axis. */
  xCategories?: string[];
  /** "step": values hold until the next point (cumulative counts of events). */
  curve?: "linear" | "step";
}

// "~s" gives 1.2k for large counts but "500m" for 0.5, so small values use plain notation.
const defaultFormat = (v: number) => (Math.abs(v) >= 1000 ? d3.format("~s")(v) : d3.format("~g")(v));

/** Lines over a shared x axis (cumulative words over time, phase movement across thirds). */
export function linesChart(data: LinesData, options: { width?: number; height?: number; yFormat?: (v: number) => string } = {}): SVGSVGElement {
  const width = options.width ?? 560;
  const plotH = options.height ?? 240;
  const legend = data.series.map((s) => ({ label: s.label, colour: s.colour, shape: "line" as const, dash: s.dash, marker: s.marker }));
  const probe = createSvg(1, 1, "probe");
  const legendH = drawLegend(probe.append("g"), legend, width - 20);
  const margin = { top: 14, right: 24, bottom: 44, left: 58 };
  const height = margin.top + plotH + margin.bottom + legendH;
  const svg = createSvg(width, height, data.title);
  const all = data.series.flatMap((s) => s.points);
  const x = d3
    .scaleLinear()
    .domain(data.xCategories ? [0, data.xCategories.length - 1] : ((d3.extent(all, (p) => p[0]) as [number, number]) ?? [0, 1]))
    .range([margin.left, width - margin.right]);
  const y = d3
    .scaleLinear()
    .domain([0, d3.max(all, (p) => p[1]) || 1])
    .nice()
    .range([margin.top + plotH, margin.top]);
  const xAxis = data.xCategories
    ? d3
        .axisBottom(x)
        .ticks(data.xCategories.length)
        .tickFormat((v) => data.xCategories![Number(v)] ?? "")
    : d3.axisBottom(x).ticks(6);
  svg
    .append("g")
    .attr("transform", `translate(0,${margin.top + plotH})`)
    .call(xAxis);
  svg
    .append("g")
    .attr("transform", `translate(${margin.left},0)`)
    .call(
      d3
        .axisLeft(y)
        .ticks(5)
        .tickFormat((v) => (options.yFormat ?? defaultFormat)(Number(v))),
    )
    .call((g) =>
      g
        .selectAll(".tick line")
        .clone()
        .attr("x2", width - margin.left - margin.right)
        .attr("stroke", "#0001"),
    );
  svg
    .append("text")
    .attr("x", (margin.left + width - margin.right) / 2)
    .attr("y", margin.top + plotH + 34)
    .attr("text-anchor", "middle")
    .attr("fill", "#444")
    .text(data.xLabel);
  svg
    .append("text")
    .attr("transform", `translate(14,${margin.top + plotH / 2}) rotate(-90)`)
    .attr("text-anchor", "middle")
    .attr("fill", "#444")
    .text(data.yLabel);
  const line = d3
    .line<[number, number]>()
    .x((p) => x(p[0]))
    .y((p) => y(p[1]))
    .curve(data.curve === "step" ? d3.curveStepAfter : d3.curveLinear);
  svg
    .selectAll("path.series")
    .data(data.series)
    .join("path")
    .attr("class", "series")
    .attr("data-series", (s) => s.label)
    .attr("fill", "none")
    .attr("stroke", (s) => s.colour)
    .attr("stroke-dasharray", (s) => s.dash ?? null)
    .attr("stroke-width", 2.2)
    .attr("d", (s) => line(s.points))
    .attr("data-tip", (s) => `${s.label}\nlast: ${(options.yFormat ?? fmtNum)(s.points[s.points.length - 1]?.[1] ?? 0)}`);
  // Series with a marker shape also carry it at their last point (long lines have no other points).
  if (!data.xCategories) {
    for (const s of data.series.filter((d) => d.marker && d.points.length)) {
      const [px, py] = s.points[s.points.length - 1];
      svg
        .append("path")
        .attr("class", "point")
        .attr("data-series", s.label)
        .attr("transform", `translate(${x(px)},${y(py)})`)
        .attr("d", markerPath(s.marker!, 10))
        .attr("fill", s.colour);
    }
  }
  if (data.xCategories) {
    for (const s of data.series) {
      svg
        .selectAll(null)
        .data(s.points)
        .join("path")
        .attr("class", "point")
        .attr("data-series", s.label)
        .attr("transform", (p) => `translate(${x(p[0])},${y(p[1])})`)
        .attr("d", markerPath(s.marker ?? "circle", s.marker ? 10 : 8))
        .attr("fill", s.colour)
        .attr("data-tip", (p) => `${s.label} · ${data.xCategories![p[0]]}\n${(options.yFormat ?? fmtNum)(p[1])}`);
    }
  }
  drawLegend(svg.append("g").attr("transform", `translate(10,${margin.top + plotH + margin.bottom})`), legend, width - 20);
  return svg.node()!;
}
