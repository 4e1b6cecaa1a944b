import { join } from "node:path";
import type { Session } from "../../transcript/schema.js";
import { writeFileAtomic } from "../../util/fs.js";
import { hashedLine, writeWithLines, type HashedLine } from "../../util/written-lines.js";
import { csvRows, csvWithRows, type CsvCell } from "../../util/csv.js";
import { artifacts } from "../../study/artifacts.js";
import { provenance, type Provenance } from "../../util/provenance.js";
import { compareMeasures, type MeasureCompareOptions, type MeasureComparison, type UnitValue } from "./conditions.js";
import type { ConceptExtractor } from "./extract.js";
import type { SessionMemo } from "../../study/session-memo.js";
import { analyseSessionConcepts, type ParticipantConcepts, type SessionConcepts } from "./measures.js";
import { MTLD_THRESHOLD } from "./mtld.js";
import { arrayLine, jsonWithArrayLines, lineText, parseArrayLine } from "../../util/json-layout.js";
import type { SpeakerSelection } from "./speakers.js";
import { FILLERS, STOP_NOUNS } from "./stopwords.js";

/**
 * `analysis/concepts.json`: noun concepts per turn, participant and session, and per-condition
 * comparisons. Read by the dashboard.
 *
 * - `sessions[]`: per session totals, rate, first mentions, uptake matrix, per-turn concepts,
 *   and `participants[]` (per participant and session: counts, rate, MTLD, words per
 *   utterance, referential cohesion).
 * - `conditions[]`: one {@link MeasureComparison} per measure: summaries (mean, SD, n) per
 *   condition and the between-condition tests (paired t / Wilcoxon for within-subject designs,
 *   Welch / Mann-Whitney for between), naming the test and its n.
 */
export interface ConceptsReport {
  provenance: Provenance & {
    speakers: SpeakerSelection;
    rateBasis: "session" | "active";
    extractor: string;
    lexicon: { source: string | null; terms: number; ignore: number };
    mtldThreshold: number;
    sessions: number;
  };
  sessions: SessionConcepts[];
  conditions: MeasureComparison[];
}

export interface ConceptsOptions {
  speakers: SpeakerSelection;
  rateBasis: "session" | "active";
  compare?: MeasureCompareOptions;
}

/** Participant measures compared between conditions (unit: participant, paired by participant id). */
const PARTICIPANT_MEASURES: [string, (p: ParticipantConcepts) => number | null][] = [
  ["conceptRate", (p) => p.rate.value],
  ["totalConcepts", (p) => p.totalConcepts],
  ["uniqueConcepts", (p) => p.uniqueConcepts],
  ["conceptsPerUtterance", (p) => p.conceptsPerUtterance],
  ["mtld", (p) => p.mtld.mtld],
  ["wordsPerUtterance", (p) => p.wordsPerUtterance],
  ["cohesion", (p) => p.cohesion],
];

const SESSION_MEASURES: [string, (s: Omit<SessionConceptsPart, keyof HashedLine | "csv">) => number | null][] = [
  ["sessionConceptRate", (s) => s.rate],
  ["sessionUniqueConcepts", (s) => s.uniqueConcepts],
];

/** Session pairing key for within designs: the same group of selected people (sorted ids). */
export function sessionUnit(participants: readonly { participant: string }[], fallback: string): string {
  const ids = participants.map((p) => p.participant).sort();
  return ids.length > 0 ? ids.join("+") : fallback;
}

/**
 * One session's part of the report as the session memo keeps it: its entry of `sessions[]` as
 * text (stringified once, when the session is analysed) and the little the study-level
 * comparisons and the table need. Adding a session to a large study then costs that session's
 * analysis plus a recombination of small records, not a re-read and re-write of every
 * session's per-turn concepts (issue 11).
 */
export interface SessionConceptsPart extends HashedLine {
  /**
   * The session's line of concepts.json (from arrayLine), UTF-8 encoded: V8 stores a string
   * with any character beyond Latin-1 at two bytes per character, which made the memo ~1.7x the
   * size of the text it holds. Its sha256 (`jsonSha256`) goes with it to the dashboard's build
   * in the same run (util/written-lines.ts).
   */
  json: Uint8Array;
  /** The session's rows of concepts.csv, UTF-8 encoded (written as they are: making the table again took 20 ms a run). */
  csv: Uint8Array;
  session: string;
  condition: string;
  /** Pairing key of the session measures (sessionUnit). */
  unit: string;
  rate: number | null;
  uniqueConcepts: number;
  participants: ParticipantConcepts[];
}

/** The report with its sessions as parts: what runConcepts writes without holding every session's turns. */
export interface ConceptsReportParts {
  provenance: ConceptsReport["provenance"];
  sessions: SessionConceptsPart[];
  conditions: MeasureComparison[];
}

/** The part of one analysed session. */
export function sessionConceptsPart(result: SessionConcepts): SessionConceptsPart {
  return { ...hashedLine(result), csv: sessionCsvRows(result.participants), ...partMeasures(result) };
}

/** What the comparisons and the table read of a session. */
function partMeasures(result: SessionConcepts): Omit<SessionConceptsPart, keyof HashedLine | "csv"> {
  return {
    session: result.session,
    condition: result.condition,
    unit: sessionUnit(result.participants, result.session),
    rate: result.rate.value,
    uniqueConcepts: result.uniqueConcepts,
    participants: result.participants,
  };
}

/**
 * `memo` (optional) holds each session's part from earlier runs under the same settings
 * (src/study/session-memo.ts): only new or changed sessions are analysed, the comparisons
 * across conditions are always recomputed from all of them.
 */
export function buildConceptsParts(
  sessions: readonly Session[],
  extractor: ConceptExtractor,
  options: ConceptsOptions,
  memo?: Pick<SessionMemo<SessionConceptsPart>, "has" | "get">,
): ConceptsReportParts {
  const todo = memo ? sessions.filter((s) => !memo.has(s.id, s)) : sessions;
  // Learn the corpus's vocabulary in batches first (as bench/concepts.ts measures it).
  extractor.prepare(todo.flatMap((s) => s.turns.map((t) => t.text)));
  const analyse = (s: Session) => sessionConceptsPart(analyseSessionConcepts(s, extractor, options));
  const parts = sessions.map((s) => (memo ? memo.get(s.id, s, () => analyse(s)) : analyse(s)));
  return { provenance: conceptsProvenance(sessions.length, extractor, options), sessions: parts, conditions: compareConcepts(parts, options) };
}

/** Every session's concepts and the comparisons between conditions, computed from scratch. */
export function buildConceptsReport(sessions: readonly Session[], extractor: ConceptExtractor, options: ConceptsOptions): ConceptsReport {
  extractor.prepare(sessions.flatMap((s) => s.turns.map((t) => t.text)));
  const results = sessions.map((s) => analyseSessionConcepts(s, extractor, options));
  const parts = results.map(partMeasures);
  return { provenance: conceptsProvenance(sessions.length, extractor, options), sessions: results, conditions: compareConcepts(parts, options) };
}

/** The comparisons between conditions of every participant and session measure. */
function compareConcepts(parts: readonly Omit<SessionConceptsPart, keyof HashedLine | "csv">[], options: ConceptsOptions): MeasureComparison[] {
  const participants = parts.flatMap((r) => r.participants);
  const measures = [
    ...PARTICIPANT_MEASURES.map(([measure, get]) => ({
      measure,
      level: "participant" as const,
      values: participants.map((p): UnitValue => ({ session: p.session, participant: p.participant, condition: p.condition, value: get(p) })),
    })),
    ...SESSION_MEASURES.map(([measure, get]) => ({
      measure,
      level: "session" as const,
      values: parts.map((r): UnitValue => ({ session: r.session, condition: r.condition, value: get(r) })),
    })),
  ];
  return compareMeasures(measures, options.compare);
}

function conceptsProvenance(sessions: number, extractor: ConceptExtractor, options: ConceptsOptions): ConceptsReport["provenance"] {
  return provenance({
    analysis: "concepts",
    speakers: options.speakers,
    rateBasis: options.rateBasis,
    extractor: "compromise word-class cache + left-context rules (see src/analysis/concepts/tagger.ts)",
    lexicon: { source: extractor.lexicon.source ?? null, terms: extractor.lexicon.terms.length, ignore: extractor.lexicon.ignore.size },
    stopWords: STOP_NOUNS.size + FILLERS.size,
    mtldThreshold: MTLD_THRESHOLD,
    sessions,
  }) as ConceptsReport["provenance"];
}

/**
 * The report of `parts` as an object, for callers that read it (the concepts command's table
 * and --json): each session's entry is parsed from its text when `sessions` is first read, so
 * the study pipeline, which only writes the files, never pays for it. The same values as the
 * file holds (JSON has no NaN; the analysis uses null for undefined measures).
 */
export function conceptsReportOf(parts: ConceptsReportParts): ConceptsReport {
  let sessions: SessionConcepts[] | undefined;
  return {
    provenance: parts.provenance,
    get sessions() {
      return (sessions ??= parts.sessions.map((p) => parseArrayLine<SessionConcepts>(p.json)));
    },
    conditions: parts.conditions,
  };
}

/** The columns of concepts.csv: one row per participant and session. */
const CSV_FIELDS = [
  "session",
  "condition",
  "participant",
  "name",
  "turns",
  "words",
  "words_per_utterance",
  "total_concepts",
  "unique_concepts",
  "concepts_per_utterance",
  "concept_rate_per_min",
  "rate_basis",
  "rate_minutes",
  "rate_note",
  "introduced",
  "picked_up",
  "mtld",
  "cohesion",
];

function csvRow(p: ParticipantConcepts): CsvCell[] {
  return [
    p.session,
    p.condition,
    p.participant,
    p.name,
    p.turns,
    p.words,
    p.wordsPerUtterance,
    p.totalConcepts,
    p.uniqueConcepts,
    p.conceptsPerUtterance,
    p.rate.value,
    p.rate.basis,
    p.rate.minutes,
    p.rate.reason ?? "",
    p.introduced,
    p.pickedUp,
    p.mtld.mtld,
    p.cohesion,
  ];
}

/** A session's rows of concepts.csv (no header; empty without participants), as a part keeps them. */
const sessionCsvRows = (participants: readonly ParticipantConcepts[]): Uint8Array => Buffer.from(csvRows(participants.map(csvRow)));

/** One CSV row per participant and session. */
export function conceptsCsv(report: Pick<ConceptsReport, "sessions">): string {
  const data = report.sessions.flatMap((s) => s.participants.map(csvRow));
  return csvWithRows(CSV_FIELDS, [csvRows(data)]);
}

/** conceptsCsv of a report in parts, from the rows each part keeps. */
const partsCsv = (report: ConceptsReportParts): string =>
  csvWithRows(
    CSV_FIELDS,
    report.sessions.map((s) => lineText(s.csv)),
  );

/** Write the concepts JSON and CSV (names from the artifact registry) into a study's analysis folder; returns their paths. */
export async function writeConceptsReport(analysisDir: string, report: ConceptsReport): Promise<{ json: string; csv: string }> {
  return writeConcepts(analysisDir, jsonWithArrayLines(report, [{ path: LINES, lines: report.sessions.map(arrayLine) }]), conceptsCsv(report));
}

/** writeConceptsReport for a report in parts: the same bytes, each session's text written as stored. */
export async function writeConceptsParts(analysisDir: string, report: ConceptsReportParts): Promise<{ json: string; csv: string }> {
  const files = conceptsFiles(analysisDir);
  await writeWithLines(files.json, report, LINES, report.sessions);
  await writeFileAtomic(files.csv, partsCsv(report));
  return files;
}

/** The array of concepts.json written one session per line (the artifact registry says which). */
const [LINES] = artifacts.concepts.lineArrays!;

const conceptsFiles = (analysisDir: string) => ({ json: join(analysisDir, artifacts.concepts.file()), csv: join(analysisDir, artifacts.conceptsTable.file()) });

async function writeConcepts(analysisDir: string, json: readonly Uint8Array[], table: string): Promise<{ json: string; csv: string }> {
  const files = conceptsFiles(analysisDir);
  await writeFileAtomic(files.json, json);
  await writeFileAtomic(files.csv, table);
  return files;
}
