import * as d3 from "d3";

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
}

/**
 * A legend drawn inside the chart (so it is part of exports), wrapping into rows within `width`.
 * Returns the height it used.
 */
export function drawLegend(parent: d3.Selection<SVGGElement, undefined, null, undefined>, items: LegendItem[], width: number): number {
  const g = parent.append("g").attr("class", "legend");
  let x = 0;
  let y = 0;
  const rowHeight = 18;
  for (const item of items) {
    const w = 18 + Math.min(item.label.length, 28) * 6.6 + 14;
    if (x > 0 && x + w > width) {
      x = 0;
      y += rowHeight;
    }
    const entry = g.append("g").attr("class", "legend-item").attr("transform", `translate(${x},${y})`).attr("data-tip", item.label);
    if (item.shape === "line") entry.append("line").attr("x1", 0).attr("x2", 12).attr("y1", 6).attr("y2", 6).attr("stroke", item.colour).attr("stroke-width", 3);
    else entry.append("rect").attr("width", 12).attr("height", 12).attr("rx", 2).attr("fill", item.colour);
    entry.append("text").attr("x", 17).attr("y", 10).text(item.label.length > 28 ? item.label.slice(0, 27) + "…" : item.label);
    x += w;
  }
  return items.length === 0 ? 0 : y + rowHeight;
}

/** Shorten a label to fit about `chars` characters. */
export function clip(label: string, chars: number): string {
  return label.length > chars ? label.slice(0, Math.max(1, chars - 1)) + "…" : label;
}
