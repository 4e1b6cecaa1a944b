import type { Session } from "../../transcript/schema.js";
import { summaryDigest, type RecordsSummary } from "../../coding/records.js";
import { sessionCodes, type CodeSet, type StudyData } from "../load.js";
import type { Counts, Overview, SessionChunk, SessionSummary } from "../types.js";
import { codeSetValidation, validationLabel } from "./validation.js";
import { timeSpan } from "../../analysis/shared/measures.js";
import { conditionOf, speakerKeys, turnSpeaker, turnWords } from "./common.js";
import { listEntry } from "../../util/named-entries.js";

/** File name of a session's chunk (session ids are file-name safe by schema). */
export function chunkFile(sessionId: string): string {
  return `sessions/${sessionId}.json`;
}

export function summariseSession(session: Session): SessionSummary {
  const keys = speakerKeys(session);
  let words = 0;
  for (const t of session.turns) words += turnWords(t);
  return {
    id: session.id,
    title: session.title,
    condition: conditionOf(session),
    run: session.metadata.run,
    turns: session.turns.length,
    words,
    duration: timeSpan(session.turns).seconds,
    participants: session.participants.map((p) => ({ key: keys.get(p.id)!.key, kind: p.kind, role: p.role })),
    incomplete: session.metadata.incomplete === true,
    chunk: chunkFile(session.id),
  };
}

/**
 * What the overview needs from one code set, so the records can be let go once it is taken:
 * coded turns, model names of the records' provenance (never keys: only `model` fields), and the
 * first and last record dates.
 */
export interface CodeSetFacts {
  codebook: string;
  coder: string;
  turns: number;
  models: Set<string>;
  first?: string;
  last?: string;
  /** The coder's validation on the study as its latest record states it, and a learned coder's trainings (shown by finishOverview). */
  validation?: RecordsSummary["validation"];
  trainings: RecordsSummary["trainings"];
  /** People's codes: what they say (codeValuesDigest), for a learned coder's trainings to be compared with. */
  digest: string;
}

/** The facts of `set`, from the summary of its whole records (summariseRecords). */
export function codeSetFacts(set: CodeSet, summary: RecordsSummary): CodeSetFacts {
  const { models, first, last, validation, trainings } = summary;
  return { codebook: set.codebook, coder: set.coder, turns: set.turns, models, first, last, validation, trainings, digest: summaryDigest(summary) };
}

/** What the overview counts of the sessions alone. */
export interface SessionsOverview {
  conditions: Overview["conditions"];
  participants: Overview["participants"];
  turns: number;
  words: number;
  turnTypes: Counts;
  models: Set<string>;
  /** Session dates (the earliest and latest are shown, with those of the code records). */
  dates: string[];
}

/** What the overview counts of one session (the build keeps it per session: shape/parts.ts). */
export interface OverviewPart {
  condition: string;
  turns: number;
  words: number;
  turnTypes: Counts;
  /** Speaker keys of the participants, by kind. */
  participants: [Session["participants"][number]["kind"], string][];
  date?: string;
  models: string[];
}

export function overviewPart(session: Session, keys = speakerKeys(session)): OverviewPart {
  const turnTypes: Counts = {};
  let words = 0;
  for (const t of session.turns) {
    words += turnWords(t);
    turnTypes[t.type] = (turnTypes[t.type] ?? 0) + 1;
  }
  const models: string[] = [];
  if (typeof session.metadata.model === "string") models.push(session.metadata.model);
  for (const p of session.participants) if (typeof p.metadata?.model === "string") models.push(p.metadata.model);
  return {
    condition: conditionOf(session),
    turns: session.turns.length,
    words,
    turnTypes,
    participants: session.participants.map((p) => [p.kind, keys.get(p.id)!.key]),
    date: session.metadata.date || undefined,
    models,
  };
}

/** The sessions' side of the overview from their parts, in session order (finishOverview adds the code sets' and analysis files'). */
export function mergeOverview(parts: readonly OverviewPart[]): SessionsOverview {
  const conditions = new Map<string, { id: string; sessions: number; turns: number }>();
  const kinds = { human: new Set<string>(), ai: new Set<string>(), simulated: new Set<string>(), system: new Set<string>() };
  const turnTypes: Counts = {};
  const models = new Set<string>();
  const dates: string[] = [];
  let turns = 0;
  let words = 0;
  for (const o of parts) {
    const entry = conditions.get(o.condition) ?? { id: o.condition, sessions: 0, turns: 0 };
    entry.sessions++;
    entry.turns += o.turns;
    conditions.set(o.condition, entry);
    for (const [kind, key] of o.participants) kinds[kind].add(key);
    turns += o.turns;
    words += o.words;
    for (const [type, n] of Object.entries(o.turnTypes)) turnTypes[type] = (turnTypes[type] ?? 0) + n;
    if (o.date !== undefined) dates.push(o.date);
    for (const m of o.models) models.add(m);
  }
  return {
    conditions: [...conditions.values()],
    participants: { human: kinds.human.size, ai: kinds.ai.size, simulated: kinds.simulated.size, system: kinds.system.size },
    turns,
    words,
    turnTypes,
    models,
    dates,
  };
}

/** The overview from what the sessions give, their number, the code sets' facts and the analysis files. */
export function finishOverview(counted: SessionsOverview, sessions: number, sets: readonly CodeSetFacts[], files: StudyData["analysis"]["files"]): Overview {
  const models = new Set(counted.models);
  // The earliest and latest of session dates and record dates (string order, as a sort would give).
  let first: string | undefined;
  let last: string | undefined;
  const date = (d: string | undefined) => {
    if (d === undefined) return;
    if (first === undefined || d < first) first = d;
    if (last === undefined || d > last) last = d;
  };
  for (const d of counted.dates) date(d);
  const coders: Record<string, string[]> = {};
  for (const set of sets) {
    listEntry(coders, set.codebook).push(set.coder);
    for (const m of set.models) models.add(m);
    date(set.first);
    date(set.last);
  }
  const analysisFiles = files.map(({ file, provenance }) => ({ file, createdAt: provenance.createdAt, version: provenance.version }));
  return {
    sessions,
    conditions: counted.conditions,
    participants: counted.participants,
    turns: counted.turns,
    words: counted.words,
    turnTypes: counted.turnTypes,
    coders,
    coded: sets.map((s) => {
      const validation = codeSetValidation(s.coder, s, (human) => sets.find((h) => h.codebook === s.codebook && h.coder === human)?.digest);
      return { codebook: s.codebook, coder: s.coder, turns: s.turns, validation, label: validationLabel(validation) };
    }),
    models: [...models].sort(),
    dates: { first, last },
    analysisFiles,
  };
}

/** Badges of one session's turns, per turn id: [codebook, coder, label] per code set that coded it. */
export type SessionBadges = SessionChunk["badges"];

/**
 * Add one code set's badges of a session to `badges` (a badge per turn it coded: code labels, or
 * "scale value" pairs). Sets are added in code set order, so a turn's badges keep that order.
 */
export function addBadges(badges: SessionBadges, session: Session, set: CodeSet, names: Map<string, string> | undefined): void {
  const records = sessionCodes(set, session.id);
  if (records.size === 0) return;
  for (const t of session.turns) {
    const r = records.get(t.id);
    if (!r) continue;
    const parts = [...(r.codes ?? []).map((c) => names?.get(c) ?? c), ...Object.entries(r.scores ?? {}).map(([k, v]) => `${k} ${v}`)];
    if (parts.length > 0) listEntry(badges, t.id).push([set.codebook, set.coder, parts.join(", ")]);
  }
}

/**
 * One session's turns plus a badge per (codebook, coder) code on each turn. Text is copied
 * verbatim: the site renders it with textContent, never as HTML.
 */
export function buildChunk(session: Session, data: Pick<StudyData, "codeSets">, labels: Map<string, Map<string, string>>): SessionChunk {
  const badges: SessionBadges = {};
  for (const set of data.codeSets) addBadges(badges, session, set, labels.get(set.codebook));
  return chunkOf(session, badges);
}

/** The chunk of a session whose badges are already collected. */
export function chunkOf(session: Session, badges: SessionBadges): SessionChunk {
  const keys = speakerKeys(session);
  const speakers: string[] = [];
  const index = new Map<string, number>();
  const turns = session.turns.map((t) => {
    const key = turnSpeaker(session, keys, t);
    if (!index.has(key)) {
      index.set(key, speakers.length);
      speakers.push(key);
    }
    return { id: t.id, s: index.get(key)!, text: t.text, type: t.type, start: t.start, end: t.end, timestamp: t.timestamp };
  });
  return { id: session.id, condition: conditionOf(session), speakers, turns, badges };
}
