import { lab, scaleLinear } from "d3";
import type { Chart, PaperReport } from "./document.js";
import { MEASURE_COLOURS, greyscaleClashes } from "../palette.js";
import { COLUMN_MM } from "./png.js";

/**
 * The report's figures as SVG: grouped bars and point estimates with intervals, each one journal
 * column wide (85 mm). The user unit is the point, so every size below is what prints: text at
 * 8 pt (journals ask 7 to 9 pt at final size), labels wrapped to the room they have, never cut.
 * Self-contained (no script, no external font or style), every label escaped as text.
 */

/** The figure's width in points: one column. */
export const FIGURE_PT = Number(((COLUMN_MM / 25.4) * 72).toFixed(2));
/** The size of every text in a figure, in points at the printed size. */
export const FONT_PT = 8;
/** Distance between the baselines of wrapped lines. */
const LINE = 9.5;
/** Fonts with Helvetica's widths first (Liberation Sans on Linux has Arial's, hence Helvetica's). */
const FONT_FAMILY = "Arial, Helvetica, 'Liberation Sans', sans-serif";
/** Room kept free at the figure's left and right edges. */
const EDGE = 2;

/** A series or row without a colour of its own (no study item: a coder pair) is drawn in the measures' grey. */
const PLAIN = MEASURE_COLOURS[0];

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const tick = (v: number) => (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(2));
/** A coordinate, short: 2 decimals of a point are a hundredth of a millimetre at most. */
const at = (v: number) => Number(v.toFixed(2));

/** A tick label: as d3 picks round ticks (0, 0.5, 1, 1.5), print them as short as they are. */
const tickLabel = (v: number) => String(Number(v.toFixed(6)));

const NARROW = new Set("ijlI.,:;'!|`");
const SEMI = new Set('ftr -()[]{}/\\"*');
const WIDE = new Set("mwMW%@");

/**
 * A text's width in points at `size`, from Helvetica's advance widths rounded up to a few classes,
 * plus 10% so that it still fits where a reader's machine falls back to a wider sans-serif font
 * (DejaVu Sans). The browser test measures the drawn text in both fonts.
 */
export function textWidth(text: string, size = FONT_PT): number {
  let em = 0;
  for (const ch of text) {
    if (NARROW.has(ch)) em += 0.28;
    else if (SEMI.has(ch)) em += 0.36;
    else if (WIDE.has(ch)) em += 0.95;
    else if (/[A-Z]/.test(ch)) em += 0.78;
    else if (/[a-z0-9]/.test(ch)) em += 0.56;
    else em += ch.codePointAt(0)! >= 0x2e80 ? 1 : 0.62; // CJK and other full-width scripts take a whole em
  }
  return em * size * 1.1;
}

/** A word too wide for `width` in pieces that fit, broken after a hyphen, underscore, slash or dot when one is in the second half. */
function breakWord(word: string, width: number): string[] {
  const out: string[] = [];
  let rest = word;
  while (textWidth(rest) > width) {
    const chars = [...rest];
    let n = 1;
    while (n < chars.length && textWidth(chars.slice(0, n + 1).join("")) <= width) n++;
    const head = chars.slice(0, n).join("");
    const soft = Math.max(...["-", "_", "/", "."].map((c) => head.lastIndexOf(c)));
    const cut = soft >= head.length / 2 ? soft + 1 : head.length;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return [...out, rest];
}

/**
 * A label as lines no wider than `width` points, broken at spaces (a word wider than the room is
 * broken inside, its pieces each on a line of their own): wrapped, never cut, no character lost.
 */
export function wrapLabel(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    breakWord(word, width).forEach((piece, i) => {
      const last = lines.at(-1);
      if (i === 0 && last !== undefined && textWidth(`${last} ${piece}`) <= width) lines[lines.length - 1] = `${last} ${piece}`;
      else lines.push(piece);
    });
  }
  return lines.length ? lines : [""];
}

/** Lines of text at x, the first baseline at y. */
function textLines(lines: string[], x: number, y: number, anchor: "start" | "middle" | "end", attrs = ""): string {
  const spans = lines.map((l, i) => `<tspan x="${at(x)}"${i === 0 ? "" : ` dy="${LINE}"`}>${escapeXml(l)}</tspan>`).join("");
  return `<text x="${at(x)}" y="${at(y)}" text-anchor="${anchor}"${attrs}>${spans}</text>`;
}

/** The first baseline that centres `n` lines on y (a baseline sits about 0.35 em under the middle of lower-case letters). */
const centredBaseline = (n: number, y: number) => y - ((n - 1) * LINE) / 2 + FONT_PT * 0.35;

/**
 * Round ticks over [lo, hi] (d3's nice + ticks) as many as the plot has room for: each label
 * keeps 4 pt clear of the next. The domain grows to the first and last of them.
 */
function roundTicks(lo: number, hi: number, plot: number): { domain: [number, number]; ticks: number[] } {
  for (let count = 5; ; count--) {
    const scale = scaleLinear()
      .domain([lo, hi === lo ? lo + 1 : hi])
      .nice(count);
    const ticks = scale.ticks(count);
    const [a, b] = scale.domain();
    const widest = Math.max(...ticks.map((t) => textWidth(tickLabel(t))));
    const spacing = ticks.length < 2 ? plot : (plot * (ticks[1] - ticks[0])) / (b - a);
    if (count === 2 || spacing >= widest + 4) return { domain: [a, b], ticks };
  }
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

/** The chart as an <svg> element string, 85 mm wide (its height grows with the rows). */
export function chartSvg(chart: Chart): string {
  return chart.kind === "bars" ? barsSvg(chart) : intervalsSvg(chart);
}

/**
 * Textures laid over a series' colour when the chart's colours look alike in greyscale (3 pt
 * tiles): none, lines rising, dots, horizontal lines, cross-hatch, lines falling, vertical lines.
 */
const TEXTURES = [
  "",
  "M-0.75,0.75L0.75,-0.75M0,3L3,0M2.25,3.75L3.75,2.25",
  "M1.5,1.5h0.01",
  "M0,1.5H3",
  "M-0.75,0.75L0.75,-0.75M0,3L3,0M2.25,3.75L3.75,2.25M-0.75,2.25L0.75,3.75M0,0L3,3M2.25,-0.75L3.75,0.75",
  "M-0.75,2.25L0.75,3.75M0,0L3,3M2.25,-0.75L3.75,0.75",
  "M1.5,0V3",
];

/**
 * The fill of each series: its colour alone when every pair of the chart's colours differs in
 * greyscale (palette.ts greyscaleClashes), else its colour under a texture of its own, so that a
 * reader of a greyscale print tells the series apart by the legend's texture.
 */
function seriesFills(id: string, colours: string[]): { defs: string; fills: string[] } {
  if (greyscaleClashes(colours).length === 0) return { defs: "", fills: colours };
  const defs: string[] = [];
  const fills = colours.map((colour, i) => {
    const texture = TEXTURES[i % TEXTURES.length];
    if (!texture) return colour;
    const ink = lab(colour).l > 50 ? "#000000" : "#FFFFFF";
    const width = texture === TEXTURES[2] ? 1.3 : 0.6;
    defs.push(
      `<pattern id="${escapeXml(id)}-s${i}" patternUnits="userSpaceOnUse" width="3" height="3"><rect width="3" height="3" fill="${colour}"/><path d="${texture}" stroke="${ink}" stroke-width="${width}" stroke-linecap="round"/></pattern>`,
    );
    return `url(#${escapeXml(id)}-s${i})`;
  });
  return { defs: defs.join(""), fills };
}

/** The legend: a swatch and name per series, flowing in rows across the figure; a name wider than the figure wraps. */
function legend(names: string[], fills: string[]): { body: string; height: number } {
  const swatch = 7;
  const room = FIGURE_PT - 2 * EDGE;
  const out: string[] = [];
  let x = EDGE;
  let top = 0;
  let rowLines = 1;
  names.forEach((name, i) => {
    const lines = wrapLabel(name, room - swatch - 3);
    const width = swatch + 3 + Math.max(...lines.map((l) => textWidth(l)));
    if (x > EDGE && x + width > FIGURE_PT - EDGE) {
      top += rowLines * LINE + 2;
      x = EDGE;
      rowLines = 1;
    }
    const baseline = top + FONT_PT;
    out.push(
      `<g class="legend-item"><rect x="${at(x)}" y="${at(baseline - swatch + 0.5)}" width="${swatch}" height="${swatch}" fill="${fills[i]}" stroke="#444444" stroke-width="0.3" data-series="${escapeXml(name)}"/>`,
      textLines(lines, x + swatch + 3, baseline, "start"),
      "</g>",
    );
    rowLines = Math.max(rowLines, lines.length);
    x += width + 8;
  });
  return { body: out.join(""), height: top + rowLines * LINE + 6 };
}

/** The value axis under the plot: its line, round ticks and the title in words, wrapped to the plot's width. */
function valueAxis(x: (v: number) => number, ticks: number[], left: number, plot: number, y: number, title: string): { body: string; height: number } {
  const out = [`<line x1="${at(left)}" y1="${at(y)}" x2="${at(left + plot)}" y2="${at(y)}" stroke="#888888" stroke-width="0.5"/>`];
  for (const t of ticks) {
    out.push(`<line x1="${at(x(t))}" y1="${at(y)}" x2="${at(x(t))}" y2="${at(y + 2)}" stroke="#888888" stroke-width="0.5"/>`);
    out.push(`<text class="tick" x="${at(x(t))}" y="${at(y + 2 + FONT_PT)}" text-anchor="middle">${tickLabel(t)}</text>`);
  }
  const lines = wrapLabel(title, plot);
  out.push(textLines(lines, left + plot / 2, y + 4 + FONT_PT + LINE, "middle", ' class="axis-title"'));
  return { body: out.join(""), height: 4 + FONT_PT + lines.length * LINE + 3 };
}

/** Where the plot starts: after the widest label (at most 40% of the figure, wrapped beyond). */
function labelColumn(labels: string[]): { width: number; left: number } {
  const width = Math.min(Math.max(10, ...labels.map((l) => textWidth(l))), FIGURE_PT * 0.4);
  return { width, left: EDGE + width + 4 };
}

/** The room the last tick label needs beyond the plot's right end. */
const rightRoom = (ticks: number[]) => textWidth(tickLabel(ticks.at(-1) ?? 0)) / 2 + EDGE + 1;

/** The value scale of a plot from `left` to the figure's right edge, less the room its last tick label needs. */
function valueScale(chart: Chart, left: number): { x: (v: number) => number; ticks: number[]; plot: number } {
  const extent = chart.domain ?? valueExtent(chart);
  // The ticks decide the room on the right, which decides the plot's width (and so the ticks again).
  const plot = FIGURE_PT - left - rightRoom(roundTicks(...extent, FIGURE_PT - left - 4).ticks);
  const {
    domain: [lo, hi],
    ticks,
  } = roundTicks(...extent, plot);
  return { x: (v) => left + ((v - lo) / (hi - lo || 1)) * plot, ticks, plot };
}

function barsSvg(chart: Extract<Chart, { kind: "bars" }>): string {
  const bar = 6;
  const { width: labelWidth, left } = labelColumn(chart.categories);
  const { x, ticks, plot } = valueScale(chart, left);
  const { defs, fills } = seriesFills(
    chart.id,
    chart.series.map((s) => s.colour ?? PLAIN),
  );
  const key = legend(
    chart.series.map((s) => s.name),
    fills,
  );
  const out: string[] = [key.body];
  let y = key.height;
  for (const [c, category] of chart.categories.entries()) {
    const lines = wrapLabel(category, labelWidth);
    const bars = chart.series.length * (bar + 1) - 1;
    const height = Math.max(bars, lines.length * LINE);
    out.push(textLines(lines, left - 4, centredBaseline(lines.length, y + height / 2), "end"));
    const top = y + (height - bars) / 2;
    chart.series.forEach((s, i) => {
      const v = s.values[c];
      if (v === null) return;
      const [from, to] = [x(Math.min(0, v)), x(Math.max(0, v))];
      out.push(
        `<rect x="${at(from)}" y="${at(top + i * (bar + 1))}" width="${at(to - from)}" height="${bar}" fill="${fills[i]}" data-series="${escapeXml(s.name)}"><title>${escapeXml(`${s.name}, ${category}: ${tick(v)}`)}</title></rect>`,
      );
    });
    y += height + 5;
  }
  const axis = valueAxis(x, ticks, left, plot, y, chart.valueLabel);
  out.push(axis.body);
  return svg(y + axis.height, chart.caption, out, defs);
}

function intervalsSvg(chart: Extract<Chart, { kind: "intervals" }>): string {
  const { width: labelWidth, left } = labelColumn(chart.rows.map((r) => r.label));
  const { x, ticks, plot } = valueScale(chart, left);
  const out: string[] = [];
  let y = 4;
  for (const r of chart.rows) {
    const lines = wrapLabel(r.label, labelWidth);
    const height = Math.max(12, lines.length * LINE + 3);
    const mid = y + height / 2;
    out.push(textLines(lines, left - 4, centredBaseline(lines.length, mid), "end"));
    if (r.lower !== null && r.upper !== null) {
      const [a, b] = [at(x(r.lower)), at(x(r.upper))];
      out.push(
        `<path d="M${a},${at(mid - 2)}V${at(mid + 2)}M${a},${at(mid)}H${b}M${b},${at(mid - 2)}V${at(mid + 2)}" stroke="#333333" stroke-width="0.8" fill="none"/>`,
      );
    }
    if (r.value !== null)
      out.push(
        `<circle cx="${at(x(r.value))}" cy="${at(mid)}" r="2.5" fill="${r.colour ?? PLAIN}" stroke="#333333" stroke-width="0.3" data-series="${escapeXml(r.label)}"><title>${escapeXml(`${r.label}: ${tick(r.value)}${r.lower !== null && r.upper !== null ? ` [${tick(r.lower)}, ${tick(r.upper)}]` : ""}`)}</title></circle>`,
      );
    y += height;
  }
  const axis = valueAxis(x, ticks, left, plot, y + 2, chart.valueLabel);
  out.push(axis.body);
  return svg(y + 2 + axis.height, chart.caption, out);
}

/** The <svg>: 85 mm wide and as tall as its content, in points (its viewBox), text 8 pt unless a text says otherwise. */
function svg(height: number, title: string, body: string[], defs = ""): string {
  const h = at(height);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${FIGURE_PT} ${h}" width="${COLUMN_MM}mm" height="${at((h / 72) * 25.4)}mm" ` +
    `font-family="${FONT_FAMILY}" font-size="${FONT_PT}" role="img"><title>${escapeXml(title)}</title>${defs ? `<defs>${defs}</defs>` : ""}${body.join("")}</svg>`
  );
}
