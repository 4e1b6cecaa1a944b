import { join } from "node:path";
import Papa from "papaparse";
import type { Session } from "../../transcript/schema.js";
import { writeFileAtomic, writeJsonAtomic } from "../../util/fs.js";
import { artifacts } from "../../study/artifacts.js";
import { provenance, type Provenance } from "../../util/provenance.js";
import { compareMeasure, type MeasureCompareOptions, type MeasureComparison, type UnitValue } from "./conditions.js";
import type { ConceptExtractor } from "./extract.js";
import type { SessionMemo } from "../../study/session-memo.js";
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

const SESSION_MEASURES: [string, (s: SessionConcepts) => number | null][] = [
  ["sessionConceptRate", (s) => s.rate.value],
  ["sessionUniqueConcepts", (s) => s.uniqueConcepts],
];

/** Session pairing key for within designs: the same group of selected people (sorted ids). */
export function sessionUnit(participants: readonly { participant: string }[], fallback: string): string {
  const ids = participants.map((p) => p.participant).sort();
  return ids.length > 0 ? ids.join("+") : fallback;
}

/**
 * `memo` (optional) holds each session's result from earlier runs under the same settings
 * (src/study/session-memo.ts): only new or changed sessions are analysed, the comparisons
 * across conditions are always recomputed from all of them.
 */
export function buildConceptsReport(
  sessions: readonly Session[],
  extractor: ConceptExtractor,
  options: ConceptsOptions,
  memo?: Pick<SessionMemo<SessionConcepts>, "has" | "get">,
): ConceptsReport {
  const todo = memo ? sessions.filter((s) => !memo.has(s.id, s)) : sessions;
  // Learn the corpus's vocabulary in batches first (as bench/concepts.ts measures it).
  extractor.prepare(todo.flatMap((s) => s.turns.map((t) => t.text)));
  const analyse = (s: Session) => analyseSessionConcepts(s, extractor, options);
  const results = sessions.map((s) => (memo ? memo.get(s.id, s, () => analyse(s)) : analyse(s)));
  const participants = results.flatMap((r) => r.participants);
  const conditions: MeasureComparison[] = [];
  for (const [measure, get] of PARTICIPANT_MEASURES) {
    const values: UnitValue[] = participants.map((p) => ({ unit: p.participant, condition: p.condition, value: get(p) }));
    conditions.push(compareMeasure(measure, "participant", values, options.compare));
  }
  for (const [measure, get] of SESSION_MEASURES) {
    const values: UnitValue[] = results.map((r) => ({ unit: sessionUnit(r.participants, r.session), condition: r.condition, value: get(r) }));
    conditions.push(compareMeasure(measure, "session", values, options.compare));
  }
  return {
    provenance: provenance({
      analysis: "concepts",
      speakers: options.speakers,
      rateBasis: options.rateBasis,
      extractor: "compromise word-class cache + left-context rules (see src/analysis/concepts/tagger.ts)",
      lexicon: { source: extractor.lexicon.source ?? null, terms: extractor.lexicon.terms.length, ignore: extractor.lexicon.ignore.size },
      stopWords: STOP_NOUNS.size + FILLERS.size,
      mtldThreshold: MTLD_THRESHOLD,
      sessions: sessions.length,
    }) as ConceptsReport["provenance"],
    sessions: results,
    conditions,
  };
}

/** One CSV row per participant and session. */
export function conceptsCsv(report: ConceptsReport): string {
  const rows = report.sessions.flatMap((s) =>
    s.participants.map((p) => ({
      session: p.session,
      condition: p.condition,
      participant: p.participant,
      name: p.name,
      turns: p.turns,
      words: p.words,
      words_per_utterance: p.wordsPerUtterance,
      total_concepts: p.totalConcepts,
      unique_concepts: p.uniqueConcepts,
      concepts_per_utterance: p.conceptsPerUtterance,
      concept_rate_per_min: p.rate.value,
      rate_basis: p.rate.basis,
      rate_minutes: p.rate.minutes,
      rate_note: p.rate.reason ?? "",
      introduced: p.introduced,
      picked_up: p.pickedUp,
      mtld: p.mtld.mtld,
      cohesion: p.cohesion,
    })),
  );
  return Papa.unparse(rows, { newline: "\n" }) + "\n";
}

/** Write the concepts JSON and CSV (names from the artifact registry) into a study's analysis folder; returns their paths. */
export async function writeConceptsReport(analysisDir: string, report: ConceptsReport): Promise<{ json: string; csv: string }> {
  const json = join(analysisDir, artifacts.concepts.file());
  const csv = join(analysisDir, artifacts.conceptsTable.file());
  await writeJsonAtomic(json, report);
  await writeFileAtomic(csv, conceptsCsv(report));
  return { json, csv };
}
