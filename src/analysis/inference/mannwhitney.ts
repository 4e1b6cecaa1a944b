import { normalSf } from "./distributions.js";
import { assertFinite, rankAverage, tieTerm } from "./ranks.js";

/** Result of {@link mannWhitneyU}. */
export interface MannWhitneyResult {
  /** U statistic of the first sample (scipy's reported statistic). */
  U: number;
  /** U of the second sample (n1·n2 - U). */
  U2: number;
  /** Two-sided p-value. */
  p: number;
  /** Normal-approximation z (tie- and continuity-corrected; >= 0, computed from max(U1, U2)). */
  z: number;
  /** Rank-biserial correlation (U1 - U2)/(n1·n2), in [-1, 1]; positive when x tends to be larger. */
  rankBiserial: number;
  nX: number;
  nY: number;
  /** scipy method="auto": "exact" when either sample has <= 8 values and there are no ties, else "approx". */
  method: "exact" | "approx";
}

/** Number of arrangements giving U = 0..n1·n2 (Mann-Whitney null distribution), by the standard recursion. */
function uCounts(n1: number, n2: number): number[] {
  // f[i][j][u]: rolling over i with a 2-D table per i would be large; use the partition-style DP
  // over "number of y values below each x" which is the number of partitions of u into at most
  // n1 parts each <= n2, i.e. Gaussian binomial coefficients.
  const max = n1 * n2;
  let counts = new Array<number>(max + 1).fill(0);
  counts[0] = 1;
  // Gaussian binomial [n1+n2 choose n1]_q built by multiplying (1 - q^{n2+k})/(1 - q^k), k = 1..n1.
  for (let k = 1; k <= n1; k++) {
    const next = counts.slice();
    // multiply by (1 - q^{n2+k})
    for (let u = max; u >= n2 + k; u--) next[u] -= counts[u - n2 - k];
    // divide by (1 - q^k): prefix sums with stride k
    for (let u = k; u <= max; u++) next[u] += next[u - k];
    counts = next;
  }
  return counts;
}

/**
 * Mann-Whitney U test, two-sided, as scipy.stats.mannwhitneyu(x, y) with its defaults
 * (use_continuity=True, method="auto").
 */
export function mannWhitneyU(x: readonly number[], y: readonly number[]): MannWhitneyResult {
  const test = "mannWhitneyU";
  assertFinite(x, "x", test);
  assertFinite(y, "y", test);
  const n1 = x.length;
  const n2 = y.length;
  if (n1 === 0 || n2 === 0) throw new Error(`${test}: both samples need at least one value (got ${n1} and ${n2})`);
  const { ranks, ties } = rankAverage([...x, ...y]);
  let R1 = 0;
  for (let i = 0; i < n1; i++) R1 += ranks[i];
  const U1 = R1 - (n1 * (n1 + 1)) / 2;
  const U2 = n1 * n2 - U1;
  const U = Math.max(U1, U2);
  const n = n1 + n2;
  const s = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm(ties) / (n * (n - 1))));
  const z = (U - (n1 * n2) / 2 - 0.5) / s;
  const method: MannWhitneyResult["method"] = (n1 <= 8 || n2 <= 8) && ties.length === 0 ? "exact" : "approx";
  let p: number;
  if (method === "exact") {
    const small = Math.min(n1, n2);
    const counts = uCounts(small, Math.max(n1, n2));
    // The null distribution is symmetric, so P(U' >= U) = P(U' <= n1·n2 - U): summing the lower
    // tail avoids the cancellation the upper coefficients carry for large samples.
    let total = 1;
    for (let i = 1; i <= small; i++) total = (total * (n - small + i)) / i;
    let tail = 0;
    for (let u = 0; u <= n1 * n2 - U; u++) tail += counts[u];
    p = (2 * tail) / total;
  } else {
    p = 2 * normalSf(z);
  }
  return { U: U1, U2, p: Math.min(1, Math.max(0, p)), z, rankBiserial: (U1 - U2) / (n1 * n2), nX: n1, nY: n2, method };
}
