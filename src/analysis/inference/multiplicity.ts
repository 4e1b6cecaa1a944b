import { holm } from "./holm.js";

/**
 * Adjusting the p-values of one family of tests for multiplicity. Holm (1979) controls the
 * family-wise error rate and is the default; Benjamini-Hochberg (1995) controls the false
 * discovery rate and is the option for many exploratory tests. Both as statsmodels
 * `multipletests(method="holm" | "fdr_bh")`; NaN p-values pass through and are not counted.
 */
export type Adjustment = "holm" | "bh" | "none";

/** Human-readable name, for captions and notes. */
export const ADJUSTMENT_NAMES: Record<Adjustment, string> = {
  holm: "Holm",
  bh: "Benjamini-Hochberg",
  none: "unadjusted",
};

/**
 * Benjamini-Hochberg adjusted p-values in the input order: the i-th smallest of m p-values times
 * m / i, made monotone from the largest down, capped at 1.
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const indexed = pValues.map((p, i) => ({ p, i })).filter(({ p }) => !Number.isNaN(p));
  for (const { p, i } of indexed) {
    if (p < 0 || p > 1) throw new Error(`benjaminiHochberg: p-value ${i} is ${p}; p-values must lie in [0, 1]`);
  }
  indexed.sort((a, b) => a.p - b.p);
  const m = indexed.length;
  const out = pValues.map(() => NaN);
  let running = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const { p, i } = indexed[rank];
    running = Math.min(running, (m / (rank + 1)) * p);
    out[i] = running;
  }
  return out;
}

/** The family's adjusted p-values under `method` ("none" returns them unchanged). */
export function adjustPValues(pValues: readonly number[], method: Adjustment): number[] {
  if (method === "holm") return holm(pValues);
  if (method === "bh") return benjaminiHochberg(pValues);
  return [...pValues];
}
