import { scaleLinear } from "d3";
import type { Chart, PaperReport } from "./document.js";
import { MEASURE_COLOURS } from "../palette.js";

/** A series or row without a colour of its own (no study item: a coder pair) is drawn in the measures' grey. */
const PLAIN = MEASURE_COLOURS[0];

/**
 * Inline SVG for the HTML report's charts: grouped bars and point estimates with intervals.
 * Self-contained (no script, no external font or style), every label escaped as text.
 */

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const tick = (v: number) => (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(2));

/** A tick label: as d3 picks round ticks (0, 0.5, 1, 1.5), print them as short as they are. */
const tickLabel = (v: number) => String(Number(v.toFixed(6)));

/** Round ticks over [lo, hi] (d3's nice + ticks): the domain grows to the first and last of them. */
function roundTicks(lo: number, hi: number): { domain: [number, number]; ticks: number[] } {
  const scale = scaleLinear()
    .domain([lo, hi === lo ? lo + 1 : hi])
    .nice(5);
  const [a, b] = scale.domain();
  return { domain: [a, b], ticks: scale.ticks(5) };
}

/** Split a label into lines of at most `width` characters at spaces (a longer word keeps its own line): wrapped, never cut. */
export function wrapLabel(text: string, width = 32): string[] {
  const lines: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines.length ? lines : [""];
}

/** A label right-aligned at x, its lines centred on y (font size 11, line height 12). */
function labelLines(text: string, x: number, y: number): string {
  const lines = wrapLabel(text);
  const top = y + 4 - ((lines.length - 1) * 12) / 2;
  return `<text x="${x}" y="${top}" font-size="11" text-anchor="end">${lines.map((l, i) => `<tspan x="${x}" dy="${i === 0 ? 0 : 12}">${escapeXml(l)}</tspan>`).join("")}</text>`;
}

/** The axis title in words, centred under the plot (never beside it, where it would run off the edge). */
function axisTitle(text: string, left: number, plot: number, y: number): string {
  return `<text x="${left + plot / 2}" y="${y}" font-size="11" text-anchor="middle">${escapeXml(text)}</text>`;
}

/** The values a chart must show: from 0 (or below, for an interval reaching under it) to its largest value or bound. */
function valueExtent(chart: Chart): [number, number] {
  const values = chart.kind === "bars" ? chart.series.flatMap((s) => s.values) : chart.rows.flatMap((r) => [r.value, r.lower, r.upper]);
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v));
  return [Math.min(0, ...known), Math.max(1e-9, ...known)];
}

/**
 * The report with one value scale for every set of figures that show the same quantity (the
 * same axis title: the share of acts per code for each codebook, a measure by condition), so bar
 * lengths and intervals compare across figures as well as within one (`colloquy report
 * --shared-scales`). A figure with a fixed range (kappa on 0 to 1) keeps it.
 */
export function shareScales(report: PaperReport): PaperReport {
  const charts = report.sections.flatMap((s) => s.blocks.flatMap((b) => (b.kind === "chart" ? [b.chart] : [])));
  const extents = new Map<string, [number, number]>();
  for (const c of charts) {
    if (c.domain) continue;
    const [lo, hi] = valueExtent(c);
    const before = extents.get(c.valueLabel);
    extents.set(c.valueLabel, before ? [Math.min(before[0], lo), Math.max(before[1], hi)] : [lo, hi]);
  }
  return {
    ...report,
    sections: report.sections.map((s) => ({
      ...s,
      blocks: s.blocks.map((b) => (b.kind === "chart" && !b.chart.domain ? { ...b, chart: { ...b.chart, domain: extents.get(b.chart.valueLabel) } } : b)),
    })),
  };
}

/** The chart as an <svg> element string (width 720; height grows with the rows). */
export function chartSvg(chart: Chart): string {
  return chart.kind === "bars" ? barsSvg(chart) : intervalsSvg(chart);
}

function barsSvg(chart: Extract<Chart, { kind: "bars" }>): string {
  const left = 230;
  const width = 720;
  const plot = width - left - 60;
  const barH = 10;
  const groupH = chart.series.length * barH + 8;
  const legendH = 18 * Math.ceil(chart.series.length / 4) + 8;
  const height = legendH + chart.categories.length * groupH + 44;
  const { domain, ticks } = roundTicks(...(chart.domain ?? valueExtent(chart)));
  const max = domain[1];
  const out: string[] = [];
  chart.series.forEach((s, i) => {
    const x = (i % 4) * 170;
    const y = 18 * Math.floor(i / 4) + 12;
    out.push(
      `<rect x="${x}" y="${y - 9}" width="10" height="10" fill="${s.colour ?? PLAIN}"/><text x="${x + 14}" y="${y}" font-size="11">${escapeXml(s.name)}</text>`,
    );
  });
  chart.categories.forEach((category, c) => {
    const y0 = legendH + c * groupH;
    out.push(labelLines(category, left - 6, y0 + groupH / 2 - 1));
    chart.series.forEach((s, i) => {
      const v = s.values[c];
      if (v === null) return;
      const w = (v / max) * plot;
      out.push(
        `<rect x="${left}" y="${y0 + i * barH}" width="${w.toFixed(1)}" height="${barH - 1}" fill="${s.colour ?? PLAIN}"><title>${escapeXml(`${s.name}, ${category}: ${tick(v)}`)}</title></rect>`,
      );
    });
  });
  const axisY = legendH + chart.categories.length * groupH + 4;
  out.push(`<line x1="${left}" y1="${axisY}" x2="${left + plot}" y2="${axisY}" stroke="#888"/>`);
  for (const t of ticks)
    out.push(`<text x="${(left + (t / max) * plot).toFixed(1)}" y="${axisY + 14}" font-size="10" text-anchor="middle">${tickLabel(t)}</text>`);
  out.push(axisTitle(chart.valueLabel, left, plot, axisY + 30));
  return svg(width, height + 8, chart.caption, out);
}

function intervalsSvg(chart: Extract<Chart, { kind: "intervals" }>): string {
  const left = 230;
  const width = 720;
  const plot = width - left - 60;
  const rowH = 30;
  const height = chart.rows.length * rowH + 54;
  const { domain, ticks } = roundTicks(...(chart.domain ?? valueExtent(chart)));
  const [lo, hi] = domain;
  const x = (v: number) => left + ((v - lo) / (hi - lo || 1)) * plot;
  const out: string[] = [];
  chart.rows.forEach((r, i) => {
    const y = 12 + i * rowH + rowH / 2;
    out.push(labelLines(r.label, left - 6, y));
    if (r.lower !== null && r.upper !== null)
      out.push(`<line x1="${x(r.lower).toFixed(1)}" y1="${y}" x2="${x(r.upper).toFixed(1)}" y2="${y}" stroke="#333" stroke-width="1.5"/>`);
    if (r.value !== null)
      out.push(
        `<circle cx="${x(r.value).toFixed(1)}" cy="${y}" r="4" fill="${r.colour ?? PLAIN}"><title>${escapeXml(`${r.label}: ${tick(r.value)}${r.lower !== null && r.upper !== null ? ` [${tick(r.lower)}, ${tick(r.upper)}]` : ""}`)}</title></circle>`,
      );
  });
  const axisY = 12 + chart.rows.length * rowH + 4;
  out.push(`<line x1="${left}" y1="${axisY}" x2="${left + plot}" y2="${axisY}" stroke="#888"/>`);
  for (const t of ticks) out.push(`<text x="${x(t).toFixed(1)}" y="${axisY + 14}" font-size="10" text-anchor="middle">${tickLabel(t)}</text>`);
  out.push(axisTitle(chart.valueLabel, left, plot, axisY + 30));
  return svg(width, height, chart.caption, out);
}

function svg(width: number, height: number, title: string, body: string[]): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="sans-serif" role="img"><title>${escapeXml(title)}</title>${body.join("")}</svg>`;
}
