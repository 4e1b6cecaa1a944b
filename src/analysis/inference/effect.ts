import { mean, variance } from "./ranks.js";

/**
 * Hedges' g for two independent samples: Cohen's d with the pooled SD,
 * sqrt(((nx - 1)·sx² + (ny - 1)·sy²) / (nx + ny - 2)), times the small-sample correction
 * J = 1 - 3 / (4(nx + ny) - 9) (Hedges & Olkin 1985; Lakens 2013, eq. 4). Positive when x is
 * larger. Null when either sample has fewer than 2 values or the pooled SD is 0.
 */
export function hedgesG(x: readonly number[], y: readonly number[]): number | null {
  const nx = x.length;
  const ny = y.length;
  if (nx < 2 || ny < 2) return null;
  const pooled = Math.sqrt(((nx - 1) * variance(x) + (ny - 1) * variance(y)) / (nx + ny - 2));
  if (!(pooled > 0)) return null;
  const d = (mean(x) - mean(y)) / pooled;
  return d * (1 - 3 / (4 * (nx + ny) - 9));
}

/**
 * Cohen's dz for paired samples: the mean of the differences x - y divided by their sample SD
 * (n - 1 denominator; Lakens 2013, eq. 6). Positive when x is larger. Null for fewer than 2
 * pairs or when the differences do not vary (every pair differs by the same amount).
 */
export function cohensDz(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error(`cohensDz: x and y must have the same length (got ${x.length} and ${y.length})`);
  if (x.length < 2) return null;
  const d = x.map((v, i) => v - y[i]);
  const sd = Math.sqrt(variance(d));
  return sd > 0 ? mean(d) / sd : null;
}
