import { logGamma } from "./distributions.js";

/** Result of {@link fisherExact}. */
export interface FisherExactResult {
  /** Sample odds ratio (a·d)/(b·c), as scipy's statistic; Infinity when b·c = 0 < a·d, NaN when both are 0. */
  oddsRatio: number;
  /** Two-sided p-value. */
  p: number;
  n: number;
}

const logChoose = (n: number, k: number) => logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);

/**
 * Fisher's exact test of a 2×2 table [[a, b], [c, d]], two-sided, as
 * scipy.stats.fisher_exact(table): under fixed margins, `a` is hypergeometric; the p-value sums
 * the probabilities of every table no more likely than the observed one (with scipy's relative
 * tolerance of 1e-7, so tables tied with the observed one in floating point count as tied).
 * Used where a chi-square test's expected counts are too small for its approximation.
 */
export function fisherExact(table: readonly (readonly number[])[]): FisherExactResult {
  if (table.length !== 2 || table.some((row) => row.length !== 2)) throw new Error("fisherExact: needs a 2×2 table");
  const [[a, b], [c, d]] = table;
  for (const v of [a, b, c, d]) if (!Number.isInteger(v) || v < 0) throw new Error(`fisherExact: cell ${v} is not a count (a whole number >= 0)`);
  const row1 = a + b;
  const col1 = a + c;
  const n = a + b + c + d;
  const oddsRatio = b * c === 0 ? (a * d === 0 ? NaN : Infinity) : (a * d) / (b * c);
  // A table with an empty margin has only one arrangement: p = 1, as in scipy.
  if (row1 === 0 || col1 === 0 || row1 === n || col1 === n) return { oddsRatio, p: 1, n };
  const lo = Math.max(0, row1 + col1 - n);
  const hi = Math.min(row1, col1);
  const logDenominator = logChoose(n, col1);
  const pmf = (x: number) => Math.exp(logChoose(row1, x) + logChoose(n - row1, col1 - x) - logDenominator);
  const observed = pmf(a);
  let p = 0;
  for (let x = lo; x <= hi; x++) {
    const px = pmf(x);
    if (px <= observed * (1 + 1e-7)) p += px;
  }
  return { oddsRatio, p: Math.min(1, p), n };
}
