import type { CodeValue } from "../../coding/records.js";
import { CliError } from "../../util/errors.js";
import { csvRows, csvWithRows } from "../../util/csv.js";
import { portableStudyPath, provenance, type Provenance } from "../../util/provenance.js";
import { analyseVariable, type VariableAgreement, type VariableOptions } from "./core.js";
import type { CodebookShape, Coverage } from "./study.js";
import { alignment, coverageOf, disagreementFields, type Disagreement } from "./align.js";
import type { Session } from "../../transcript/schema.js";

export type { VariableAgreement, PairAgreement, AlphaSummary, CoderScores, Interval } from "./core.js";
export type { Coverage, CodebookShape } from "./study.js";
export type { Disagreement } from "./align.js";

/**
 * `analysis/agreement-<codebook>.json`: what `colloquy agree` computed, for the dashboard and
 * for the paper. Numbers that are undefined (e.g. kappa when everyone used one category) are
 * NaN in memory and `null` in the JSON file.
 */
export interface AgreementReport {
  kind: "agreement";
  provenance: Provenance;
  source: { type: "study"; study: string; codebook: string } | { type: "csv"; file: string; raters: string[] };
  /** Study mode only. */
  codebook: (CodebookShape & { versionsInRecords: Record<string, string[]> }) | null;
  coders: string[];
  reference: string;
  settings: { seed: number; bootstrap: number; confidence: number };
  /** Study mode: which units every coder coded; csv mode: rows with a missing rating. */
  coverage: Coverage | null;
  /** One entry for a nominal codebook ("codes"), one per scale for a scales codebook. */
  variables: VariableAgreement[];
  disagreements: { total: number; rows: Disagreement[] };
  warnings: string[];
}

/** What {@link agreementOf} computes from: one codebook's records of the named coders, and the study's sessions (for the disagreements' text). */
export interface AgreementInput {
  /** The study folder (named in the report). */
  study: string;
  codebook: string;
  /** The codebook's shape (study.ts shapeFromDefinition or inferShape). */
  shape: CodebookShape;
  sessions: readonly Session[];
  /** Each coder's current records of the codebook, by coder. */
  records: ReadonlyMap<string, readonly CodeValue[]>;
  coders: readonly string[];
  /** Reference coder for precision/recall (default: the first human:* coder named, else the first). */
  reference?: string;
  seed?: number;
  /** Bootstrap replicates for the CIs (default 1000; 0 turns them off). */
  bootstrap?: number;
}

/** How the statistics of each variable are computed: analyseVariable on each (a caller may keep the results, which depend on these options alone). */
export type AnalyseVariables = (variables: VariableOptions[]) => VariableAgreement[];

/** Default reference coder: the first human coder named, else the first coder. */
export function defaultReference(coders: readonly string[]): string {
  return coders.find((c) => c.startsWith("human")) ?? coders[0];
}

/** Check the coder list and the reference; returns the reference. */
export function checkCoders(coders: readonly string[], reference: string | undefined, flag = "--coders"): string {
  if (coders.length < 2) throw new CliError(`${flag} needs at least two coders, e.g. ${flag} llm,human:alice (got ${coders.length})`);
  const seen = new Set<string>();
  for (const c of coders) {
    if (seen.has(c)) throw new CliError(`${flag} names "${c}" twice`);
    seen.add(c);
  }
  const ref = reference ?? defaultReference(coders);
  if (!coders.includes(ref)) throw new CliError(`--reference "${ref}" is not one of the coders (${coders.join(", ")})`);
  return ref;
}

/**
 * Agreement between the named coders of one codebook: aligns their code records by turn, analyses
 * the turns every coder coded, accounts for the others, and lists disagreements with the turn text.
 */
export function agreementOf(input: AgreementInput, analyse: AnalyseVariables = (variables) => variables.map(analyseVariable)): AgreementReport {
  const { shape, study } = input;
  const coders = [...input.coders];
  const reference = checkCoders(coders, input.reference);
  const seed = input.seed ?? 1;
  const bootstrap = input.bootstrap ?? 1000;
  const warnings: string[] = [];
  if (shape.note) warnings.push(shape.note);
  const recordsOf = (coder: string) => input.records.get(coder) ?? [];
  const versionsInRecords: Record<string, string[]> = Object.fromEntries(
    coders.map((coder) => [coder, [...new Set(recordsOf(coder).map((r) => r.codebookVersion))].sort()]),
  );
  const allVersions = new Set(Object.values(versionsInRecords).flat());
  if (allVersions.size > 1) {
    warnings.push(
      `the coders used different codebook versions (${Object.entries(versionsInRecords)
        .map(([c, v]) => `${c}: ${v.join(", ")}`)
        .join("; ")}); codes may not mean the same thing`,
    );
  }

  const part = alignment(input.records, coders, shape, input.sessions);
  const coverage = coverageOf(part, coders);
  // Turns coded by only some coders are accounted for in `coverage` (JSON) and printed with it.
  for (const [coder, n] of Object.entries(coverage.emptyRecords)) {
    if (n > 0) warnings.push(`${n} record(s) of ${coder} carry no ${shape.kind === "nominal" ? "codes" : "scores"} and were not compared`);
  }
  const complete = coverage.unitsCodedByAll;
  if (complete === 0) {
    throw new CliError(
      `no turn was coded by all of ${coders.join(", ")} under codebook "${input.codebook}" ` +
        `(records: ${coders.map((c) => `${c} ${coverage.perCoder[c]}`).join(", ")}). Check that they coded the same sessions.`,
    );
  }

  const analyses: VariableOptions[] = [];
  if (shape.kind === "nominal") {
    analyses.push({ name: "codes", level: "nominal", coders, reference, seed, bootstrap, labels: shape.categories, ratings: part.ratings[0] });
  } else {
    (shape.scales ?? []).forEach((scale, v) => {
      const ratings = part.ratings[v];
      if (ratings.every((row) => row.every((value) => value === null))) {
        warnings.push(`scale ${scale.id}: no ratings from these coders; not analysed`);
        return;
      }
      const rated = ratings[0].filter((_, u) => ratings.every((row) => row[u] !== null)).length;
      if (rated < complete)
        warnings.push(
          `scale ${scale.id}: ${complete - rated} turn(s) lack a rating from some coder; kappa uses the turns both coders of a pair rated, alpha every available rating`,
        );
      const labels = scale.points ? Array.from({ length: scale.points }, (_, i) => i + 1) : undefined;
      analyses.push({ name: scale.id, level: "ordinal", coders, reference, seed, bootstrap, labels, ratings });
    });
  }
  const variables = analyse(analyses);

  if (part.notFound > 0)
    warnings.push(`${part.notFound} coded turn(s) are not in the study's sessions (deleted or renamed?); their disagreements are listed without text`);

  const report: AgreementReport = {
    kind: "agreement",
    provenance: provenance({
      command: "agree",
      study: portableStudyPath(study),
      codebook: { id: shape.id, version: shape.version, definition: shape.definition },
      coders,
      reference,
      seed,
      bootstrap,
      records: Object.fromEntries(coders.map((c) => [c, recordsOf(c).length])),
    }),
    source: { type: "study", study, codebook: input.codebook },
    codebook: { ...shape, versionsInRecords },
    coders,
    reference,
    settings: { seed, bootstrap, confidence: 0.95 },
    coverage,
    variables,
    disagreements: { total: part.disagreements.length, rows: part.disagreements },
    warnings,
  };
  return report;
}

/** Disagreements as CSV: session, turn, speaker, variable, one column per coder, text (verbatim, CSV-quoted). */
export function disagreementsCsv(report: AgreementReport): string {
  const fields = ["session", "turn", "speaker", "variable", ...report.coders, "text"];
  return csvWithRows(fields, [csvRows(report.disagreements.rows.map((row) => disagreementFields(row, report.coders)))]);
}
