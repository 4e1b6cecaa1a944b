import type { Session } from "../../transcript/schema.js";
import { sha256 } from "../../util/hash.js";
import { sessionMetrics } from "../../analysis/stats/metrics.js";
import { speakerPooling, type SpeakerPooling } from "../../analysis/stats/participation.js";
import { codedSessionPart, joinParts, type CodedSessionPart } from "../../analysis/compare/session-parts.js";
import { memberCounts, type CodedTurns } from "../../analysis/shared/table.js";
import { phaseCounts, type ProfileFrame } from "../../analysis/stats/bales.js";
import { sessionCodes, type CodeSet } from "../load.js";
import type { CodebookInfo, Counts, Distribution, ParticipationSession, SessionSummary, SpeakerInfo } from "../types.js";
import { categoryIds, conditionOf, speakerKeys, turnSpeaker, turnWords } from "./common.js";
import { buildDistribution, buildSequenceSet, MAX_SEQUENCE_CELLS } from "./distributions.js";
import { buildParticipation } from "./participation.js";
import { addBadges, overviewPart, summariseSession, type OverviewPart, type SessionBadges } from "./overview.js";
import { addToCount, listEntry } from "../../util/named-entries.js";

/**
 * The study-level shapes, always made as merges of per-session parts: each part depends on one
 * session (and that session's code records) alone, a plain value the build keeps in the study's
 * memo (src/report/build.ts) and assembleReport makes afresh (src/report/bundle.ts). The merges
 * put the parts together in session order: keys and entries in the order they first appear,
 * session after session.
 */

/** A speaker as one session touches it: kind and role of its first touch there, turns and words. */
interface SpeakerTouch {
  key: string;
  kind: SpeakerInfo["kind"];
  role?: string;
  turns: number;
  words: number;
}

/** What one session alone gives the bundle. */
export interface SessionPart {
  summary: SessionSummary;
  /** Speakers in the order the session first touches them (participants, then turns). */
  speakers: SpeakerTouch[];
  overview: OverviewPart;
  /** What the study pools of the session's metrics by speaker (follows, turns and words). */
  pooling: SpeakerPooling;
  /** The session's entry of the bundle's participation.sessions. */
  participation: ParticipationSession;
  /** Turns per sequence cell, and each cell's first turn's speaker as an index into `speakers`. */
  sequence: { binSize: number; speakers: number[] };
}

export function sessionPart(session: Session): SessionPart {
  const keys = speakerKeys(session);
  const touches = new Map<string, SpeakerTouch>();
  const touch = (key: string, kind: SpeakerInfo["kind"], role?: string) => {
    let entry = touches.get(key);
    if (!entry) touches.set(key, (entry = { key, kind, role, turns: 0, words: 0 }));
    return entry;
  };
  for (const p of session.participants) touch(keys.get(p.id)!.key, p.kind, p.role);
  for (const turn of session.turns) {
    const k = keys.get(turn.speaker);
    const entry = touch(k?.key ?? turn.speaker, k?.kind ?? "human", k?.role);
    entry.turns++;
    entry.words += turnWords(turn);
  }
  const binSize = Math.max(1, Math.ceil(session.turns.length / MAX_SEQUENCE_CELLS));
  const order = new Map([...touches.keys()].map((key, i) => [key, i]));
  const cells: number[] = [];
  // Every turn's speaker was touched above, under the key turnSpeaker gives.
  for (let i = 0; i < session.turns.length; i += binSize) cells.push(order.get(turnSpeaker(session, keys, session.turns[i])) ?? -1);
  const metrics = sessionMetrics(session);
  return {
    summary: summariseSession(session),
    speakers: [...touches.values()],
    overview: overviewPart(session, keys),
    pooling: speakerPooling(metrics),
    participation: buildParticipation(session, metrics),
    sequence: { binSize, speakers: cells },
  };
}

/** Every speaker of the study from the sessions' parts: humans, then simulated, AI and system speakers, each in order of first appearance. */
export function mergeSpeakers(parts: readonly SessionPart[]): SpeakerInfo[] {
  const byKey = new Map<string, SpeakerInfo & { order: number }>();
  for (const part of parts) {
    for (const t of part.speakers) {
      let info = byKey.get(t.key);
      if (!info) byKey.set(t.key, (info = { key: t.key, kind: t.kind, role: t.role, sessions: 0, turns: 0, words: 0, order: byKey.size }));
      info.sessions++;
      info.turns += t.turns;
      info.words += t.words;
    }
  }
  const rank = { human: 0, simulated: 1, ai: 2, system: 3 } as const;
  return [...byKey.values()].sort((a, b) => rank[a.kind] - rank[b.kind] || a.order - b.order).map(({ order: _order, ...info }) => info);
}

/** Each scale's finite ratings, in turn order. */
type StyleValues = Map<string, number[]>;

/** What one coder's records of one session give the views (nominal: counts, cells, the join; scales: ratings). */
export interface CoderPart {
  /** The session's counts per speaker and for its condition (buildDistribution of the session). */
  distribution?: Pick<Distribution, "bySpeaker" | "byCondition">;
  /** The session's sequence cells: a code's index (-1 none). */
  cells?: number[];
  /** The session's part of the join of sessions and codes (with the codebook's categories as labels): the compare and Bales views join the parts. */
  coded?: CodedSessionPart;
  /** What the compare and Bales views pool, counted once per session; absent when the session's codes are numbered apart from the study's. */
  counts?: SessionCounts;
  styles?: SessionStyles;
}

/** A session's counts for the compare and Bales views. */
export interface SessionCounts {
  /** Each member's count of each of the codebook's categories (memberCounts): what compareFrequencies and profilesBySpeaker pool. */
  members: Float64Array;
  /** Its thirds' counts (phaseCounts) for a Bales-style codebook with groups, else null. */
  phases: Float64Array | null;
}

/**
 * The sessions' kept counts when they can stand for counting `data`'s turns: they are numbered by
 * the codebook's categories (and their thirds counted under its Bales frame), so they serve when
 * the join's labels are those categories and nothing else. In the build they always are (its
 * categories include every code its records hold); otherwise the views count the turns.
 */
export function usableCounts(counts: readonly SessionCounts[] | undefined, data: CodedTurns, info: CodebookInfo): readonly SessionCounts[] | undefined {
  return counts && data.unknownLabels.length === 0 && data.labels.length === info.categories.length ? counts : undefined;
}

/**
 * The session's counts from its part of the join (numbered by the codebook's `categories`), when
 * that is numbered as the study is: when it has no code outside them.
 */
function sessionCounts(session: Session, coded: CodedSessionPart, categories: number, balesFrame: ProfileFrame | null): SessionCounts | undefined {
  if (coded.unknownLabels.length > 0) return undefined;
  return {
    members: memberCounts(coded, session.participants.length + coded.undeclared.length, categories),
    phases: balesFrame && balesFrame.groups.size > 0 ? phaseCounts(coded, balesFrame) : null,
  };
}

/** A session's ratings per speaker and for its condition, as styleValues collects them. */
interface SessionStyles {
  bySpeaker: [key: string, kind: string, values: StyleValues][];
  condition: string;
  byCondition: StyleValues | null;
}

/**
 * What one codebook's coders (in `sets` order) give of one session, as its memo keeps it: the
 * digest of its badges, not the badges. A chunk is written again only when a digest of its
 * badges changed (or its file is gone), so a build that added a session writes that session's
 * chunk only, with the badges {@link codebookSessionPart} made with its part; kept in the memo,
 * the badges were 35 MB of a 100,000-turn study's report-codebook memos read by every build.
 */
export interface CodebookSessionPart {
  coders: CoderPart[];
  badgesDigest: string;
}

export function codebookSessionPart(
  session: Session,
  sets: readonly CodeSet[],
  info: CodebookInfo,
  binSize: number,
  /** The Bales view's frame (profileFrame of the codebook's categories), for a Bales-style codebook. */
  balesFrame: ProfileFrame | null,
): CodebookSessionPart & { badges: SessionBadges } {
  const coders = sets.map((set): CoderPart => {
    if (info.kind !== "nominal") return { styles: styleValues(session, set) };
    const { bySpeaker, byCondition } = buildDistribution([session], set);
    const row = { id: session.id, condition: conditionOf(session), turns: session.turns.length, binSize, speakers: [] };
    const coded = codedSessionPart(session, [...sessionCodes(set, session.id).values()], categoryIds(info));
    return {
      distribution: { bySpeaker, byCondition },
      cells: buildSequenceSet([session], [row], set, info).cells[0],
      coded,
      counts: sessionCounts(session, coded, info.categories.length, balesFrame),
    };
  });
  const badges = sessionBadges(session, sets, info);
  return { coders, badges, badgesDigest: sha256(JSON.stringify(badges)) };
}

/** A session's badges of one codebook's code sets (in `sets` order), as its chunk merges them (mergeBadges). */
export function sessionBadges(session: Session, sets: readonly CodeSet[], info: CodebookInfo): SessionBadges {
  const badges: SessionBadges = {};
  const labels = new Map(info.categories.map((k) => [k.id, k.label]));
  for (const set of sets) addBadges(badges, session, set, labels);
  return badges;
}

/** A session's finite ratings per speaker and for its condition. */
function styleValues(session: Session, set: CodeSet): SessionStyles {
  const keys = speakerKeys(session);
  const records = sessionCodes(set, session.id);
  const bySpeaker = new Map<string, [string, string, Map<string, number[]>]>();
  let byCondition: Map<string, number[]> | null = null;
  for (const turn of session.turns) {
    const scores = records.get(turn.id)?.scores;
    if (!scores) continue;
    const key = turnSpeaker(session, keys, turn);
    let s = bySpeaker.get(key);
    if (!s) bySpeaker.set(key, (s = [key, keys.get(turn.speaker)?.kind ?? "human", new Map()]));
    byCondition ??= new Map();
    for (const [scale, v] of Object.entries(scores)) {
      if (!Number.isFinite(v)) continue;
      listOf(s[2], scale).push(v);
      listOf(byCondition, scale).push(v);
    }
  }
  return {
    bySpeaker: [...bySpeaker.values()],
    condition: conditionOf(session),
    byCondition,
  };
}

function listOf(map: Map<string, number[]>, scale: string): number[] {
  let list = map.get(scale);
  if (!list) map.set(scale, (list = []));
  return list;
}

/** One coder's distribution over the study from its session parts (what buildDistribution gives): coder `k` of each codebook part. */
export function mergeDistribution(codebook: string, coder: string, parts: readonly CodebookSessionPart[], k: number): Distribution {
  const bySpeaker = new Map<string, Distribution["bySpeaker"][number]>();
  const byCondition = new Map<string, Distribution["byCondition"][number]>();
  const addCounts = (into: Counts, counts: Counts) => {
    for (const [code, n] of Object.entries(counts)) addToCount(into, code, n);
  };
  for (const { coders } of parts) {
    const d = coders[k].distribution;
    if (!d) continue;
    for (const s of d.bySpeaker) {
      let entry = bySpeaker.get(s.key);
      if (!entry) bySpeaker.set(s.key, (entry = { key: s.key, kind: s.kind, role: s.role, total: 0, counts: {} }));
      entry.total += s.total;
      addCounts(entry.counts, s.counts);
    }
    for (const c of d.byCondition) {
      let entry = byCondition.get(c.condition);
      if (!entry) byCondition.set(c.condition, (entry = { condition: c.condition, total: 0, counts: {} }));
      entry.total += c.total;
      addCounts(entry.counts, c.counts);
    }
  }
  return { codebook, coder, bySpeaker: [...bySpeaker.values()], byCondition: [...byCondition.values()] };
}

/** One coder's ratings over the study, per speaker (with its kind) and per condition, in session order. */
export function mergeStyleValues(parts: readonly CoderPart[]): {
  bySpeaker: Map<string, { kind: string; values: ReadonlyMap<string, ArrayLike<number>> }>;
  byCondition: Map<string, ReadonlyMap<string, ArrayLike<number>>>;
} {
  const bySpeaker = new Map<string, { kind: string; values: StyleValues }>();
  const byCondition = new Map<string, StyleValues>();
  const append = (into: StyleValues, values: StyleValues) => {
    for (const [scale, list] of values) {
      const out = listOf(into, scale);
      for (const v of list) out.push(v);
    }
  };
  for (const part of parts) {
    const styles = part.styles;
    if (!styles) continue;
    for (const [key, kind, values] of styles.bySpeaker) {
      let entry = bySpeaker.get(key);
      if (!entry) bySpeaker.set(key, (entry = { kind, values: new Map() }));
      append(entry.values, values);
    }
    if (styles.byCondition) {
      let entry = byCondition.get(styles.condition);
      if (!entry) byCondition.set(styles.condition, (entry = new Map()));
      append(entry, styles.byCondition);
    }
  }
  return { bySpeaker, byCondition };
}

/**
 * One coder's join of sessions and codes from its session parts (what codedTurns gives, but for
 * the records of sessions the study does not have, which these views do not count).
 */
export function mergeCoded(sessions: readonly Session[], parts: readonly CoderPart[], info: CodebookInfo): CodedTurns {
  return joinParts(
    sessions,
    parts.map((p) => p.coded!),
    categoryIds(info),
    [],
  );
}

/** A session's badges from each of its codebooks' (in code set order, as addBadges adds them set after set). */
export function mergeBadges(badges: readonly SessionBadges[]): SessionBadges {
  const into: SessionBadges = {};
  for (const one of badges) {
    for (const [turn, list] of Object.entries(one)) listEntry(into, turn).push(...list);
  }
  return into;
}
