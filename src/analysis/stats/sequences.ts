import type { CodedSession, CodedTurns } from "../shared/table.js";
import { actSequence } from "./bales.js";
import { THIRDS, thirdOf } from "../shared/measures.js";
import { poolCounts } from "./pool.js";

/**
 * Code sequences for sequence charts: each session's codes turn by turn, and code distributions
 * in the early, middle and late third of each session. Thirds are taken over the session's coded
 * turns (turn k of n coded turns falls in third floor(3k/n)); each coded turn contributes its
 * first code. Unlike Bales' phases, the fallback code is kept here: it is part of what happened.
 */

/**
 * One session's code sequence; position i is the session's `turns[i]` (turn ids are in the session
 * file). Stored as small integers so a million-turn study stays a compact file: speakers index
 * `participants`, codes index the report's `labels` (-1 = turn not coded).
 */
export interface SessionSequence {
  session: string;
  condition: string;
  /** Participant ids (the session's participants, then any undeclared speaker). */
  participants: string[];
  /** Index into `participants` of each turn's speaker. */
  speakers: number[];
  /** Index into `labels` of each turn's first code, or -1 when the turn is not coded. */
  codes: number[];
}

/** Counts and proportions of codes within one segment (early, middle or late third). */
export interface Segment {
  name: "early" | "middle" | "late";
  /** Coded turns in the segment. */
  turns: number;
  counts: Record<string, number>;
  /** count / turns; null when the segment is empty. */
  proportions: Record<string, number | null>;
}

export interface SegmentDistributions {
  labels: string[];
  sessions: { session: string; condition: string; segments: Segment[] }[];
  /** Counts pooled over each condition's sessions. */
  conditions: { condition: string; segments: Segment[] }[];
  overall: Segment[];
}

const NAMES = THIRDS;

/** The code sequence of every session (label indices into `data.labels`). */
export function codeSequences(data: CodedTurns): SessionSequence[] {
  return data.sessions.map(sessionSequence);
}

/** One session's code sequence. */
export function sessionSequence(cs: CodedSession): SessionSequence {
  return {
    session: cs.session.id,
    condition: cs.condition,
    participants: cs.members.map((m) => m.id),
    speakers: Array.from(cs.speakers),
    codes: Array.from(cs.primary),
  };
}

/** What one session contributes to {@link segmentDistributions}: its thirds, and their counts to pool. */
export interface SessionSegments {
  session: SegmentDistributions["sessions"][number];
  /** Per third, the count of each label (third j, label i at j * L + i). */
  counts: Float64Array;
}

function renderSegments(counts: Float64Array, labels: readonly string[]): Segment[] {
  const L = labels.length;
  return NAMES.map((name, j) => {
    let turns = 0;
    for (let i = 0; i < L; i++) turns += counts[j * L + i];
    const c: Record<string, number> = {};
    const p: Record<string, number | null> = {};
    labels.forEach((label, i) => {
      c[label] = counts[j * L + i];
      p[label] = turns > 0 ? counts[j * L + i] / turns : null;
    });
    return { name, turns, counts: c, proportions: p };
  });
}

/** One session's first codes (coded turns only) split into thirds by position. */
export function sessionSegments(cs: CodedSession, labels: readonly string[]): SessionSegments {
  const L = labels.length;
  const counts = new Float64Array(3 * L);
  const acts = actSequence(cs.primary);
  for (let k = 0; k < acts.length; k++) counts[thirdOf(k, acts.length) * L + acts[k]]++;
  return { session: { session: cs.session.id, condition: cs.condition, segments: renderSegments(counts, labels) }, counts };
}

/** Segment distributions pooled from the sessions' thirds: everything in {@link SegmentDistributions} but the sessions' own. */
export type PooledSegments = Omit<SegmentDistributions, "sessions">;

/** Pool sessions' segments (`counts[i]`, SessionSegments.counts of a session of `conditions[i]`) per condition and over the study. */
export function poolSegments(conditions: readonly string[], counts: readonly Float64Array[], labels: readonly string[]): PooledSegments {
  const { byCondition, overall } = poolCounts(conditions, counts, 3 * labels.length);
  return {
    labels: [...labels],
    conditions: byCondition.map(([condition, acc]) => ({ condition, segments: renderSegments(acc, labels) })),
    overall: renderSegments(overall, labels),
  };
}

/** Code distributions in the early, middle and late thirds of each session, per condition and overall. */
export function segmentDistributions(data: CodedTurns): SegmentDistributions {
  const parts = data.sessions.map((cs) => sessionSegments(cs, data.labels));
  const pooled = poolSegments(
    data.sessions.map((cs) => cs.condition),
    parts.map((p) => p.counts),
    data.labels,
  );
  return { labels: pooled.labels, sessions: parts.map((p) => p.session), conditions: pooled.conditions, overall: pooled.overall };
}

/**
 * A long code sequence shortened to cells of `binSize` positions (for drawing): each cell holds
 * the most frequent code of its positions, ties going to the lowest code index (the codebook's
 * order); -1 when none of its positions is coded. `binSize` 1 returns the codes as they are.
 */
export function binCodes(codes: ArrayLike<number>, binSize: number): number[] {
  const out: number[] = [];
  const size = Math.max(1, Math.floor(binSize));
  for (let i = 0; i < codes.length; i += size) {
    const tally = new Map<number, number>();
    for (let j = i; j < Math.min(i + size, codes.length); j++) if (codes[j] >= 0) tally.set(codes[j], (tally.get(codes[j]) ?? 0) + 1);
    let best = -1;
    let bestN = 0;
    for (const [code, n] of tally) if (n > bestN || (n === bestN && code < best)) [best, bestN] = [code, n];
    out.push(best);
  }
  return out;
}
