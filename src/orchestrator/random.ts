import { mulberry32, shuffleInPlace } from "../util/random.js";

/**
 * Seeded randomness for the orchestrator: every random choice (ties, random picks, pauses,
 * interruptions) comes from here, so the same scenario + seed replays the same session.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: readonly T[]): T[];
  /** A 31-bit integer, e.g. to seed an LLM request. */
  seed(): number;
}

/** A Random over mulberry32 (src/util/random.ts). */
export function createRandom(seed: number): Random {
  const next = mulberry32(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[Math.floor(next() * items.length)];
    },
    shuffle: (items) => shuffleInPlace([...items], next),
    seed: () => Math.floor(next() * 0x7fffffff),
  };
}

/** Derive a run's seed from the scenario seed, condition and run number (stable, order-free). */
export function deriveSeed(seed: number, condition: string, run: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const ch of `${condition}#${run}`) {
    h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  }
  return h & 0x7fffffff;
}
