import { agreementParts, ratingsToCounts } from "./multirater.js";
import type { Rating } from "./values.js";

/** Result of {@link gwetAC1}. */
export interface GwetAC1 {
  ac1: number;
  /** Observed agreement p_a. */
  pa: number;
  /** Chance agreement p_e = Σ π_k(1 - π_k) / (q - 1). */
  pe: number;
  /** Number of categories q. */
  q: number;
  categories: (string | number)[];
  /** Units rated by at least two raters. */
  n: number;
}

/**
 * Gwet's AC1 (Gwet 2008) for two or more raters from raw ratings[rater][unit] (null = not
 * rated), as gwet.ac1.raw in Gwet's irrCAC: p_a over units with >= 2 ratings, π_k the mean
 * per-unit share of category k, q the number of categories (default: those used).
 * With a single category p_e is taken as 0 (irrCAC uses 1e-15), so AC1 = p_a: unlike kappa,
 * AC1 stays defined when everyone always picks the same category.
 */
export function gwetAC1(ratings: readonly (readonly Rating[])[], categories?: readonly (string | number)[]): GwetAC1 {
  const { counts, categories: cats } = ratingsToCounts(ratings, categories);
  const { pa, pi, unitsPairable } = agreementParts(counts);
  if (unitsPairable === 0) throw new Error("gwetAC1: no unit was rated by two or more raters");
  const q = cats.length;
  const pe = q >= 2 ? pi.reduce((s, p) => s + p * (1 - p), 0) / (q - 1) : 0;
  return { ac1: (pa - pe) / (1 - pe), pa, pe, q, categories: cats, n: unitsPairable };
}
