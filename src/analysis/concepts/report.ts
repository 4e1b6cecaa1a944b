import type { Session } from "../../transcript/schema.js";
import { csvRows, csvWithRows, type CsvCell } from "../../util/csv.js";
import { provenance, type Provenance } from "../../util/provenance.js";
import { compareMeasures, type MeasureCompareOptions, type MeasureComparison, type UnitValue } from "./conditions.js";
import type { ConceptExtractor } from "./extract.js";
import { analyseSessionConcepts, type ParticipantConcepts, type SessionConcepts } from "./measures.js";
import { MTLD_THRESHOLD } from "./mtld.js";
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
 *   condition and the between-condition tests (the decision table of docs/statistics.md: paired
 *   permutation or Wilcoxon within subjects, permutation, Mann-Whitney or Welch between), naming the test and its n.
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

const SESSION_MEASURES: [string, (s: SessionMeasures) => number | null][] = [
  ["sessionConceptRate", (s) => s.rate],
  ["sessionUniqueConcepts", (s) => s.uniqueConcepts],
];

/** Session pairing key for within designs: the same group of selected people (sorted ids). */
export function sessionUnit(participants: readonly { participant: string }[], fallback: string): string {
  const ids = participants.map((p) => p.participant).sort();
  return ids.length > 0 ? ids.join("+") : fallback;
}

/** What the comparisons read of a session. */
interface SessionMeasures {
  session: string;
  condition: string;
  /** Pairing key of the session measures (sessionUnit). */
  unit: string;
  rate: number | null;
  uniqueConcepts: number;
  participants: ParticipantConcepts[];
}

const measuresOf = (s: SessionConcepts): SessionMeasures => ({
  session: s.session,
  condition: s.condition,
  unit: sessionUnit(s.participants, s.session),
  rate: s.rate.value,
  uniqueConcepts: s.uniqueConcepts,
  participants: s.participants,
});

/**
 * The report of every session's concepts (analyseSessionConcepts, one session at a time: the
 * concepts stage keeps them per session in the study's memo) and the comparisons between
 * conditions, always computed from all of them.
 */
export function conceptsReport(results: SessionConcepts[], extractor: ConceptExtractor, options: ConceptsOptions): ConceptsReport {
  return {
    provenance: conceptsProvenance(results.length, extractor, options),
    sessions: results,
    conditions: compareConcepts(results.map(measuresOf), options),
  };
}

/** Every session's concepts and the comparisons between conditions, computed from scratch. */
export function buildConceptsReport(sessions: readonly Session[], extractor: ConceptExtractor, options: ConceptsOptions): ConceptsReport {
  extractor.prepare(sessions.flatMap((s) => s.turns.map((t) => t.text)));
  return conceptsReport(
    sessions.map((s) => analyseSessionConcepts(s, extractor, options)),
    extractor,
    options,
  );
}

/** The comparisons between conditions of every participant and session measure. */
function compareConcepts(parts: readonly SessionMeasures[], options: ConceptsOptions): MeasureComparison[] {
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

/** One CSV row per participant and session. */
export function conceptsCsv(report: Pick<ConceptsReport, "sessions">): string {
  const data = report.sessions.flatMap((s) => s.participants.map(csvRow));
  return csvWithRows(CSV_FIELDS, [csvRows(data)]);
}
