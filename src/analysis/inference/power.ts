import { tCritical } from "./distributions.js";

/**
 * Minimum detectable effect (in standard deviations: Hedges' g, or g_z for pairs) of a
 * two-sided test at level alpha with the given power, by the usual t approximation
 * d = (t[1 - alpha/2, df] + t[power, df]) · sqrt(1/nA + 1/nB) with df = nA + nB - 2, and
 * d_z = (t[1 - alpha/2, n - 1] + t[power, n - 1]) / sqrt(n) for n pairs (Cohen 1988, ch. 2; the
 * noncentral-t solution is within a few hundredths from 5 units a side). A planning figure: a
 * study this size has an 80% chance to detect an effect at least this large.
 */
export function minimumDetectableEffect(sizes: { nA: number; nB: number } | { pairs: number }, alpha = 0.05, power = 0.8): number | null {
  const df = "pairs" in sizes ? sizes.pairs - 1 : sizes.nA + sizes.nB - 2;
  if (!(df >= 1)) return null;
  // t[q, df] for q > .5 is the two-sided critical value at confidence 2q - 1.
  const t = tCritical(df, 1 - alpha) + tCritical(df, 2 * power - 1);
  return "pairs" in sizes ? t / Math.sqrt(sizes.pairs) : t * Math.sqrt(1 / sizes.nA + 1 / sizes.nB);
}
