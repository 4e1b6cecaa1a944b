import { fitIdf, turnTerms, vectorise, type SparseVector } from "./learned/features.js";
import type { CodeableTurn, DrawnSample } from "./sample.js";
import { turnFingerprint } from "../transcript/fingerprint.js";
import { mulberry32, shuffleInPlace } from "../util/random.js";

/** How sure a machine coder is of one turn (its margin or confidence: lower is less sure), and what it predicted. */
export interface Doubt {
  sure: number;
  code?: string;
}

/** EXPLORATION: knobs of the strategy. */
export interface UncertainStrategy {
  name: string;
  order: "least-sure" | "per-code";
  /** Random picks until this many turns are hand-coded. */
  warmup: number;
  /** Doubt x density^density (density: cosine similarity to the pool's centroid). */
  density: number;
  /** Doubt x (1 - similarity to the nearest turn already chosen or hand-coded). */
  diversity: boolean;
  /** Share of each batch drawn at random. */
  random: number;
}

export const STRATEGIES: Record<string, UncertainStrategy> = {
  "least-sure": { name: "least-sure", order: "least-sure", warmup: 0, density: 0, diversity: false, random: 0 },
  "per-code": { name: "per-code", order: "per-code", warmup: 0, density: 0, diversity: false, random: 0 },
  density: { name: "density", order: "least-sure", warmup: 0, density: 1, diversity: false, random: 0 },
  "per-code-density": { name: "per-code-density", order: "per-code", warmup: 0, density: 1, diversity: false, random: 0 },
  diverse: { name: "diverse", order: "least-sure", warmup: 0, density: 0, diversity: true, random: 0 },
  "density-diverse": { name: "density-diverse", order: "least-sure", warmup: 0, density: 1, diversity: true, random: 0 },
  warmup50: { name: "warmup50", order: "per-code", warmup: 50, density: 0, diversity: false, random: 0 },
  epsilon: { name: "epsilon", order: "per-code", warmup: 0, density: 0, diversity: false, random: 0.3 },
};

export const DEFAULT_STRATEGY = STRATEGIES["per-code"];

const keyOf = (u: CodeableTurn) => `${u.session.id}\u0000${u.turn.id}`;

/** Sparse dot product of two vectors with sorted indexes. */
function dot(a: SparseVector, b: SparseVector): number {
  let s = 0;
  for (let i = 0, j = 0; i < a.index.length && j < b.index.length;) {
    if (a.index[i] === b.index[j]) s += a.value[i++] * b.value[j++];
    else if (a.index[i] < b.index[j]) i++;
    else j++;
  }
  return s;
}

export function uncertainSample(
  units: readonly CodeableTurn[],
  n: number,
  doubt: ReadonlyMap<string, Doubt>,
  handCoded: ReadonlySet<string>,
  seed: number,
  strategy: UncertainStrategy = DEFAULT_STRATEGY,
): DrawnSample {
  const random = mulberry32(seed);
  const candidates = units.map((u) => ({ u, key: keyOf(u), tie: random(), score: 0 })).filter((c) => doubt.has(c.key) && !handCoded.has(c.key));
  const take = Math.min(n, candidates.length);
  let chosen: typeof candidates = [];
  const coded = units.filter((u) => handCoded.has(keyOf(u)));
  const warm = Math.min(take, Math.max(0, strategy.warmup - coded.length));
  const randomShare = warm + Math.round((take - warm) * strategy.random);
  if (randomShare > 0)
    chosen = shuffleInPlace(
      [...candidates].sort((a, b) => a.tie - b.tie),
      mulberry32(seed + 7),
    ).slice(0, randomShare);
  const rest = candidates.filter((c) => !chosen.includes(c));
  const needVectors = strategy.density > 0 || strategy.diversity;
  const vectors = new Map<string, SparseVector>();
  if (needVectors) {
    const terms = units.map((u) => turnTerms(u.session, u.position));
    const idf = fitIdf(terms);
    units.forEach((u, i) => vectors.set(keyOf(u), vectorise(terms[i], idf, false)));
  }
  for (const c of rest) c.score = 1 - doubt.get(c.key)!.sure;
  if (strategy.density > 0) {
    const centroid = new Map<number, number>();
    for (const c of candidates) {
      const v = vectors.get(c.key)!;
      v.index.forEach((ix, i) => centroid.set(ix, (centroid.get(ix) ?? 0) + v.value[i] / candidates.length));
    }
    for (const c of rest) {
      const v = vectors.get(c.key)!;
      let d = 0;
      v.index.forEach((ix, i) => (d += v.value[i] * (centroid.get(ix) ?? 0)));
      c.score *= Math.max(0, d) ** strategy.density;
    }
  }
  let ranked = [...rest].sort((a, b) => b.score - a.score || a.tie - b.tie);
  if (strategy.order === "per-code") {
    const seen = new Map<string, number>();
    const rank = new Map<(typeof ranked)[number], number>();
    for (const c of ranked) {
      const code = doubt.get(c.key)!.code ?? "";
      rank.set(c, seen.get(code) ?? 0);
      seen.set(code, (seen.get(code) ?? 0) + 1);
    }
    ranked = ranked.sort((a, b) => rank.get(a)! - rank.get(b)!);
  }
  // Spread: a session gets at most its share (n / sessions with candidates, rounded up) until all have had theirs.
  const sessions = new Set(candidates.map((c) => c.u.session.id)).size;
  const taken = new Map<string, number>();
  for (const c of chosen) taken.set(c.u.session.id, (taken.get(c.u.session.id) ?? 0) + 1);
  let share = Math.ceil(take / Math.max(1, sessions));
  const fits = (c: (typeof ranked)[number]) => (taken.get(c.u.session.id) ?? 0) < share;
  const pool = strategy.diversity ? ranked.slice(0, 10 * take) : ranked;
  const near = new Map(pool.map((c) => [c, 0]));
  const normSq = (v: SparseVector) => v.value.reduce((a, x) => a + x * x, 0);
  const sim = (a: SparseVector, b: SparseVector) => dot(a, b) / Math.sqrt(normSq(a) * normSq(b) || 1);
  const update = (v: SparseVector) => {
    for (const c of pool) near.set(c, Math.max(near.get(c)!, sim(v, vectors.get(c.key)!)));
  };
  if (strategy.diversity) for (const k of [...coded.map(keyOf), ...chosen.map((c) => c.key)]) update(vectors.get(k)!);
  while (chosen.length < take && pool.length > 0) {
    let best = -1;
    for (let i = 0; i < pool.length; i++) {
      if (!fits(pool[i])) continue;
      if (!strategy.diversity) {
        best = i;
        break;
      }
      if (best < 0 || pool[i].score * (1 - near.get(pool[i])!) > pool[best].score * (1 - near.get(pool[best])!)) best = i;
    }
    if (best < 0) {
      share++;
      continue;
    }
    const [c] = pool.splice(best, 1);
    chosen.push(c);
    taken.set(c.u.session.id, (taken.get(c.u.session.id) ?? 0) + 1);
    if (strategy.diversity) update(vectors.get(c.key)!);
  }
  const set = new Set(chosen.map((c) => c.u));
  const stratum = (u: CodeableTurn) => `doubt=${doubt.get(keyOf(u))!.sure}`;
  return {
    units: units.filter((u) => set.has(u)).map((u) => ({ ...u, stratum: stratum(u), fingerprint: turnFingerprint(u.turn) })),
    strata: [{ key: strategy.name, population: candidates.length, sample: set.size }],
  };
}
