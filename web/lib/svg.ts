import * as d3 from "d3";
import type { Marker } from "./palette.js";

/**
 * A new standalone <svg>: sizes, a viewBox, and font/colour as presentation attributes so an
 * exported file looks the same outside the page (no page CSS needed).
 */
export function createSvg(width: number, height: number, title: string): d3.Selection<SVGSVGElement, undefined, null, undefined> {
  const svg = d3
    .create("svg")
    .attr("xmlns", "http://www.w3.org/2000/svg")
    .attr("width", width)
    .attr("height", height)
    .attr("viewBox", `0 0 ${width} ${height}`)
    .attr("font-family", "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif")
    .attr("font-size", 12)
    .attr("fill", "#222")
    .attr("role", "img")
    .attr("aria-label", title);
  svg.append("rect").attr("class", "bg").attr("width", width).attr("height", height).attr("fill", "#fff");
  return svg;
}

export interface LegendItem {
  label: string;
  colour: string;
  /** Shape of the key: a filled square (default) or a line. */
  shape?: "square" | "line";
  /** Second visual channel (many speakers): a dash pattern for line keys, a marker drawn on the key. */
  dash?: string;
  marker?: Marker;
}

const FONT = "12px system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif";
let measurer: CanvasRenderingContext2D | null | undefined;

/**
 * Width in pixels of `text` at the charts' 12px font (scaled by `size`). Measured with a canvas
 * in the browser, so layouts leave room for the real text instead of cutting it ("roduct
 * Manager"); outside a browser, a generous estimate.
 */
export function textWidth(text: string, size = 12): number {
  if (measurer === undefined) measurer = typeof document === "undefined" ? null : document.createElement("canvas").getContext("2d");
  if (!measurer) return text.length * 7.2 * (size / 12);
  measurer.font = FONT;
  // Fonts differ a little between the page and other SVG viewers: keep 6% spare.
  return measurer.measureText(text).width * 1.06 * (size / 12);
}

/** Width of the longest of `labels` (0 for none). */
export function widest(labels: readonly string[], size = 12): number {
  let max = 0;
  for (const l of labels) max = Math.max(max, textWidth(l, size));
  return max;
}

/** A marker (d3 symbol) path of about `size` px across, centred on 0,0. */
export function markerPath(marker: Marker, size = 9): string {
  const types: Record<Marker, d3.SymbolType> = {
    circle: d3.symbolCircle,
    square: d3.symbolSquare,
    triangle: d3.symbolTriangle,
    diamond: d3.symbolDiamond,
    cross: d3.symbolCross,
    star: d3.symbolStar,
    wye: d3.symbolWye,
  };
  return d3.symbol(types[marker], size * size * 0.6)() ?? "";
}

/**
 * A legend drawn inside the chart (so it is part of exports), wrapping into rows within `width`.
 * Labels are never cut: an entry wider than a row gets a row of its own. Returns the height used.
 */
export function drawLegend(parent: d3.Selection<SVGGElement, undefined, null, undefined>, items: LegendItem[], width: number): number {
  const g = parent.append("g").attr("class", "legend");
  let x = 0;
  let y = 0;
  const rowHeight = 18;
  for (const item of items) {
    // A label wider than the whole legend is shortened to fit (its tooltip keeps all of it).
    const label = fitText(item.label, width - 32);
    const w = 18 + textWidth(label) + 14;
    if (x > 0 && x + w > width) {
      x = 0;
      y += rowHeight;
    }
    const entry = g.append("g").attr("class", "legend-item").attr("transform", `translate(${x},${y})`).attr("data-tip", item.label);
    if (item.shape === "line")
      entry
        .append("line")
        .attr("x1", 0)
        .attr("x2", 12)
        .attr("y1", 6)
        .attr("y2", 6)
        .attr("stroke", item.colour)
        .attr("stroke-width", 3)
        .attr("stroke-dasharray", item.dash ?? null);
    else entry.append("rect").attr("width", 12).attr("height", 12).attr("rx", 2).attr("fill", item.colour);
    if (item.marker)
      entry
        .append("path")
        .attr("class", "marker")
        .attr("transform", "translate(6,6)")
        .attr("d", markerPath(item.marker, 8))
        .attr("fill", item.shape === "line" ? item.colour : "#fff")
        .attr("stroke", item.shape === "line" ? "#fff" : "none")
        .attr("stroke-width", 0.8);
    entry.append("text").attr("x", 17).attr("y", 10).text(label);
    x += w;
  }
  return items.length === 0 ? 0 : y + rowHeight;
}

/** `text`, shortened with an ellipsis until it is at most `px` wide (whole when it fits). */
export function fitText(text: string, px: number, size = 12): string {
  if (textWidth(text, size) <= px) return text;
  let n = text.length;
  while (n > 1 && textWidth(text.slice(0, n - 1) + "…", size) > px) n--;
  return text.slice(0, Math.max(1, n - 1)) + "…";
}

/** Shorten a label to fit about `chars` characters. */
export function clip(label: string, chars: number): string {
  return label.length > chars ? label.slice(0, Math.max(1, chars - 1)) + "…" : label;
}
