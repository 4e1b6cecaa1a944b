import * as d3 from "d3";
import { createSvg, drawLegend, clip, markerPath, textWidth, widest, type LegendItem } from "../lib/svg.js";
import type { Marker } from "../lib/palette.js";
import { fmtNum } from "../lib/format.js";

export interface GroupedBarsData {
  title: string;
  groups: { label: string; bars: { series: string; value: number; colour: string; tip?: string; err?: [number, number]; marker?: Marker }[] }[];
  legend: LegendItem[];
  yLabel: string;
}

/** Group labels longer than this are shortened (the full label is their tooltip). */
const LABEL_CHARS = 30;

/** Vertical bars grouped along x (e.g. one group per code, one bar per condition), optional error bars. */
export function groupedBarsChart(
  data: GroupedBarsData,
  options: { width?: number; height?: number; yFormat?: (v: number) => string; yMax?: number } = {},
): SVGSVGElement {
  const seriesPerGroup = d3.max(data.groups, (g) => g.bars.length) ?? 1;
  const width = options.width ?? Math.max(420, Math.min(1100, 80 + data.groups.length * Math.max(40, seriesPerGroup * 16 + 14)));
  const plotH = options.height ?? 240;
  const probe = createSvg(1, 1, "probe");
  const legendH = drawLegend(probe.append("g"), data.legend, width - 20);
  // Group labels are drawn turned by 35°: leave room below for the longest and, on the left,
  // for the first one (it reaches left of its group; "roduct Manager" was cut at the edge).
  const groupLabels = data.groups.map((g) => clip(g.label, LABEL_CHARS));
  const slant = { cos: Math.cos((35 * Math.PI) / 180), sin: Math.sin((35 * Math.PI) / 180) };
  const margin = {
    top: 16,
    right: 48,
    bottom: Math.max(40, Math.ceil(widest(groupLabels) * slant.sin + 24)),
    left: Math.max(56, Math.ceil(textWidth(groupLabels[0] ?? "") * slant.cos + 4)),
  };
  const height = margin.top + plotH + margin.bottom + legendH + 6;
  const svg = createSvg(width, height, data.title);
  const x0 = d3
    .scaleBand()
    .domain(data.groups.map((g, i) => `${i}`))
    .range([margin.left, width - margin.right])
    .paddingInner(0.2)
    .paddingOuter(0.1);
  const maxV = options.yMax ?? (d3.max(data.groups.flatMap((g) => g.bars.map((b) => Math.max(b.value, b.err?.[1] ?? 0)))) || 1);
  // Confidence intervals may reach below zero; the axis extends to show them rather than clip.
  const minV = Math.min(0, d3.min(data.groups.flatMap((g) => g.bars.map((b) => Math.min(b.value, b.err?.[0] ?? 0)))) ?? 0);
  const y = d3
    .scaleLinear()
    .domain([minV, maxV])
    .nice()
    .range([margin.top + plotH, margin.top]);
  svg
    .append("g")
    .attr("transform", `translate(${margin.left},0)`)
    .call(
      d3
        .axisLeft(y)
        .ticks(5)
        .tickFormat((v) => (options.yFormat ?? d3.format("~g"))(Number(v))),
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
    .attr("transform", `translate(14,${margin.top + plotH / 2}) rotate(-90)`)
    .attr("text-anchor", "middle")
    .attr("fill", "#444")
    .text(data.yLabel);
  const group = svg
    .selectAll("g.group")
    .data(data.groups)
    .join("g")
    .attr("class", "group")
    .attr("transform", (_g, i) => `translate(${x0(`${i}`)},0)`);
  group.each(function (g) {
    const x1 = d3
      .scaleBand()
      .domain(g.bars.map((_b, i) => `${i}`))
      .range([0, x0.bandwidth()])
      .padding(0.08);
    const sel = d3.select(this);
    sel
      .selectAll("rect.bar")
      .data(g.bars)
      .join("rect")
      .attr("class", "bar")
      .attr("data-series", (b) => b.series)
      .attr("x", (_b, i) => x1(`${i}`)!)
      .attr("width", x1.bandwidth())
      .attr("y", (b) => y(Math.max(0, b.value)))
      .attr("height", (b) => Math.max(0, y(0) - y(Math.max(0, b.value))))
      .attr("fill", (b) => b.colour)
      .attr("data-tip", (b) => b.tip ?? `${g.label} · ${b.series}\n${fmtNum(b.value)}`);
    // Second channel for series past the eighth speaker: its marker shape just above the bar.
    sel
      .selectAll("path.marker")
      .data(g.bars.map((b, i) => ({ b, i })).filter(({ b }) => b.marker))
      .join("path")
      .attr("class", "marker")
      .attr("data-series", ({ b }) => b.series)
      .attr("transform", ({ b, i }) => `translate(${x1(`${i}`)! + x1.bandwidth() / 2},${y(Math.max(0, b.value)) - 6})`)
      .attr("d", ({ b }) => markerPath(b.marker!, Math.min(9, Math.max(5, x1.bandwidth()))))
      .attr("fill", ({ b }) => b.colour)
      .attr("pointer-events", "none");
    sel
      .selectAll("path.err")
      .data(g.bars.map((b, i) => ({ b, i })).filter(({ b }) => b.err))
      .join("path")
      .attr("class", "err")
      .attr("stroke", "#222")
      .attr("stroke-width", 1.4)
      .attr("fill", "none")
      .attr("d", ({ b, i }) => {
        const cx = x1(`${i}`)! + x1.bandwidth() / 2;
        const [lo, hi] = b.err!;
        return `M${cx - 5},${y(lo)}H${cx + 5}M${cx},${y(lo)}V${y(hi)}M${cx - 5},${y(hi)}H${cx + 5}`;
      });
  });
  svg
    .append("g")
    .attr("transform", `translate(0,${y(0)})`)
    .call(d3.axisBottom(x0).tickFormat((i) => groupLabels[Number(i)]))
    .selectAll("text")
    .attr("data-tip", (i) => data.groups[Number(i)].label)
    .attr("text-anchor", "end")
    .attr("transform", `translate(0,${margin.top + plotH - y(0)}) rotate(-35)`)
    .attr("dx", "-0.4em")
    .attr("dy", "0.5em");
  drawLegend(svg.append("g").attr("transform", `translate(10,${margin.top + plotH + margin.bottom})`), data.legend, width - 20);
  return svg.node()!;
}
