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
