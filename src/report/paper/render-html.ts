import type { PaperReport, Table } from "./document.js";
import { formatCell } from "./render-markdown.js";
import { chartSvg, escapeXml } from "./svg.js";

/**
 * The report as one self-contained HTML file: inline CSS and SVG, no script, no external
 * resource, so it opens offline and can be attached to a submission. All text is escaped.
 */

const STYLE = `body{font-family:Georgia,serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem;font-size:.85rem;font-family:sans-serif}
th,td{border-bottom:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}caption{text-align:left;font-style:italic;padding-bottom:.3rem}
figure{margin:1rem 0}figcaption{font-style:italic;font-size:.9rem}.source{font-size:.75rem;color:#666}
.table-wrap{overflow-x:auto}svg{max-width:100%;height:auto}`;

function htmlTable(t: Table): string {
  const head = `<tr>${t.columns.map((c) => `<th>${escapeXml(c)}</th>`).join("")}</tr>`;
  const rows = t.rows
    .map((row) => `<tr>${row.map((c, i) => `<td${typeof c === "number" ? ' class="n"' : ""}>${escapeXml(formatCell(c, t.digits?.[i]))}</td>`).join("")}</tr>`)
    .join("\n");
  return `<div class="table-wrap"><table id="${escapeXml(t.id)}"><caption>${escapeXml(t.caption)}</caption>\n${head}\n${rows}\n</table><p class="source">Source: ${escapeXml(t.source)}; CSV: ${escapeXml(t.id)}.csv</p></div>`;
}

export function renderHtml(report: PaperReport): string {
  const body: string[] = [`<h1>${escapeXml(report.title)}</h1>`, `<p><em>${escapeXml(report.byline)}</em></p>`];
  for (const s of report.sections) {
    body.push(`<h${s.level}>${escapeXml(s.title)}</h${s.level}>`);
    for (const b of s.blocks) {
      if (b.kind === "paragraph") body.push(`<p>${escapeXml(b.text)}</p>`);
      else if (b.kind === "table") body.push(htmlTable(b.table));
      else if (b.kind === "notes") body.push(`<ul>${b.items.map((i) => `<li>${escapeXml(i)}</li>`).join("")}</ul>`);
      else body.push(`<figure id="${escapeXml(b.chart.id)}">${chartSvg(b.chart)}<figcaption>${escapeXml(b.chart.caption)}</figcaption></figure>`);
    }
  }
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(report.title)}</title><style>${STYLE}</style></head>\n<body>\n${body.join("\n")}\n</body></html>\n`;
}
