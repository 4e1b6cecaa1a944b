import type { Cell, Chart, PaperReport, Table } from "./document.js";

/**
 * The report as Markdown (GitHub-flavoured tables). Numbers are rounded for reading to each
 * column's digits; the CSVs beside the report keep them exact.
 */

/**
 * A cell as a reader sees it: numbers to the column's `digits` (one format per column, so 6 and
 * 5.2 read as 6.000 and 5.200), or without a column format whole numbers as they are and others
 * to 2 decimals; null as "–".
 */
export function formatCell(cell: Cell, digits?: number): string {
  if (cell === null) return "–";
  if (typeof cell !== "number") return cell;
  if (!Number.isFinite(cell)) return String(cell);
  if (digits !== undefined) return cell.toFixed(digits);
  return Number.isInteger(cell) ? String(cell) : cell.toFixed(2);
}

/**
 * Text from the study (speaker names, code labels, topic words) as Markdown text. Renderers pass
 * raw HTML through, so a "<" that could open a tag, comment or autolink and an "&" that could
 * start an entity get a backslash (CommonMark's escape, which pandoc and Quarto read too), never
 * an HTML entity: "p < .05" stays as written. A line break becomes a space so the text cannot
 * start a block of its own (a heading, a list, raw HTML), and a leading ">" is not a quote.
 */
const escapeMarkdownText = (text: string) =>
  text
    .replace(/\r?\n/g, " ")
    .replace(/<(?=[A-Za-z/!?])/g, "\\<")
    .replace(/&(?=#|[A-Za-z][A-Za-z0-9]*;)/g, "\\&")
    .replace(/^>/, "\\>");

/** A table cell: escaped text, and a pipe or backslash cannot end the cell early. */
const escapeCell = (text: string) => escapeMarkdownText(text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|"));

/** Inline code: HTML is not interpreted there, but a backtick would close the span. */
const code = (text: string) => `\`${text.replace(/`/g, "'").replace(/\r?\n/g, " ")}\``;

function markdownTable(t: Table): string {
  const lines = [
    `| ${t.columns.map(escapeCell).join(" | ")} |`,
    `|${t.columns.map(() => " --- ").join("|")}|`,
    ...t.rows.map((row) => `| ${row.map((c, i) => escapeCell(formatCell(c, t.digits?.[i]))).join(" | ")} |`),
  ];
  return `*${escapeMarkdownText(t.caption)}.* Source: ${code(t.source)}; CSV: ${code(`${t.id}.csv`)}.\n\n${lines.join("\n")}`;
}

/**
 * `figure(chart)`: where the chart's SVG file is, relative to the Markdown file (the report stage
 * writes them beside it), so pandoc and Quarto take the figures into a manuscript. Without it a
 * figure is named and the HTML report pointed to.
 */
export function renderMarkdown(report: PaperReport, options: { figure?: (chart: Chart) => string } = {}): string {
  const text = escapeMarkdownText;
  const out = [`# ${text(report.title)}`, "", `_${text(report.byline)}_`];
  for (const s of report.sections) {
    out.push("", `${"#".repeat(s.level)} ${text(s.title)}`);
    for (const b of s.blocks) {
      if (b.kind === "paragraph") out.push("", text(b.text));
      else if (b.kind === "table") out.push("", markdownTable(b.table));
      else if (b.kind === "notes") out.push("", ...b.items.map((i) => `- ${text(i)}`));
      else if (options.figure) out.push("", `![${text(b.chart.caption)}](${encodeURI(options.figure(b.chart))})`);
      else out.push("", `_Figure: ${text(b.chart.caption)} (in the HTML report: \`colloquy report --format html\`)._`);
    }
  }
  return out.join("\n") + "\n";
}
