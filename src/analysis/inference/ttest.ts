import { tTwoSided } from "./distributions.js";
import { assertFinite, assertPaired, mean, variance } from "./ranks.js";

/** Result of {@link pairedTTest}. */
export interface PairedTTestResult {
  t: number;
  df: number;
  /** Two-sided p-value. */
  p: number;
  /** Mean of x - y. */
  meanDiff: number;
  /** Standard error of the mean difference. */
  se: number;
  n: number;
}

/** Paired t-test, two-sided, as scipy.stats.ttest_rel(x, y). Needs at least 2 pairs. */
export function pairedTTest(x: readonly number[], y: readonly number[]): PairedTTestResult {
  const test = "pairedTTest";
  assertPaired(x, y, test);
  const n = x.length;
  if (n < 2) throw new Error(`${test}: needs at least 2 pairs (got ${n})`);
  const d = x.map((v, i) => v - y[i]);
  const meanDiff = mean(d);
  const se = Math.sqrt(variance(d) / n);
  // All differences equal: scipy returns t = ±inf (p = 0) for a non-zero mean, NaN for zero mean.
  const t = se === 0 ? (meanDiff === 0 ? NaN : Math.sign(meanDiff) * Infinity) : meanDiff / se;
  const df = n - 1;
  return { t, df, p: tTwoSided(t, df), meanDiff, se, n };
}

/** Result of {@link welchTTest}. */
export interface WelchTTestResult {
  t: number;
  /** Welch-Satterthwaite degrees of freedom (fractional). */
  df: number;
  /** Two-sided p-value. */
  p: number;
  meanX: number;
  meanY: number;
  nX: number;
  nY: number;
}

/** Welch's unequal-variance t-test, two-sided, as scipy.stats.ttest_ind(x, y, equal_var=False). */
export function welchTTest(x: readonly number[], y: readonly number[]): WelchTTestResult {
  const test = "welchTTest";
  assertFinite(x, "x", test);
  assertFinite(y, "y", test);
  if (x.length < 2 || y.length < 2) throw new Error(`${test}: each sample needs at least 2 values (got ${x.length} and ${y.length})`);
  const meanX = mean(x);
  const meanY = mean(y);
  const vx = variance(x) / x.length;
  const vy = variance(y) / y.length;
  const se2 = vx + vy;
  const diff = meanX - meanY;
  const t = se2 === 0 ? (diff === 0 ? NaN : Math.sign(diff) * Infinity) : diff / Math.sqrt(se2);
  const df = (se2 * se2) / ((vx * vx) / (x.length - 1) + (vy * vy) / (y.length - 1));
  return { t, df, p: tTwoSided(t, df), meanX, meanY, nX: x.length, nY: y.length };
}
