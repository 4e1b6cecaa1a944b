import type { CodedTurns } from "../shared/table.js";
import { actSequence } from "./bales.js";
import { THIRDS, thirdOf } from "../shared/measures.js";

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
  return data.sessions.map((cs) => ({
    session: cs.session.id,
    condition: cs.condition,
    participants: cs.members.map((m) => m.id),
    speakers: Array.from(cs.speakers),
    codes: Array.from(cs.primary),
  }));
}

/** Code distributions in the early, middle and late thirds of each session, per condition and overall. */
export function segmentDistributions(data: CodedTurns): SegmentDistributions {
  const L = data.labels.length;
  const blank = () => NAMES.map(() => new Float64Array(L));
  const render = (acc: Float64Array[]): Segment[] =>
    acc.map((counts, j) => {
      const turns = counts.reduce((a, b) => a + b, 0);
      const c: Record<string, number> = {};
      const p: Record<string, number | null> = {};
      data.labels.forEach((label, i) => {
        c[label] = counts[i];
        p[label] = turns > 0 ? counts[i] / turns : null;
      });
      return { name: NAMES[j], turns, counts: c, proportions: p };
    });
  const sessions: SegmentDistributions["sessions"] = [];
  const byCondition = new Map<string, Float64Array[]>();
  const overall = blank();
  for (const cs of data.sessions) {
    const acts = actSequence(cs.primary);
    const acc = blank();
    for (let k = 0; k < acts.length; k++) acc[thirdOf(k, acts.length)][acts[k]]++;
    sessions.push({ session: cs.session.id, condition: cs.condition, segments: render(acc) });
    let c = byCondition.get(cs.condition);
    if (!c) byCondition.set(cs.condition, (c = blank()));
    for (let j = 0; j < 3; j++) {
      for (let i = 0; i < L; i++) {
        c[j][i] += acc[j][i];
        overall[j][i] += acc[j][i];
      }
    }
  }
  return {
    labels: [...data.labels],
    sessions,
    conditions: [...byCondition].sort(([a], [b]) => a.localeCompare(b)).map(([condition, acc]) => ({ condition, segments: render(acc) })),
    overall: render(overall),
  };
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
