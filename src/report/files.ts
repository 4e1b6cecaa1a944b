import { defineArtifact, STUDY_FOLDERS } from "../util/artifact.js";

/** The files `colloquy report` writes (registry entries: name, place). */
export const reportFiles = {
  paperReport: defineArtifact<[format: string], string>({
    name: "paperReport",
    description: "the study report in the order of a paper's method and results (md or html)",
    writtenBy: "colloquy report",
    folder: STUDY_FOLDERS.analysis,
    format: "bytes",
    schema: null,
    file: (format) => `report.${format}`,
    match: (file) => {
      const m = /^report\.(md|html)$/.exec(file);
      return m ? [m[1]] : null;
    },
  }),
  paperReportTable: defineArtifact<[table: string], string>({
    name: "paperReportTable",
    description: "one table of the study report, numbers exactly as in the analysis files",
    writtenBy: "colloquy report",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    file: (table) => `report-tables/${table}.csv`,
    match: (file) => {
      const m = /^report-tables\/([a-z0-9-]+)\.csv$/.exec(file);
      return m ? [m[1]] : null;
    },
  }),
} as const;
