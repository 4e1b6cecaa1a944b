import { turnFingerprint } from "../transcript/fingerprint.js";
import { mulberry32 } from "../util/random.js";
import type { CodeableTurn, DrawnSample } from "./sample.js";

/**
 * Active learning: which turns to hand-code next so that each hour of hand-coding teaches the
 * learned coder most (`colloquy sample --strategy uncertain`). bench/learned-quality.ts simulates
 * this same function (`--tune` compares the orders on our tuning data, `--active-learning` reports
 * the chosen one on ChatCollab and on our corpus's held-out part; docs/learned-coder.md).
 */

/** How sure a machine coder is of one turn (its margin or confidence: lower is less sure), and what it predicted. */
export interface Doubt {
  sure: number;
  code?: string;
}

/**
 * The order candidates are taken in:
 *  - "least-sure": least sure first (classic uncertainty sampling, Lewis & Gale 1994);
 *  - "per-code": the least sure turn of each predicted code, then the second of each, and so on,
 *    so the turns the coder thinks are rare categories are asked about as often as common ones
 *    (class-balanced uncertainty sampling).
 * Also tried on the tuning data, and worse than "per-code" with the margin (docs/learned-coder.md):
 * doubt weighted by similarity to the pool, diversity within a batch, a random warm-up of 50 turns
 * and 30% random picks (commit f22b559); the calibrated margin, entropy, expected gradient length,
 * query by committee (the two views; bootstrap models), retraining after every turn, and a
 * representative first sample (commit 5db7d8b); a 20% or 50% random share of every round, steering
 * to the least hand-coded of a turn's two likeliest codes, a committee of 5 session-fold models,
 * expected error reduction on a shortlist, 20 turns per round, 10 or 40 random turns first
 * (commit 87ef1d0).
 */
export type UncertainOrder = "least-sure" | "per-code";

/** The order `colloquy sample --strategy uncertain` uses: the best on our tuning data at 100 and 150 turns. */
export const DEFAULT_UNCERTAIN_ORDER: UncertainOrder = "per-code";

const keyOf = (u: CodeableTurn) => `${u.session.id}\u0000${u.turn.id}`;

/**
 * `n` turns nobody has coded by hand that a machine coder is least sure about, taken in `order`,
 * spread across sessions. `doubt` maps "session\u0000turn" to how sure the coder is (the learned
 * coder's margin between its two likeliest codes, or its confidence) and its code. A session gets
 * at most its share (n / sessions with candidates, rounded up) until every session has had its
 * share, so one unusual conversation does not fill the sample. Ties are broken in a seeded order,
 * so a sample is reproducible. Turns the coder has not coded are not candidates (code them
 * first), turns in `handCoded` neither.
 */
export function uncertainSample(
  units: readonly CodeableTurn[],
  n: number,
  doubt: ReadonlyMap<string, Doubt>,
  handCoded: ReadonlySet<string>,
  seed: number,
  order: UncertainOrder = DEFAULT_UNCERTAIN_ORDER,
): DrawnSample {
  const random = mulberry32(seed);
  const bySureness = units
    .map((u) => ({ u, key: keyOf(u), tie: random() }))
    .filter((c) => doubt.has(c.key) && !handCoded.has(c.key))
    .sort((a, b) => doubt.get(a.key)!.sure - doubt.get(b.key)!.sure || a.tie - b.tie);
  let candidates = bySureness;
  if (order === "per-code") {
    // Rank within its predicted code; a stable sort keeps the least-sure order among equal ranks.
    const seen = new Map<string, number>();
    const rank = new Map(
      bySureness.map((c) => {
        const code = doubt.get(c.key)!.code ?? "";
        seen.set(code, (seen.get(code) ?? 0) + 1);
        return [c, seen.get(code)!];
      }),
    );
    candidates = [...bySureness].sort((a, b) => rank.get(a)! - rank.get(b)!);
  }
  const sessions = new Set(candidates.map((c) => c.u.session.id)).size;
  const taken = new Map<string, number>();
  const chosen = new Set<CodeableTurn>();
  for (let share = Math.ceil(n / Math.max(1, sessions)); chosen.size < Math.min(n, candidates.length); share++) {
    for (const c of candidates) {
      if (chosen.size >= n) break;
      const id = c.u.session.id;
      if (chosen.has(c.u) || (taken.get(id) ?? 0) >= share) continue;
      chosen.add(c.u);
      taken.set(id, (taken.get(id) ?? 0) + 1);
    }
  }
  // The sample's stratum column: how sure the coder was (its margin or confidence, higher is surer).
  // Labelled "doubt=" before, which read a sure 0.98 (a rare code's least doubtful turn) as very doubtful.
  const stratum = (u: CodeableTurn) => `sure=${doubt.get(keyOf(u))!.sure}`;
  return {
    units: units.filter((u) => chosen.has(u)).map((u) => ({ ...u, stratum: stratum(u), fingerprint: turnFingerprint(u.turn) })),
    strata: [{ key: `${ORDER_NAMES[order]}, spread across sessions`, population: candidates.length, sample: chosen.size }],
  };
}

const ORDER_NAMES: Record<UncertainOrder, string> = {
  "least-sure": "least certain",
  "per-code": "least certain per predicted code",
};
