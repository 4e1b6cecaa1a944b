import { turnFingerprint } from "../transcript/fingerprint.js";
import type { Session, Turn } from "../transcript/schema.js";
import { mulberry32 } from "../util/random.js";
import { skipReason } from "./job-plan.js";

/**
 * Which turns people code, and reliability samples of them. The codeable turns are exactly the
 * ones the machine coders code (job-plan.ts: no system, reasoning or empty turns), so a human
 * sheet and a machine coder cover the same units and `colloquy agree` can compare them.
 */

/** One codeable turn, in study order. */
export interface CodeableTurn {
  session: Session;
  turn: Turn;
  /** Position of the turn in its session (turns[position] === turn). */
  position: number;
}

/** Codeable turns of `sessions` in their order, and how many were left out per reason. */
export function codeableTurns(sessions: readonly Session[]): { turns: CodeableTurn[]; skipped: Record<string, number> } {
  const turns: CodeableTurn[] = [];
  const skipped: Record<string, number> = {};
  for (const session of sessions) {
    const system = new Set(session.participants.filter((p) => p.kind === "system").map((p) => p.id));
    session.turns.forEach((turn, position) => {
      const reason = skipReason(session, turn, system);
      if (reason) skipped[reason] = (skipped[reason] ?? 0) + 1;
      else turns.push({ session, turn, position });
    });
  }
  return { turns, skipped };
}

/** What a sample can be stratified by. */
export const STRATA = ["condition", "run", "session", "speaker-kind", "role"] as const;
export type Stratum = (typeof STRATA)[number];

/** A turn's value for one stratification variable ("(none)" when the session does not say). */
function stratumValue(unit: CodeableTurn, by: Stratum): string {
  const speaker = () => unit.session.participants.find((p) => p.id === unit.turn.speaker);
  switch (by) {
    case "condition":
      return unit.session.metadata.condition ?? "(none)";
    case "run":
      return unit.session.metadata.run ?? "(none)";
    case "session":
      return unit.session.id;
    case "speaker-kind":
      return speaker()?.kind ?? "(unknown)";
    case "role":
      return speaker()?.role ?? "(none)";
  }
}

/** "condition=control;speaker-kind=human" ("all" without stratification). */
export function stratumKey(unit: CodeableTurn, by: readonly Stratum[]): string {
  return by.length === 0 ? "all" : by.map((b) => `${b}=${stratumValue(unit, b)}`).join(";");
}

/**
 * Proportional allocation of `n` over strata of the given sizes by the largest-remainder
 * (Hamilton) method: each stratum gets floor(n * N_h / N), and the units left over go to the
 * largest fractional parts (ties: the larger stratum, then the key in code-unit order), so the
 * allocation sums to n and no stratum gets more than it holds.
 */
export function allocate(n: number, sizes: ReadonlyMap<string, number>): Map<string, number> {
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  if (!Number.isInteger(n) || n < 0 || n > total) throw new RangeError(`cannot draw ${n} of ${total}`);
  const rows = [...sizes].map(([key, size]) => {
    const quota = total === 0 ? 0 : (n * size) / total;
    return { key, size, floor: Math.floor(quota), remainder: quota - Math.floor(quota) };
  });
  let left = n - rows.reduce((a, r) => a + r.floor, 0);
  const order = [...rows].sort((a, b) => b.remainder - a.remainder || b.size - a.size || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const row of order) {
    if (left === 0) break;
    row.floor++;
    left--;
  }
  return new Map(rows.map((r) => [r.key, r.floor]));
}

/** A 32-bit seed for one stratum from the sample's seed and the stratum key (FNV-1a). */
function stratumSeed(seed: number, key: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** `k` of `items`, uniformly without replacement (partial Fisher-Yates), in their original order. */
function choose<T>(items: readonly T[], k: number, random: () => number): T[] {
  const index = items.map((_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (index.length - i));
    [index[i], index[j]] = [index[j], index[i]];
  }
  return index
    .slice(0, k)
    .sort((a, b) => a - b)
    .map((i) => items[i]);
}

export interface StratumDraw {
  key: string;
  population: number;
  sample: number;
}

export interface DrawnSample {
  units: (CodeableTurn & { stratum: string; fingerprint: string })[];
  strata: StratumDraw[];
}

/**
 * A reproducible sample of `n` codeable turns, stratified proportionally. Each stratum draws from
 * its own generator (seeded by the seed and the stratum's key), so the same seed and study give the
 * same sample on any machine, and adding sessions to one stratum leaves another's draw alone as
 * long as its allocation does not change. Units come back in study order.
 */
export function drawSample(units: readonly CodeableTurn[], n: number, by: readonly Stratum[], seed: number): DrawnSample {
  const groups = new Map<string, CodeableTurn[]>();
  for (const unit of units) {
    const key = stratumKey(unit, by);
    const group = groups.get(key);
    if (group) group.push(unit);
    else groups.set(key, [unit]);
  }
  const quotas = allocate(n, new Map([...groups].map(([key, g]) => [key, g.length])));
  const chosen = new Set<CodeableTurn>();
  const strata: StratumDraw[] = [];
  for (const [key, group] of groups) {
    const k = quotas.get(key) ?? 0;
    for (const unit of choose(group, k, mulberry32(stratumSeed(seed, key)))) chosen.add(unit);
    strata.push({ key, population: group.length, sample: k });
  }
  return {
    units: units.filter((u) => chosen.has(u)).map((u) => ({ ...u, stratum: stratumKey(u, by), fingerprint: turnFingerprint(u.turn) })),
    strata: strata.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  };
}

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
 *    (class-balanced uncertainty sampling);
 *  - "half-random": least sure and seeded random turns in turn (uncertainty mixed with random
 *    sampling, the usual guard against a model's blind spots).
 */
export type UncertainOrder = "least-sure" | "per-code" | "half-random";

/**
 * The order `colloquy sample --strategy uncertain` uses, chosen on our tuning data only
 * (`bench/learned-quality.ts --tune`, 10 runs, 7 December 2026): kappa at 100 hand-coded turns
 * least-sure 0.381, per-code 0.393, half-random 0.395, random 0.343; at 150 0.440, 0.448, 0.444,
 * 0.413. Per-code and half-random tie; per-code was taken for its narrower interval and its
 * better figure at 150, and because it asks about the turns it is least sure of only.
 */
export const DEFAULT_UNCERTAIN_ORDER: UncertainOrder = "per-code";

/**
 * Active learning: `n` turns nobody has coded by hand that a machine coder is least sure about,
 * spread across sessions, so each hour of hand-coding teaches it most. `doubt` maps
 * "session\u0000turn" to how sure the coder is (the learned coder's margin between its two most
 * likely codes, or its confidence) and its code; `order` says how doubt and codes rank the
 * candidates. A session gets at most its share (n / sessions with candidates, rounded up) until
 * every session has had its share, so one unusual conversation does not fill the sample. Ties
 * are broken in a seeded order, so a sample is reproducible. Turns the coder has not coded are
 * not candidates (code them first), turns in `handCoded` neither. The simulation in
 * bench/learned-quality.ts calls this same function.
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
    .map((u) => ({ u, key: `${u.session.id}\u0000${u.turn.id}`, tie: random() }))
    .filter((c) => doubt.has(c.key) && !handCoded.has(c.key))
    .sort((a, b) => doubt.get(a.key)!.sure - doubt.get(b.key)!.sure || a.tie - b.tie);
  const candidates = ranked(bySureness, order, (c) => doubt.get(c.key)!.code ?? "");
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
  const stratum = (u: CodeableTurn) => `doubt=${doubt.get(`${u.session.id}\u0000${u.turn.id}`)!.sure}`;
  return {
    units: units.filter((u) => chosen.has(u)).map((u) => ({ ...u, stratum: stratum(u), fingerprint: turnFingerprint(u.turn) })),
    strata: [{ key: `${ORDER_NAMES[order]}, spread across sessions`, population: candidates.length, sample: chosen.size }],
  };
}

const ORDER_NAMES: Record<UncertainOrder, string> = {
  "least-sure": "least certain",
  "per-code": "least certain per predicted code",
  "half-random": "least certain and random in turn",
};

/** Candidates (least sure first, ties in a seeded order: `tie`) in the order `order` takes them. */
function ranked<T extends { tie: number }>(bySureness: readonly T[], order: UncertainOrder, codeOf: (c: T) => string): T[] {
  if (order === "least-sure") return [...bySureness];
  const rank = new Map<T, number>();
  if (order === "per-code") {
    const seen = new Map<string, number>();
    for (const c of bySureness) {
      const code = codeOf(c);
      rank.set(c, seen.get(code) ?? 0);
      seen.set(code, (seen.get(code) ?? 0) + 1);
    }
  } else {
    // Even places from the least sure, odd ones from a random order (the seeded ties), each once.
    const random = [...bySureness].sort((a, b) => a.tie - b.tie);
    let [i, j] = [0, 0];
    for (let place = 0; rank.size < bySureness.length; place++) {
      const from = place % 2 === 0 ? bySureness : random;
      let k = from === bySureness ? i : j;
      while (rank.has(from[k])) k++;
      rank.set(from[k], place);
      if (from === bySureness) i = k + 1;
      else j = k + 1;
    }
  }
  // Stable: equal ranks keep the least-sure order.
  return [...bySureness].sort((a, b) => rank.get(a)! - rank.get(b)!);
}
