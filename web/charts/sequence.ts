import * as d3 from "d3";
import { createSvg, drawLegend, clip, type LegendItem } from "../lib/svg.js";
import { groupBy } from "../lib/indexing.js";

export interface SequenceData {
  title: string;
  /** Rows in display order; rows of one group are drawn together under the group's label. */
  rows: { id: string; group: string; cells: number[]; binSize: number; speakers: string[] }[];
  /** Colour of each speaker named in `rows[].speakers`, for the strip under every cell (who spoke). */
  speakerColour: (key: string) => string;
  /** Category labels and colours by index; -1 = not coded. */
  categories: { label: string; colour: string }[];
  legend: LegendItem[];
}

/**
 * One row per session, one cell per turn (or per bin of turns for long sessions), coloured by
 * code, in time order. Cells carry data-session / data-index for the view's hover text.
 */
export function sequenceChart(data: SequenceData, options: { width?: number } = {}): SVGSVGElement {
  const width = options.width ?? 1000;
  const margin = { top: 10, right: 12, left: 150 };
  const rowH = 22;
  // Code cell height; the rest of the row is the speaker strip.
  const cellH = 16;
  const groupGap = 22;
  const maxCells = d3.max(data.rows, (r) => r.cells.length) ?? 1;
  const cellW = Math.max(1, Math.min(24, (width - margin.left - margin.right) / maxCells));
  // Rows of each group in one pass (groups in order of first row), not one scan of all rows per group.
  const groups = groupBy(data.rows, (r) => r.group);
  let y = margin.top;
  const layout: { row: SequenceData["rows"][number]; y: number }[] = [];
  const groupY: { group: string; y: number }[] = [];
  for (const [g, members] of groups) {
    groupY.push({ group: g, y: y + 12 });
    y += groupGap;
    for (const row of members) {
      layout.push({ row, y });
      y += rowH + 3;
    }
    y += 6;
  }
  const probe = createSvg(1, 1, "probe");
  const legendH = drawLegend(probe.append("g"), data.legend, width - 20);
  const height = y + 28 + legendH;
  const svg = createSvg(width, height, data.title);
  svg.selectAll("text.group").data(groupY).join("text").attr("class", "group").attr("x", 8).attr("y", (d) => d.y).attr("font-weight", 600).text((d) => d.group);
  const rows = svg
    .selectAll("g.seq-row")
    .data(layout)
    .join("g")
    .attr("class", "seq-row")
    .attr("data-session", (d) => d.row.id)
    .attr("transform", (d) => `translate(0,${d.y})`);
  rows.append("text").attr("x", margin.left - 6).attr("y", rowH / 2).attr("dy", "0.35em").attr("text-anchor", "end").attr("font-size", 11).attr("data-tip", (d) => d.row.id).text((d) => clip(d.row.id, 22));
  rows.each(function (d) {
    d3.select(this)
      .selectAll("rect.seq-cell")
      .data(d.row.cells)
      .join("rect")
      .attr("class", "seq-cell")
      .attr("data-session", d.row.id)
      .attr("data-index", (_c, i) => i)
      .attr("x", (_c, i) => margin.left + i * cellW)
      .attr("width", Math.max(1, cellW - (cellW > 3 ? 1 : 0)))
      .attr("height", cellH)
      .attr("fill", (c) => (c < 0 ? "#eee" : data.categories[c].colour))
      .attr("data-tip", (c, i) => {
        const first = i * d.row.binSize;
        const turns = d.row.binSize > 1 ? `turns ${first + 1}–${first + d.row.binSize}` : `turn ${first + 1}`;
        return `${d.row.id} · ${turns}\n${d.row.speakers[i] ?? "?"}: ${c < 0 ? "not coded" : data.categories[c].label}`;
      });
    // Who spoke: a thin strip in the speaker's colour under each cell (the first turn's speaker of
    // a bin), drawn as one path per speaker and row: a rect per cell doubled the elements of the
    // heaviest view (40,000 cells at 100,000 turns).
    const w = Math.max(1, cellW - (cellW > 3 ? 1 : 0));
    const h = rowH - cellH - 1;
    const strips = new Map<string, string[]>();
    d.row.speakers.slice(0, d.row.cells.length).forEach((k, i) => {
      const list = strips.get(k);
      const seg = `M${margin.left + i * cellW},${cellH + 1}h${w}v${h}h${-w}z`;
      if (list) list.push(seg);
      else strips.set(k, [seg]);
    });
    d3.select(this)
      .selectAll("path.seq-speaker")
      .data([...strips])
      .join("path")
      .attr("class", "seq-speaker")
      .attr("data-speaker", ([k]) => k)
      .attr("d", ([, segs]) => segs.join(""))
      .attr("fill", ([k]) => data.speakerColour(k))
      .attr("pointer-events", "none");
  });
  drawLegend(svg.append("g").attr("transform", `translate(10,${y + 16})`), data.legend, width - 20);
  return svg.node()!;
}
