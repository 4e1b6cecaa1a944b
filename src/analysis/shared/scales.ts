/**
 * Summaries of ratings on a 1..points scale (pragmatic-style and other scale codebooks): the
 * box-plot five numbers, mean and histogram the dashboard draws.
 */

/** Box-plot summary and histogram of ratings on a 1..points scale. */
export interface RatingSummary {
  n: number;
  /** NaN when n = 0 (and so null in JSON), like min, quartiles and max. */
  mean: number;
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  /** counts[v-1] = ratings that round to v (ratings outside 1..points are not binned). */
  counts: number[];
}

/** Quantile of sorted values with linear interpolation between order statistics (as d3.quantile, numpy's default). */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Summarise ratings on a 1..points scale. */
export function summariseRatings(values: readonly number[], points: number): RatingSummary {
  // A typed array sorts numbers natively: a study's 100,000 ratings of a scale in a few ms, not ~100.
  const sorted = new Float64Array(values).sort();
  const counts = Array.from({ length: points }, () => 0);
  let sum = 0;
  for (const v of sorted) {
    sum += v;
    const bin = Math.round(v) - 1;
    if (bin >= 0 && bin < points) counts[bin]++;
  }
  return {
    n: sorted.length,
    mean: sorted.length ? sum / sorted.length : NaN,
    min: sorted.length ? sorted[0] : NaN,
    q1: quantileSorted(sorted, 0.25),
    median: quantileSorted(sorted, 0.5),
    q3: quantileSorted(sorted, 0.75),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    counts,
  };
}
