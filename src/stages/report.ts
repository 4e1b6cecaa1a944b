import { readFile, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { loadStudyData } from "../report/load.js";
import { buildPaper } from "../report/paper/sections.js";
import { reportTables, type Chart, type PaperReport } from "../report/paper/document.js";
import { chartSvg, shareScales } from "../report/paper/svg.js";
import { svgsToPng } from "../report/paper/png.js";
import { renderMarkdown } from "../report/paper/render-markdown.js";
import { renderHtml } from "../report/paper/render-html.js";
import { toCsv } from "../util/csv.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { toolVersion } from "../util/provenance.js";
import type { StageEffects, StudyContext } from "./context.js";
import { reportFiles } from "../report/files.js";

/**
 * The report stage: the study's method and results as one self-contained Markdown or HTML file
 * (sample, design, coding, reliability, comparisons, topics, concepts; charts as inline SVG in
 * HTML), and one CSV per table with the analysis files' numbers unrounded.
 */
export interface ReportStageOptions {
  format?: "md" | "html";
  /** Report file (default analysis/report.<format>); its tables go to `<out without extension>-tables/`. */
  out?: string;
  /** Markdown: write the figures as SVG files beside the report and link them (default true; false when the report goes to standard output). */
  figures?: boolean;
  /** Markdown: also write each figure as PNG at 300 dpi for an 85 mm column (Chromium), and link the PNGs. */
  png?: boolean;
  /** Figures of the same quantity on one value scale (svg.ts shareScales). */
  sharedScales?: boolean;
}

export interface ReportSummary {
  report: PaperReport;
  file: string;
  tablesDir: string;
  tables: string[];
}

/** In the tables folder: which CSVs the last report wrote (a dotfile, so the study's file scans skip it). */
const TABLES_MANIFEST = ".colloquy-report.json";

/** The CSV names the previous report recorded; none when there is no (readable) manifest. */
async function previousTables(manifest: string): Promise<string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(manifest, "utf8"));
  } catch {
    return [];
  }
  const tables = (parsed as { tables?: unknown } | null)?.tables;
  // Plain file names only: an edited manifest must not reach outside the folder.
  return Array.isArray(tables) ? tables.filter((t): t is string => typeof t === "string" && t.endsWith(".csv") && t === basename(t) && !t.includes("\\")) : [];
}

/** A CSV cell: numbers exactly as JavaScript prints them (shortest round trip, as in the JSON files); null empty. */

/**
 * The Markdown report's figures: one SVG per chart in `<report name>-figures/` beside it, the same
 * drawing as the HTML report's. Returns where each is, relative to the report.
 */
async function writeFigures(report: PaperReport, file: string, png: boolean): Promise<(chart: Chart) => string> {
  const folder = `${basename(file).replace(/\.[^.]*$/, "")}-figures`;
  const charts = report.sections.flatMap((s) => s.blocks.flatMap((b) => (b.kind === "chart" ? [b.chart] : [])));
  const svgs = charts.map((chart) => chartSvg(chart));
  // Rendered before any file is written: without Chromium the command fails and changes nothing.
  const pngs = png ? await svgsToPng(svgs) : [];
  for (const [i, chart] of charts.entries()) {
    await writeFileAtomic(join(dirname(file), folder, `${chart.id}.svg`), svgs[i] + "\n");
    if (png) await writeFileAtomic(join(dirname(file), folder, `${chart.id}.png`), pngs[i]);
  }
  return (chart) => `${folder}/${chart.id}.${png ? "png" : "svg"}`;
}

export async function runReport(context: StudyContext, options: ReportStageOptions, effects: StageEffects): Promise<ReportSummary> {
  const format = options.format ?? "md";
  const data = await loadStudyData(context.dir, context);
  const paper = buildPaper(data, { version: toolVersion, date: new Date().toISOString().slice(0, 10) });
  const report = options.sharedScales ? shareScales(paper) : paper;
  const file = options.out ? resolve(options.out) : reportFiles.paperReport.path(context.dir, format);
  const tablesDir = options.out ? file.replace(/\.[^./\\]*$/, "") + "-tables" : dirname(reportFiles.paperReportTable.path(context.dir, "x"));
  const figures = format === "md" && options.figures !== false ? await writeFigures(report, file, options.png === true) : undefined;
  await writeFileAtomic(file, format === "html" ? renderHtml(report) : renderMarkdown(report, { figure: figures }));
  const tables = reportTables(report);
  const written = new Set<string>();
  for (const t of tables) {
    const path = join(tablesDir, `${t.id}.csv`);
    await writeFileAtomic(path, toCsv(t.columns, t.rows));
    written.add(`${t.id}.csv`);
  }
  // Tables of an earlier report that this one no longer has would be read as current: remove
  // them, but only those the manifest says an earlier report wrote. The folder may be the
  // user's (--out), and a CSV of their own there is not ours to delete.
  const manifest = join(tablesDir, TABLES_MANIFEST);
  for (const name of await previousTables(manifest)) {
    if (!written.has(name)) await rm(join(tablesDir, name), { force: true });
  }
  await writeJsonAtomic(manifest, {
    writtenBy: "colloquy report",
    note: "the tables the last colloquy report wrote here; only these are replaced or removed by the next one",
    tables: [...written].sort(),
  });
  effects.log(`report: ${report.sections.length} section(s), ${tables.length} table(s)`);
  return { report, file, tablesDir, tables: [...written] };
}
