/**
 * The paper report as data: sections of paragraphs, tables and charts, rendered to Markdown or
 * HTML (render-*.ts) and written with one CSV per table. Table cells keep the analysis files'
 * numbers unrounded (the CSVs are exact copies); only the renderers round, for reading.
 */

/** A table cell: text, or a number copied from an analysis file (null = not available). */
export type Cell = string | number | null;

export interface Table {
  /** File-safe id, also the CSV's name: "reliability-bales-ipa-pairs". */
  id: string;
  caption: string;
  columns: string[];
  rows: Cell[][];
  /** Digits the renderers round numbers to, per column (default 2). */
  digits?: (number | undefined)[];
  /** The analysis file and field the numbers were copied from ("analysis/topics.json conditions[measure=branchingRatio]"). */
  source: string;
}

/**
 * A bar or interval chart, drawn as SVG (svg.ts). A series or row that is a study item (a
 * condition) carries its colour from src/report/palette.ts, the dashboard's; others are grey.
 */
export type Chart =
  | {
      kind: "bars";
      id: string;
      caption: string;
      categories: string[];
      series: { name: string; values: (number | null)[]; colour?: string }[];
      valueLabel: string;
      /** The value axis' range when set (figures sharing one scale); else from 0 to the largest value. */
      domain?: [number, number];
    }
  | {
      kind: "intervals";
      id: string;
      caption: string;
      rows: { label: string; value: number | null; lower: number | null; upper: number | null; colour?: string }[];
      valueLabel: string;
      domain?: [number, number];
    };

export type Block =
  { kind: "paragraph"; text: string } | { kind: "table"; table: Table } | { kind: "chart"; chart: Chart } | { kind: "notes"; items: string[] };

export interface Section {
  title: string;
  /** 2 = a top section (Method, Results), 3 = a subsection. */
  level: 2 | 3;
  blocks: Block[];
}

export interface PaperReport {
  title: string;
  /** One line under the title: tool version, date, study folder. */
  byline: string;
  sections: Section[];
}

/** Every table of the report, in order (one CSV each). */
export function reportTables(report: PaperReport): Table[] {
  return report.sections.flatMap((s) => s.blocks.flatMap((b) => (b.kind === "table" ? [b.table] : [])));
}
