import { normalTwoSided } from "./distributions.js";
import { assertFinite, assertPaired, rankAverage, tieTerm } from "./ranks.js";

/** Result of {@link wilcoxonSignedRank}. */
export interface WilcoxonResult {
  /** min(W+, W-), as scipy.stats.wilcoxon reports for a two-sided test. */
  W: number;
  /** Sum of ranks of positive differences (x - y > 0). */
  Wplus: number;
  Wminus: number;
  /** Two-sided p-value. */
  p: number;
  /**
   * Normal-approximation z (tie-corrected, no continuity correction as scipy's default
   * correction=False; sign as scipy: -|z|). Reported for
   * every method so the effect size does not depend on which p-value method ran.
   */
  z: number;
  /** Effect size r = |z| / sqrt(n). */
  r: number;
  /** Pairs used: non-zero differences (zero differences are dropped, zero_method "wilcox"). */
  n: number;
  /** Pairs given, and how many had a zero difference. */
  nTotal: number;
  nZero: number;
  /**
   * How p was computed, following scipy's method="auto" (scipy >= 1.13): "exact" signed-rank
   * distribution when n <= 50 pairs and no ties or zeros; otherwise a full sign-flip
   * "permutation" enumeration when n <= 13; otherwise "approx" (normal, tie corrected).
   */
  method: "exact" | "permutation" | "approx";
}

/** Number of sign assignments giving each rank sum 0..n(n+1)/2 (doubles; exact up to n ≈ 50 in relative terms). */
function signedRankCounts(n: number): number[] {
  const max = (n * (n + 1)) / 2;
  const counts = new Array<number>(max + 1).fill(0);
  counts[0] = 1;
  for (let k = 1; k <= n; k++) {
    for (let s = (k * (k + 1)) / 2; s >= k; s--) counts[s] += counts[s - k];
  }
  return counts;
}

function exactP(n: number, rPlus: number): number {
  const counts = signedRankCounts(n);
  const total = 2 ** n;
  const lo = Math.ceil(rPlus);
  const hi = Math.floor(rPlus);
  let cdf = 0;
  for (let s = 0; s <= Math.min(lo, counts.length - 1); s++) cdf += counts[s];
  let sf = 0;
  for (let s = Math.max(hi, 0); s < counts.length; s++) sf += counts[s];
  return Math.min(1, (2 * Math.min(cdf, sf)) / total);
}

/** Enumerate all 2^n sign flips of the non-zero differences (scipy's permutation_test, exact for n <= 13). */
function permutationP(ranks: number[], observed: number): number {
  const m = ranks.length;
  const total = 2 ** m;
  const gamma = Math.abs(observed) * 100 * Number.EPSILON;
  let less = 0;
  let greater = 0;
  for (let mask = 0; mask < total; mask++) {
    let s = 0;
    for (let i = 0; i < m; i++) if (mask & (1 << i)) s += ranks[i];
    if (s <= observed + gamma) less++;
    if (s >= observed - gamma) greater++;
  }
  return Math.min(1, (2 * Math.min(less, greater)) / total);
}

/**
 * Wilcoxon signed-rank test, two-sided, as scipy.stats.wilcoxon(x, y) with its defaults
 * (zero_method="wilcox", correction=False, method="auto"). One-sample form when y is omitted (tests x against 0).
 */
export function wilcoxonSignedRank(x: readonly number[], y?: readonly number[]): WilcoxonResult {
  const test = "wilcoxonSignedRank";
  assertFinite(x, "x", test);
  if (y) {
    assertPaired(x, y, test);
  }
  if (x.length === 0) throw new Error(`${test}: no pairs to test`);
  const diffs = y ? x.map((v, i) => v - y[i]) : [...x];
  const nTotal = diffs.length;
  const nonZero = diffs.filter((d) => d !== 0);
  const nZero = nTotal - nonZero.length;
  const n = nonZero.length;
  const { ranks, ties } = rankAverage(nonZero.map(Math.abs));
  let Wplus = 0;
  let Wminus = 0;
  nonZero.forEach((d, i) => (d > 0 ? (Wplus += ranks[i]) : (Wminus += ranks[i])));
  const mn = (n * (n + 1)) / 4;
  const se = Math.sqrt((n * (n + 1) * (2 * n + 1) - tieTerm(ties) / 2) / 24);
  // scipy's default is correction=False: no continuity correction on z.
  const zRaw = se > 0 ? (Wplus - mn) / se : NaN;
  const z = -Math.abs(zRaw);

  let method: WilcoxonResult["method"];
  let p: number;
  // scipy decides on the number of pairs including zeros (d.shape), then on ties/zeros.
  if (nTotal <= 50 && ties.length === 0 && nZero === 0) {
    method = "exact";
    p = exactP(n, Wplus);
  } else if (nTotal <= 13) {
    method = "permutation";
    p = permutationP(ranks, Wplus);
  } else {
    method = "approx";
    p = normalTwoSided(zRaw);
  }
  return { W: Math.min(Wplus, Wminus), Wplus, Wminus, p, z, r: n > 0 ? Math.abs(z) / Math.sqrt(n) : NaN, n, nTotal, nZero, method };
}
