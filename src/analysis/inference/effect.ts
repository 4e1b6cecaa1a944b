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
  if (!spread(pooled, [...x, ...y])) return null;
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
  return spread(sd, d) ? mean(d) / sd : null;
}

/**
 * Whether an SD is a real spread rather than floating-point noise: values equal in exact
 * arithmetic (0.1 + 0.2 and 0.3, means of counts over sessions) leave an SD near 1e-17, and
 * dividing by it gives effect sizes of 1e16 (seen in bootstrap intervals of g_z over 3 pairs).
 */
function spread(sd: number, values: readonly number[]): boolean {
  return isSpread(
    sd,
    values.reduce((m, v) => Math.max(m, Math.abs(v)), 0),
  );
}

/** {@link spread} given the largest absolute value of the values (`scale`). */
export function isSpread(sd: number, scale: number): boolean {
  return sd > 1e-12 * scale;
}
