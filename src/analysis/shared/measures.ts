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
  /** Why `seconds` is null, or a caveat (only some turns timed, times to the minute). */
  note?: string;
  /** Turns that have a start time. */
  timed: number;
  /**
   * Every time falls on a whole minute: the source's clock keeps minutes only (Slack pastes,
   * WhatsApp and many chat exports), so each end of the span is known to within a minute.
   */
  toTheMinute?: boolean;
}

/** Seconds in a minute: the resolution of clocks that keep minutes only. */
const MINUTE = 60;

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
  let toTheMinute = true;
  for (const turn of turns) {
    if (turn.start === undefined) continue;
    timed++;
    if (turn.start < first) first = turn.start;
    const stop = turn.end ?? turn.start;
    if (stop > last) last = stop;
    if (turn.start % MINUTE !== 0 || stop % MINUTE !== 0) toTheMinute = false;
  }
  // Two times on whole minutes happen by chance (1 in 60 for seconds); three or more are a clock that keeps minutes.
  toTheMinute &&= timed >= 3;
  if (timed === 0) return { seconds: null, timed, note: "no turn has a start time, so duration and per-minute rates are unknown" };
  if (!(last > first)) return { seconds: null, timed, note: "all timed turns fall at the same moment, so duration is zero and rates are undefined" };
  const notes = [
    ...(timed < turns.length ? [`only ${timed} of ${turns.length} turns have times; duration spans the timed ones`] : []),
    ...(toTheMinute ? ["the times are to the minute, so the duration is known to within a minute either way"] : []),
  ];
  return { seconds: last - first, timed, ...(notes.length ? { note: notes.join("; ") } : {}), ...(toTheMinute ? { toTheMinute } : {}) };
}

/**
 * The seconds a per-minute rate divides by, or null with the reason. Times to the minute that span
 * a single minute leave the true span anywhere from a moment to two minutes, so a rate could be
 * off many times over (ChatCollab: 7 turns stamped 10:16 and 10:17 gave 81 concepts a minute
 * where the other sessions gave 14-43, and drove a condition's mean): no rate then. From two
 * minutes on the span is known to within half of itself, and the note says how far.
 */
export function rateSeconds(time: TimeSpan): { seconds: number | null; reason?: string } {
  if (time.seconds === null) return { seconds: null, reason: time.note };
  if (time.toTheMinute && time.seconds < 2 * MINUTE)
    return { seconds: null, reason: "it spans one minute, so the true span is anywhere up to two minutes and per-minute rates are left out" };
  return { seconds: time.seconds };
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
