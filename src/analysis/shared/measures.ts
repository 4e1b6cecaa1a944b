import type { Turn } from "../../transcript/schema.js";

/**
 * The small measures every Colloquy number is built from, each defined once. Stats, concepts,
 * topics and the dashboard call these; nothing else re-derives them.
 *
 *  - words: {@link countWords} (src/analysis/shared/words.ts; re-exported here);
 *  - duration: {@link timeSpan};
 *  - balance: {@link normalisedEntropy};
 *  - which third of a session: {@link thirdOf}.
 */
export { countWords } from "./words.js";

/** Names of a session's thirds, in order (index = {@link thirdOf}). */
export const THIRDS = ["early", "middle", "late"] as const;
export type Third = (typeof THIRDS)[number];

/**
 * Which third (0 early, 1 middle, 2 late) position k (0-based) of n positions falls in:
 * floor(3k / n), so the thirds hold equal numbers of positions ±1. What the positions are is
 * the caller's definition (acts for Bales phases, coded turns for segments).
 */
export function thirdOf(k: number, n: number): 0 | 1 | 2 {
  return Math.min(2, Math.floor((3 * k) / Math.max(1, n))) as 0 | 1 | 2;
}

/** Seconds spanned by some turns, or null with the reason. */
export interface TimeSpan {
  seconds: number | null;
  /** Why `seconds` is null, or a caveat when only some turns are timed. */
  note?: string;
  /** Turns that have a start time. */
  timed: number;
}

/**
 * Duration of a list of turns in seconds: the latest end (or start, when a turn has no end)
 * minus the earliest start, over the turns that have a start time. Turns without a start are
 * ignored (an end alone does not place a turn in time). Null when no turn has a start, or when
 * every timed turn falls at the same moment (a zero span would make every rate infinite).
 */
export function timeSpan(turns: readonly Pick<Turn, "start" | "end">[]): TimeSpan {
  let first = Infinity;
  let last = -Infinity;
  let timed = 0;
  for (const turn of turns) {
    if (turn.start === undefined) continue;
    timed++;
    if (turn.start < first) first = turn.start;
    const stop = turn.end ?? turn.start;
    if (stop > last) last = stop;
  }
  if (timed === 0) return { seconds: null, timed, note: "no turn has a start time, so duration and per-minute rates are unknown" };
  if (!(last > first)) return { seconds: null, timed, note: "all timed turns fall at the same moment, so duration is zero and rates are undefined" };
  const note = timed < turns.length ? `only ${timed} of ${turns.length} turns have times; duration spans the timed ones` : undefined;
  return { seconds: last - first, timed, ...(note ? { note } : {}) };
}

/**
 * Normalised Shannon entropy of the shares of `values` over k = values.length members:
 * -Σ p ln p / ln k with p = value / total (1 = perfectly even, 0 = one member has everything).
 * Null with fewer than 2 members or a total of 0 (no shares to compare).
 */
export function normalisedEntropy(values: readonly number[]): number | null {
  const k = values.length;
  const total = values.reduce((a, b) => a + b, 0);
  if (k < 2 || total <= 0) return null;
  let h = 0;
  for (const v of values) if (v > 0) h -= (v / total) * Math.log(v / total);
  return h / Math.log(k);
}
