import Papa from "papaparse";
import { CliError } from "../../util/errors.js";
import { provenance } from "../../util/provenance.js";
import { analyseVariable } from "./core.js";
import { checkCoders, type AgreementReport, type Disagreement } from "./agree.js";
import type { MeasurementLevel } from "../reliability/krippendorff.js";
import type { Rating } from "../reliability/values.js";

/** Options of {@link agreeCsv}. */
export interface AgreeCsvOptions {
  /** The CSV's absolute path (in messages and the report) and its text. */
  file: string;
  text: string;
  /** Column names, one per rater. */
  raters: readonly string[];
  level?: MeasurementLevel;
  reference?: string;
  seed?: number;
  bootstrap?: number;
}

/**
 * Agreement for ratings that are not in a study: a CSV with a header row and one column per
 * rater (rows = units). Empty cells are missing ratings: kappa uses the rows both raters of a
 * pair filled, alpha/Fleiss/AC1 every available rating. For ordered levels every value must be
 * a number; errors name the line and column.
 */
export function agreeCsv(options: AgreeCsvOptions): AgreementReport {
  const level = options.level ?? "nominal";
  const raters = [...options.raters];
  const reference = checkCoders(raters, options.reference ?? raters[0], "--raters");
  const parsed = Papa.parse<Record<string, string>>(options.text.replace(/^\uFEFF/, ""), { header: true, skipEmptyLines: "greedy" });
  const fatal = parsed.errors.find((e) => e.type !== "FieldMismatch" || e.code === "TooManyFields");
  if (fatal) throw new CliError(`${options.file}:${(fatal.row ?? 0) + 2}: ${fatal.message}`);
  const columns = parsed.meta.fields ?? [];
  for (const rater of raters) {
    if (!columns.includes(rater)) throw new CliError(`${options.file}: no column "${rater}" (columns: ${columns.join(", ")}); --raters takes column names`);
  }
  const ratings: Rating[][] = raters.map(() => []);
  parsed.data.forEach((row, i) => {
    raters.forEach((rater, r) => {
      const cell = (row[rater] ?? "").trim();
      if (cell === "") {
        ratings[r].push(null);
        return;
      }
      if (level === "nominal") {
        ratings[r].push(cell);
        return;
      }
      const value = Number(cell);
      if (!Number.isFinite(value)) {
        throw new CliError(
          `${options.file}:${i + 2}: column "${rater}" is "${cell}", not a number; --level ${level} needs numeric ratings (use --level nominal for labels)`,
        );
      }
      ratings[r].push(value);
    });
  });
  if (parsed.data.length === 0) throw new CliError(`${options.file}: no data rows below the header`);
  const seed = options.seed ?? 1;
  const bootstrap = options.bootstrap ?? 1000;
  const variable = analyseVariable({ name: "ratings", level, coders: raters, reference, seed, bootstrap, ratings });
  const warnings: string[] = [];
  const missing = raters.map((r, i) => ({ r, n: ratings[i].filter((v) => v === null).length })).filter((m) => m.n > 0);
  if (missing.length > 0)
    warnings.push(
      `empty cells (missing ratings): ${missing.map((m) => `${m.r} ${m.n}`).join(", ")}; ${variable.unitsComplete} of ${variable.units} rows are complete`,
    );
  const rows: Disagreement[] = [];
  parsed.data.forEach((_, u) => {
    const values: Record<string, string | number> = {};
    const present = raters.map((r, i) => [r, ratings[i][u]] as const).filter(([, v]) => v !== null);
    for (const [r, v] of present) values[r] = v as string | number;
    if (new Set(present.map(([, v]) => v)).size > 1) rows.push({ session: "", turn: `row ${u + 2}`, speaker: null, variable: "ratings", values, text: null });
  });
  return {
    kind: "agreement",
    provenance: provenance({ command: "agree", csv: options.file, raters, level, reference, seed, bootstrap, rows: parsed.data.length }),
    source: { type: "csv", file: options.file, raters },
    codebook: null,
    coders: raters,
    reference,
    settings: { seed, bootstrap, confidence: 0.95 },
    coverage: null,
    variables: [variable],
    disagreements: { total: rows.length, rows },
    warnings,
  };
}
