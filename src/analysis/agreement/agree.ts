import { recordsBySession, type CodeRecord } from "../../coding/records.js";
import { codesPath, listCoders } from "../../coding/store.js";
import { studyPaths } from "../../study/study.js";
import { diskReader, type StudyReader } from "../../study/reader.js";
import { artifacts } from "../../study/artifacts.js";
import { CliError } from "../../util/errors.js";
import { writeFileAtomic } from "../../util/fs.js";
import { csvRows, csvWithRows } from "../../util/csv.js";
import { jsonWithArrayLines, jsonWithLineArrays, lineText } from "../../util/json-layout.js";
import { provenance, type Provenance } from "../../util/provenance.js";
import { silentReporter, type Reporter } from "../../util/reporter.js";
import { analyseVariable, type VariableAgreement, type VariableOptions } from "./core.js";
import { noCodes, readCoderRecords, resolveCodebookShape, type CodebookShape, type Coverage } from "./study.js";
import { digestsOf, readerDigests, type CodeDigests } from "../../study/code-digests.js";
import {
  alignPart,
  byNumber,
  combineParts,
  disagreementFields,
  DISAGREEMENT_ROWS,
  partCoverage,
  shapeVariables,
  turnLookup,
  type AgreementPart,
  type Disagreement,
  type DisagreementTexts,
} from "./parts.js";
import type { Session } from "../../transcript/schema.js";
import { memoNote, memoResult, openSessionMemo } from "../../study/session-memo.js";
import { sha256 } from "../../util/hash.js";

export type { VariableAgreement, PairAgreement, AlphaSummary, CoderScores, Interval } from "./core.js";
export type { Coverage, CodebookShape } from "./study.js";
export type { Disagreement } from "./parts.js";

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
  /**
   * Keep each session's alignment and the statistics in `<study>/.cache/memo/` (the pipeline's
   * agree stage), so that after a session is added only that session is aligned, and the
   * statistics are computed again only when the turns every coder coded changed. The results
   * are the same either way.
   */
  cache?: boolean;
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

function* allRecords(recordsByCoder: ReadonlyMap<string, readonly CodeRecord[]>): Generator<CodeRecord> {
  for (const records of recordsByCoder.values()) yield* records;
}

/**
 * The codebook's shape and the digests of each coder's records (study/code-digests.ts), by coder.
 * When the codebook's definition gives its shape, the reader's digests: kept ones (the pipeline's
 * context) read records only for sessions whose alignment is not kept. Without a definition the
 * shape is inferred from every record.
 */
async function coderDigests(
  options: AgreeStudyOptions,
  coders: readonly string[],
  reader: StudyReader,
): Promise<{ shape: CodebookShape; digests: Map<string, CodeDigests> }> {
  const defined = await resolveCodebookShape(options.study, options.codebook, []);
  if (defined.definition !== "inferred") {
    const digests = new Map(await Promise.all(coders.map(async (coder) => [coder, await readerDigests(reader, options.codebook, coder)] as const)));
    const empty = coders.find((coder) => digests.get(coder)!.facts().turns === 0);
    if (empty !== undefined) throw noCodes(options.study, options.codebook, empty, await listCoders(options.study));
    return { shape: defined, digests };
  }
  const recordsByCoder = await readCoderRecords(options.study, options.codebook, coders, reader);
  const shape = await resolveCodebookShape(options.study, options.codebook, allRecords(recordsByCoder));
  const sessions = await reader.sessions();
  return { shape, digests: new Map([...recordsByCoder].map(([coder, records]) => [coder, digestsOf(records, sessions)])) };
}

/**
 * The alignment of the whole study, as the combination of its sessions' parts (each memoised
 * when `cache`, keyed by session with the digest of its records). Records of sessions the study
 * does not hold are aligned too, without a memo (their disagreements carry no text).
 */
async function alignStudy(
  options: AgreeStudyOptions,
  digests: ReadonlyMap<string, CodeDigests>,
  coders: readonly string[],
  shape: CodebookShape,
  sessions: readonly Session[],
): Promise<{ part: AgreementPart; note: string }> {
  const turnInfo = turnLookup(sessions);
  // Each coder's records of these sessions, by coder.
  const recordsOf = async (ids: ReadonlySet<string>) =>
    new Map(await Promise.all(coders.map(async (coder) => [coder, await digests.get(coder)!.records(ids)] as const)));
  const ids = [...new Set(coders.flatMap((coder) => digests.get(coder)!.sessionIds()))].sort(byNumber.compare);
  const studySessions = new Map<string, Session>();
  let sameId = false;
  for (const session of sessions) {
    sameId ||= studySessions.has(session.id);
    studySessions.set(session.id, session);
  }
  // Parts follow one another in session order only when no two ids sort as equal ("s01" and "s1"
  // under numeric collation interleave their turns); otherwise align everything at once.
  if (sameId || ids.some((id, i) => i > 0 && byNumber.compare(ids[i - 1], id) === 0))
    return { part: alignPart(await recordsOf(new Set(ids)), coders, shape, turnInfo), note: "" };
  const memo = options.cache ? await openSessionMemo<AgreementPart>(options.study, ["agree", options.codebook], { coders, shape }) : undefined;
  const inputs = new Map(ids.map((id) => [id, coders.map((coder) => digests.get(coder)!.digest(id)).join(" ")]));
  const kept = (id: string) => memo !== undefined && studySessions.has(id) && memo.has(id, studySessions.get(id)!, inputs.get(id));
  // The records of the sessions whose alignment is not kept, read at once.
  const missing = await recordsOf(new Set(ids.filter((id) => !kept(id))));
  const bySession = coders.map((coder) => recordsBySession(missing.get(coder) ?? []));
  const parts = ids.map((id) => {
    const compute = () => alignPart(new Map(coders.map((coder, c) => [coder, bySession[c].get(id) ?? []])), coders, shape, turnInfo);
    const session = studySessions.get(id);
    return memo && session ? memo.get(id, session, compute, inputs.get(id)) : compute();
  });
  await memo?.save();
  return { part: combineParts(parts, coders, shapeVariables(shape).length), note: memo ? memoNote(memo) : "" };
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
  const { shape, digests } = await coderDigests(options, coders, reader);
  if (shape.note) warnings.push(shape.note);
  const versionsInRecords: Record<string, string[]> = Object.fromEntries(coders.map((coder) => [coder, [...digests.get(coder)!.versions.keys()].sort()]));
  const allVersions = new Set(Object.values(versionsInRecords).flat());
  if (allVersions.size > 1) {
    warnings.push(
      `the coders used different codebook versions (${Object.entries(versionsInRecords)
        .map(([c, v]) => `${c}: ${v.join(", ")}`)
        .join("; ")}); codes may not mean the same thing`,
    );
  }

  const { part, note } = await alignStudy(options, digests, coders, shape, await reader.sessions());
  const coverage = partCoverage(part, coders);
  // Turns coded by only some coders are accounted for in `coverage` (JSON) and printed with it.
  for (const [coder, n] of Object.entries(coverage.emptyRecords)) {
    if (n > 0) warnings.push(`${n} record(s) of ${coder} carry no ${shape.kind === "nominal" ? "codes" : "scores"} and were not compared`);
  }
  const complete = coverage.unitsCodedByAll;
  if (complete === 0) {
    throw new CliError(
      `no turn was coded by all of ${coders.join(", ")} under codebook "${options.codebook}" ` +
        `(records: ${coders.map((c) => `${c} ${coverage.perCoder[c]}`).join(", ")}). Check that they coded the same sessions (see ${codesPath(options.study, options.codebook, coders[0])}).`,
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
  // The statistics depend on these ratings and settings only: after a session coded by a machine
  // coder alone is added they are the same, and the stored ones (bootstrap intervals included) are reused.
  const analyse = () => analyses.map(analyseVariable);
  const stored = options.cache
    ? await memoResult(options.study, ["agree-stats", options.codebook], null, sha256(JSON.stringify(analyses)), analyse)
    : undefined;
  const variables = stored?.value ?? analyse();
  reporter.log(`agree: ${complete} turn(s) coded by all of ${coders.join(", ")}${note}${stored?.reused ? "; statistics reused" : ""}`);

  const texts = part.disagreements;
  let rows: Disagreement[] | undefined;
  if (part.notFound > 0)
    warnings.push(`${part.notFound} coded turn(s) are not in the study's sessions (deleted or renamed?); their disagreements are listed without text`);

  const report: AgreementReport = {
    kind: "agreement",
    provenance: provenance({
      command: "agree",
      study: studyPaths(options.study).root,
      codebook: { id: shape.id, version: shape.version, definition: shape.definition },
      coders,
      reference,
      seed,
      bootstrap,
      records: Object.fromEntries(coders.map((c) => [c, digests.get(c)!.facts().turns])),
    }),
    source: { type: "study", study: studyPaths(options.study).root, codebook: options.codebook },
    codebook: { ...shape, versionsInRecords },
    coders,
    reference,
    settings: { seed, bootstrap, confidence: 0.95 },
    coverage,
    variables,
    disagreements: {
      total: texts.count,
      // Parsed from their text when first read (the agree command's table, a test): the pipeline only writes them.
      get rows() {
        return (rows ??= JSON.parse(`[${texts.json.map(lineText).join(",")}]`) as Disagreement[]);
      },
    },
    warnings,
  };
  disagreementTexts.set(report, texts);
  return report;
}

/** The disagreements of the reports agreeStudy made, as their files hold them: writeAgreement writes them as they are. */
const disagreementTexts = new WeakMap<AgreementReport, DisagreementTexts>();

/** Disagreements as CSV: session, turn, speaker, variable, one column per coder, text (verbatim, CSV-quoted). */
export function disagreementsCsv(report: AgreementReport): string {
  const texts = disagreementTexts.get(report);
  const fields = ["session", "turn", "speaker", "variable", ...report.coders, "text"];
  if (texts) return csvWithRows(fields, texts.csv.map(lineText));
  return csvWithRows(fields, [csvRows(report.disagreements.rows.map((row) => disagreementFields(row, report.coders)))]);
}

/** Paths `colloquy agree` writes for a codebook (from the artifact registry). */
export function agreementPaths(study: string, codebook: string): { json: string; csv: string } {
  return { json: artifacts.agreement.path(study, codebook), csv: artifacts.agreementDisagreements.path(study, codebook) };
}

/**
 * The report's JSON file, as chunks to write: indented, one disagreement per line (the artifact
 * registry's layout), from their kept text when agreeStudy made the report.
 */
export function agreementJson(report: AgreementReport): Uint8Array[] {
  const texts = disagreementTexts.get(report);
  return texts
    ? jsonWithArrayLines({ ...report, disagreements: { total: report.disagreements.total, rows: [] } }, [{ path: DISAGREEMENT_ROWS, lines: texts.json }])
    : jsonWithLineArrays(report, artifacts.agreement.lineArrays!);
}

/** Write the report JSON and the disagreements CSV into the study's analysis/ folder. */
export async function writeAgreement(study: string, report: AgreementReport): Promise<{ json: string; csv: string }> {
  const codebook = report.source.type === "study" ? report.source.codebook : "csv";
  const paths = agreementPaths(study, codebook);
  await writeFileAtomic(paths.json, agreementJson(report));
  await writeFileAtomic(paths.csv, disagreementsCsv(report));
  return paths;
}
