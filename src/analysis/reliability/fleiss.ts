import { agreementParts, ratingsToCounts } from "./multirater.js";
import type { Rating } from "./values.js";

/** Result of {@link fleissKappa} / {@link fleissKappaFromRatings}. */
export interface FleissKappa {
  /** NaN when chance agreement is 1 (all ratings in one category). */
  kappa: number;
  /** Mean per-unit agreement P̄. */
  pBar: number;
  /** Chance agreement P̄_e = Σ p_j². */
  pE: number;
  /** Share of all ratings in each category (p_j). */
  categoryShares: number[];
  /** Units used (rated by at least two raters, for the generalised form). */
  n: number;
}

/**
 * Fleiss' kappa from counts[subject][category] (Fleiss 1971), every subject rated by the
 * same number of raters. For varying numbers of raters use {@link fleissKappaFromRatings}.
 */
export function fleissKappa(counts: readonly (readonly number[])[]): FleissKappa {
  if (counts.length === 0) throw new Error("fleissKappa: no subjects");
  const raters = counts[0].reduce((a, b) => a + b, 0);
  counts.forEach((row, i) => {
    const r = row.reduce((a, b) => a + b, 0);
    if (r !== raters)
      throw new Error(
        `fleissKappa: subject ${i} has ${r} ratings but subject 0 has ${raters}; Fleiss' kappa needs the same number of raters per subject (use fleissKappaFromRatings for varying numbers)`,
      );
  });
  if (raters < 2) throw new Error(`fleissKappa: each subject needs at least 2 ratings (got ${raters})`);
  const { pa, pi, unitsPairable } = agreementParts(counts);
  return result(pa, pi, unitsPairable);
}

function result(pa: number, pi: number[], n: number): FleissKappa {
  const pE = pi.reduce((s, p) => s + p * p, 0);
  return { kappa: pE === 1 ? NaN : (pa - pE) / (1 - pE), pBar: pa, pE, categoryShares: pi, n };
}

/**
 * Generalised Fleiss kappa from raw ratings[rater][unit] (null = not rated), for any number
 * of raters per unit, as Gwet's fleiss.kappa.raw (irrCAC; Gwet 2014 §2): P̄ over units with
 * >= 2 ratings, π_k averaged over the per-unit shares. Equals Fleiss (1971) when every unit has
 * the same number of ratings.
 */
export function fleissKappaFromRatings(
  ratings: readonly (readonly Rating[])[],
  categories?: readonly (string | number)[],
): FleissKappa & { categories: (string | number)[] } {
  const { counts, categories: cats } = ratingsToCounts(ratings, categories);
  const { pa, pi, unitsPairable } = agreementParts(counts);
  if (unitsPairable === 0) throw new Error("fleissKappaFromRatings: no unit was rated by two or more raters");
  return { ...result(pa, pi, unitsPairable), categories: cats };
}
