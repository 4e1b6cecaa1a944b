import { ownDraws, type Draws } from "./draws.js";
import { assertFinite, assertPaired } from "./ranks.js";

/**
 * Two-sided permutation (randomisation) tests of a difference in means, as
 * scipy.stats.permutation_test computes them (statistic: mean(x) - mean(y), or the mean of the
 * paired differences). Exact, over every arrangement, when there are no more arrangements than
 * `resamples` (SciPy's rule); otherwise Monte Carlo with a seeded mulberry32 stream, so a run
 * replays exactly. p = 2·min(P(T <= t), P(T >= t)), capped at 1, with SciPy's tolerance of
 * 100 machine epsilons of |t| for ties in floating point; Monte Carlo p adds one to the count and
 * to the resamples (the observed arrangement is one of them, Phipson & Smyth 2010).
 */

/** Result of a permutation test. */
export interface PermutationResult {
  /** mean(x) - mean(y) (independent) or mean(x - y) (paired). */
  statistic: number;
  /** Two-sided p-value. */
  p: number;
  method: "exact" | "monte-carlo";
  /** Exact: the number of arrangements enumerated; Monte Carlo: the resamples drawn. */
  arrangements: number;
  /** The seed of the Monte Carlo stream (absent when exact). */
  seed?: number;
}

export interface PermutationOptions {
  /** Monte Carlo resamples, and the most arrangements enumerated exactly (default 10,000). */
  resamples?: number;
  /** Seed of the Monte Carlo stream (default 1). */
  seed?: number;
  /** Draws shared with the other tests over the same units (./draws.ts); the test draws its own without. */
  draws?: Draws;
}

export const DEFAULT_RESAMPLES = 10_000;

/** C(n, k) as a double (exact far beyond the sizes enumerated here). */
export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= Math.min(k, n - k); i++) r = (r * (n - Math.min(k, n - k) + i)) / i;
  return Math.round(r);
}

/** Ways to split nx + ny units into groups of nx and ny: C(nx + ny, nx). */
export const independentArrangements = (nx: number, ny: number): number => binomial(nx + ny, nx);
/** Sign assignments of n paired differences: 2^n. */
export const pairedArrangements = (n: number): number => 2 ** n;

/**
 * The smallest two-sided p an exact permutation or rank test can give with this many equally
 * likely arrangements: one extreme arrangement on each side, 2 / arrangements (3 vs 3 sessions:
 * 2 / 20 = .10, so such a test can never reach p < .05).
 */
export const smallestTwoSidedP = (arrangements: number): number => Math.min(1, 2 / arrangements);

function twoSided(less: number, greater: number, total: number, add: number): number {
  return Math.min(1, (2 * Math.min(less + add, greater + add)) / (total + add));
}

/**
 * Counts the resampled statistics at or below and at or above the observed one (within a
 * relative tolerance, as SciPy does for ties lost to rounding) and gives the two-sided p.
 */
function tally(observed: number): { count: (t: number) => void; p: (total: number, add: number) => number } {
  const gamma = Math.abs(observed) * 100 * Number.EPSILON;
  let less = 0;
  let greater = 0;
  return {
    count: (t) => {
      if (t <= observed + gamma) less++;
      if (t >= observed - gamma) greater++;
    },
    p: (total, add) => twoSided(less, greater, total, add),
  };
}

/** Permutation test of mean(x) - mean(y) for two independent samples (SciPy permutation_type "independent"). */
export function permutationTest(x: readonly number[], y: readonly number[], options: PermutationOptions = {}): PermutationResult {
  assertFinite(x, "x", "permutationTest");
  assertFinite(y, "y", "permutationTest");
  const nx = x.length;
  const ny = y.length;
  if (nx === 0 || ny === 0) throw new Error(`permutationTest: each sample needs at least one value (got ${nx} and ${ny})`);
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const all = Float64Array.from([...x, ...y]);
  const n = all.length;
  let total = 0;
  for (const v of all) total += v;
  // mean(x') - mean(y') from the sum of x' alone: y' holds what x' does not.
  const stat = (sx: number) => sx / nx - (total - sx) / ny;
  let sx0 = 0;
  for (const v of x) sx0 += v;
  const observed = stat(sx0);
  const { count, p } = tally(observed);
  const arrangements = independentArrangements(nx, ny);
  if (arrangements <= resamples) {
    // Every subset of nx of the n units, as x'.
    const pick = (start: number, left: number, sum: number): void => {
      if (left === 0) return count(stat(sum));
      for (let i = start; i <= n - left; i++) pick(i + 1, left - 1, sum + all[i]);
    };
    pick(0, nx, 0);
    return { statistic: observed, p: p(arrangements, 0), method: "exact", arrangements };
  }
  const seed = options.seed ?? 1;
  const subsets = (options.draws ?? ownDraws).subsets(nx, ny, resamples, seed);
  for (let b = 0, k = 0; b < resamples; b++) {
    let sx = 0;
    for (let i = 0; i < nx; i++) sx += all[subsets[k++]];
    count(stat(sx));
  }
  return { statistic: observed, p: p(resamples, 1), method: "monte-carlo", arrangements: resamples, seed };
}

/** Paired permutation test of mean(x - y): every pair's difference keeps or flips its sign (SciPy permutation_type "samples"). */
export function pairedPermutationTest(x: readonly number[], y: readonly number[], options: PermutationOptions = {}): PermutationResult {
  assertPaired(x, y, "pairedPermutationTest");
  const n = x.length;
  if (n === 0) throw new Error("pairedPermutationTest: no pairs to test");
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const d = Float64Array.from(x, (v, i) => v - y[i]);
  let observedSum = 0;
  for (const v of d) observedSum += v;
  const observed = observedSum / n;
  const { count, p } = tally(observed);
  const arrangements = pairedArrangements(n);
  if (arrangements <= resamples) {
    for (let mask = 0; mask < arrangements; mask++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += mask & (1 << i) ? -d[i] : d[i];
      count(s / n);
    }
    return { statistic: observed, p: p(arrangements, 0), method: "exact", arrangements };
  }
  const seed = options.seed ?? 1;
  const signs = (options.draws ?? ownDraws).signs(n, resamples, seed);
  for (let b = 0, k = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += signs[k++] ? -d[i] : d[i];
    count(s / n);
  }
  return { statistic: observed, p: p(resamples, 1), method: "monte-carlo", arrangements: resamples, seed };
}
