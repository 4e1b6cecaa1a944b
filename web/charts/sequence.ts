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
 * code, in time order. Each row has one `rect.seq-cells` hover target carrying data-session,
 * data-cells and data-cell-width; `cellIndexAt` turns a pointer position into the cell's index.
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
  svg
    .selectAll("text.group")
    .data(groupY)
    .join("text")
    .attr("class", "group")
    .attr("x", 8)
    .attr("y", (d) => d.y)
    .attr("font-weight", 600)
    .text((d) => d.group);
  const rows = svg
    .selectAll("g.seq-row")
    .data(layout)
    .join("g")
    .attr("class", "seq-row")
    .attr("data-session", (d) => d.row.id)
    .attr("transform", (d) => `translate(0,${d.y})`);
  rows
    .append("text")
    .attr("x", margin.left - 6)
    .attr("y", rowH / 2)
    .attr("dy", "0.35em")
    .attr("text-anchor", "end")
    .attr("font-size", 11)
    .attr("data-tip", (d) => d.row.id)
    .text((d) => clip(d.row.id, 22));
  const w = Math.max(1, cellW - (cellW > 3 ? 1 : 0));
  rows.each(function (d) {
    const row = d3.select(this);
    // Cells as one path per code (runs of equal cells merged into one rectangle) and one path per
    // speaker for the strip under them: a rect per cell made 40,000 elements at 100,000 turns and
    // the view took 1.7 s to draw; this is a few paths per row, whatever the row's length.
    const codePaths = new Map<number, string[]>();
    for (let i = 0; i < d.row.cells.length;) {
      const code = d.row.cells[i];
      let end = i + 1;
      // Merge a run only where cells touch (no 1-px gap between them).
      while (w === cellW && end < d.row.cells.length && d.row.cells[end] === code) end++;
      const seg = `M${margin.left + i * cellW},0h${(end - i - 1) * cellW + w}v${cellH}h${-((end - i - 1) * cellW + w)}z`;
      const list = codePaths.get(code);
      if (list) list.push(seg);
      else codePaths.set(code, [seg]);
      i = end;
    }
    row
      .selectAll("path.seq-code")
      .data([...codePaths].sort(([a], [b]) => a - b))
      .join("path")
      .attr("class", "seq-code")
      .attr("data-code", ([c]) => c)
      .attr("d", ([, segs]) => segs.join(""))
      .attr("fill", ([c]) => (c < 0 ? "#eee" : data.categories[c].colour))
      .attr("pointer-events", "none");
    // Who spoke: a thin strip in the speaker's colour under each cell (the first turn's speaker of a
    // bin), a run of one speaker's touching cells as one rectangle, as the codes' runs are.
    const h = rowH - cellH - 1;
    const strips = new Map<string, string[]>();
    const speakers = d.row.speakers;
    const cells = Math.min(speakers.length, d.row.cells.length);
    for (let i = 0; i < cells;) {
      const k = speakers[i];
      let end = i + 1;
      while (w === cellW && end < cells && speakers[end] === k) end++;
      const width = (end - i - 1) * cellW + w;
      const seg = `M${margin.left + i * cellW},${cellH + 1}h${width}v${h}h${-width}z`;
      const list = strips.get(k);
      if (list) list.push(seg);
      else strips.set(k, [seg]);
      i = end;
    }
    row
      .selectAll("path.seq-speaker")
      .data([...strips])
      .join("path")
      .attr("class", "seq-speaker")
      .attr("data-speaker", ([k]) => k)
      .attr("d", ([, segs]) => segs.join(""))
      .attr("fill", ([k]) => data.speakerColour(k))
      .attr("pointer-events", "none");
    // One transparent target over the row's cells: the hover text of the cell under the pointer is
    // computed when hovered (sequenceCellText), not stored on 40,000 elements up front.
    row
      .append("rect")
      .attr("class", "seq-cells")
      .attr("data-session", d.row.id)
      .attr("data-cells", d.row.cells.length)
      .attr("data-cell-width", cellW)
      .attr("data-tip", d.row.id)
      .attr("x", margin.left)
      .attr("width", d.row.cells.length * cellW)
      .attr("height", rowH)
      .attr("fill", "transparent");
  });
  drawLegend(svg.append("g").attr("transform", `translate(10,${y + 16})`), data.legend, width - 20);
  return svg.node()!;
}

/** Index of the cell under the pointer in a row's `rect.seq-cells`, or -1 when outside it. */
export function cellIndexAt(target: Element, clientX: number): number {
  const cells = Number(target.getAttribute("data-cells"));
  const box = target.getBoundingClientRect();
  if (!(cells > 0) || box.width <= 0) return -1;
  const index = Math.floor(((clientX - box.left) / box.width) * cells);
  return index >= 0 && index < cells ? index : -1;
}

/** The hover text of one cell: session, turn (or turns of a bin), speaker and code. */
export function sequenceCellText(row: SequenceData["rows"][number], index: number, categories: SequenceData["categories"]): string {
  const first = index * row.binSize;
  const turns = row.binSize > 1 ? `turns ${first + 1}–${first + row.binSize}` : `turn ${first + 1}`;
  const code = row.cells[index];
  return `${row.id} · ${turns}\n${row.speakers[index] ?? "?"}: ${code < 0 ? "not coded" : categories[code].label}`;
}
