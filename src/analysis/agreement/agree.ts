import Papa from "papaparse";
import type { CodeRecord } from "../../coding/records.js";
import { codesPath } from "../../coding/store.js";
import { studyPaths } from "../../study/study.js";
import { diskReader, type StudyReader } from "../../study/reader.js";
import { artifacts } from "../../study/artifacts.js";
import { CliError } from "../../util/errors.js";
import { writeFileAtomic, writeJsonAtomic } from "../../util/fs.js";
import { provenance, type Provenance } from "../../util/provenance.js";
import { silentReporter, type Reporter } from "../../util/reporter.js";
import { analyseVariable, type VariableAgreement } from "./core.js";
import { alignUnits, nominalValue, readCoderRecords, resolveCodebookShape, type AlignedUnit, type CodebookShape, type Coverage } from "./study.js";
import type { Rating } from "../reliability/values.js";

export type { VariableAgreement, PairAgreement, AlphaSummary, CoderScores, Interval } from "./core.js";
export type { Coverage, CodebookShape } from "./study.js";

/** One unit on which the coders did not all agree, with the turn's words for review. */
export interface Disagreement {
  session: string;
  turn: string;
  /** Speaker's name as in the transcript (null when the turn is not in the study's sessions). */
  speaker: string | null;
  /** "codes" for nominal codebooks, else the scale id. */
  variable: string;
  /** Each coder's value (multi-codes joined by "+"). */
  values: Record<string, string | number>;
  /** The turn text exactly as stored (null when the turn could not be found). */
  text: string | null;
}

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

/** Options of {@link agreeStudy}. */
export interface AgreeStudyOptions {
  study: string;
  codebook: string;
  coders: readonly string[];
  /** Reference coder for precision/recall (default: the first human:* coder named, else the first). */
  reference?: string;
  seed?: number;
  /** Bootstrap replicates for the CIs (default 1000; 0 turns them off). */
  bootstrap?: number;
  reporter?: Reporter;
  /** Where sessions and records come from (default: the study's files). */
  reader?: StudyReader;
}

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

interface TurnInfo {
  speaker: string | null;
  text: string;
}

async function turnIndex(reader: StudyReader): Promise<Map<string, TurnInfo>> {
  const index = new Map<string, TurnInfo>();
  for (const session of await reader.sessions()) {
    const names = new Map(session.participants.map((p) => [p.id, p.name]));
    for (const turn of session.turns) index.set(`${session.id}\u0000${turn.id}`, { speaker: names.get(turn.speaker) ?? turn.speaker, text: turn.text });
  }
  return index;
}

/** ratings[coder][unit] for one variable of the aligned units. */
function variableRatings(units: readonly AlignedUnit[], coders: readonly string[], value: (r: CodeRecord) => Rating): Rating[][] {
  return coders.map((coder) => units.map((u) => value(u.records.get(coder)!)));
}

/**
 * Agreement between the named coders of one codebook in a study: aligns their code records by
 * turn, analyses the turns every coder coded, accounts for the others, and lists disagreements
 * with the turn text. Pure computation plus reads; {@link writeAgreement} writes the files.
 */
export async function agreeStudy(options: AgreeStudyOptions): Promise<AgreementReport> {
  const reporter = options.reporter ?? silentReporter;
  const coders = [...options.coders];
  const reference = checkCoders(coders, options.reference);
  const seed = options.seed ?? 1;
  const bootstrap = options.bootstrap ?? 1000;
  const warnings: string[] = [];

  const reader = options.reader ?? diskReader(options.study);
  const recordsByCoder = await readCoderRecords(options.study, options.codebook, coders, reader);
  const shape = await resolveCodebookShape(options.study, options.codebook, [...recordsByCoder.values()].flat());
  if (shape.note) warnings.push(shape.note);
  const versionsInRecords: Record<string, string[]> = {};
  for (const [coder, records] of recordsByCoder) versionsInRecords[coder] = [...new Set(records.map((r) => r.codebookVersion))].sort();
  const allVersions = new Set(Object.values(versionsInRecords).flat());
  if (allVersions.size > 1) {
    warnings.push(
      `the coders used different codebook versions (${Object.entries(versionsInRecords)
        .map(([c, v]) => `${c}: ${v.join(", ")}`)
        .join("; ")}); codes may not mean the same thing`,
    );
  }

  const { complete, coverage } = alignUnits(recordsByCoder, coders, shape);
  // Turns coded by only some coders are accounted for in `coverage` (JSON) and printed with it.
  for (const [coder, n] of Object.entries(coverage.emptyRecords)) {
    if (n > 0) warnings.push(`${n} record(s) of ${coder} carry no ${shape.kind === "nominal" ? "codes" : "scores"} and were not compared`);
  }
  if (complete.length === 0) {
    throw new CliError(
      `no turn was coded by all of ${coders.join(", ")} under codebook "${options.codebook}" ` +
        `(records: ${coders.map((c) => `${c} ${coverage.perCoder[c]}`).join(", ")}). Check that they coded the same sessions (see ${codesPath(options.study, options.codebook, coders[0])}).`,
    );
  }
  reporter.log(`agree: ${complete.length} turn(s) coded by all of ${coders.join(", ")}`);

  const variables: VariableAgreement[] = [];
  const valueOf: { name: string; value: (r: CodeRecord) => Rating }[] = [];
  if (shape.kind === "nominal") {
    valueOf.push({ name: "codes", value: nominalValue });
    variables.push(
      analyseVariable({
        name: "codes",
        level: "nominal",
        coders,
        reference,
        seed,
        bootstrap,
        labels: shape.categories,
        ratings: variableRatings(complete, coders, nominalValue),
      }),
    );
  } else {
    for (const scale of shape.scales ?? []) {
      const value = (r: CodeRecord): Rating => r.scores?.[scale.id] ?? null;
      const ratings = variableRatings(complete, coders, value);
      if (ratings.every((row) => row.every((v) => v === null))) {
        warnings.push(`scale ${scale.id}: no ratings from these coders; not analysed`);
        continue;
      }
      const rated = ratings[0].filter((_, u) => ratings.every((row) => row[u] !== null)).length;
      if (rated < complete.length)
        warnings.push(
          `scale ${scale.id}: ${complete.length - rated} turn(s) lack a rating from some coder; kappa uses the turns both coders of a pair rated, alpha every available rating`,
        );
      const labels = scale.points ? Array.from({ length: scale.points }, (_, i) => i + 1) : undefined;
      valueOf.push({ name: scale.id, value });
      variables.push(analyseVariable({ name: scale.id, level: "ordinal", coders, reference, seed, bootstrap, labels, ratings }));
    }
  }

  const turns = await turnIndex(reader);
  const rows: Disagreement[] = [];
  let notFound = 0;
  for (const unit of complete) {
    const info = turns.get(`${unit.session}\u0000${unit.turn}`);
    if (!info) notFound++;
    for (const { name, value } of valueOf) {
      const values: Record<string, string | number> = {};
      let differ = false;
      let first: Rating | undefined;
      for (const coder of coders) {
        const v = value(unit.records.get(coder)!);
        if (v === null || v === undefined) continue;
        values[coder] = v;
        if (first === undefined) first = v;
        else if (v !== first) differ = true;
      }
      if (differ) rows.push({ session: unit.session, turn: unit.turn, speaker: info?.speaker ?? null, variable: name, values, text: info?.text ?? null });
    }
  }
  if (notFound > 0)
    warnings.push(`${notFound} coded turn(s) are not in the study's sessions (deleted or renamed?); their disagreements are listed without text`);

  return {
    kind: "agreement",
    provenance: provenance({
      command: "agree",
      study: studyPaths(options.study).root,
      codebook: { id: shape.id, version: shape.version, definition: shape.definition },
      coders,
      reference,
      seed,
      bootstrap,
      records: Object.fromEntries(coders.map((c) => [c, recordsByCoder.get(c)!.length])),
    }),
    source: { type: "study", study: studyPaths(options.study).root, codebook: options.codebook },
    codebook: { ...shape, versionsInRecords },
    coders,
    reference,
    settings: { seed, bootstrap, confidence: 0.95 },
    coverage,
    variables,
    disagreements: { total: rows.length, rows },
    warnings,
  };
}

/** Disagreements as CSV: session, turn, speaker, variable, one column per coder, text (verbatim, CSV-quoted). */
export function disagreementsCsv(report: AgreementReport): string {
  const fields = ["session", "turn", "speaker", "variable", ...report.coders, "text"];
  const data = report.disagreements.rows.map((row) => [
    row.session,
    row.turn,
    row.speaker ?? "",
    row.variable,
    ...report.coders.map((c) => row.values[c] ?? ""),
    row.text ?? "",
  ]);
  // escapeFormulae stays off: it would prefix turn text starting with "=", "+", "-" or "@", altering the words.
  return Papa.unparse({ fields, data }, { newline: "\n" }) + "\n";
}

/** Paths `colloquy agree` writes for a codebook (from the artifact registry). */
export function agreementPaths(study: string, codebook: string): { json: string; csv: string } {
  return { json: artifacts.agreement.path(study, codebook), csv: artifacts.agreementDisagreements.path(study, codebook) };
}

/** Write the report JSON and the disagreements CSV into the study's analysis/ folder. */
export async function writeAgreement(study: string, report: AgreementReport): Promise<{ json: string; csv: string }> {
  const codebook = report.source.type === "study" ? report.source.codebook : "csv";
  const paths = agreementPaths(study, codebook);
  await writeJsonAtomic(paths.json, report);
  await writeFileAtomic(paths.csv, disagreementsCsv(report));
  return paths;
}
