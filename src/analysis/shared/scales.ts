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
export function summariseRatings(values: ArrayLike<number>, points: number): RatingSummary {
  return summariseWholeRatings(values, points) ?? summariseSorted(Float64Array.from(values).sort(), points);
}

/**
 * The summary of ratings that are all whole points of the scale (what the rules coder and most
 * LLM codes give): order statistics read from the histogram, in one pass and without sorting
 * (sorting every scale's ratings per speaker and condition was 0.1 s of every dashboard build
 * of a 100,000-turn study). The same numbers as summariseSorted: the sum of whole numbers is
 * exact in any order. Undefined when some rating is not a whole point of the scale.
 */
function summariseWholeRatings(values: ArrayLike<number>, points: number): RatingSummary | undefined {
  const counts = Array.from({ length: points }, () => 0);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isInteger(v) || v < 1 || v > points) return undefined;
    counts[v - 1]++;
    sum += v;
  }
  const n = values.length;
  if (n === 0) return undefined;
  /** The rating at position `i` of the sorted ratings. */
  const at = (i: number) => {
    let seen = 0;
    for (let bin = 0; bin < points; bin++) {
      seen += counts[bin];
      if (i < seen) return bin + 1;
    }
    return points;
  };
  const quantile = (p: number) => {
    const pos = (n - 1) * p;
    const lo = Math.floor(pos);
    const low = at(lo);
    return low + (at(Math.min(lo + 1, n - 1)) - low) * (pos - lo);
  };
  return { n, mean: sum / n, min: at(0), q1: quantile(0.25), median: quantile(0.5), q3: quantile(0.75), max: at(n - 1), counts };
}

function summariseSorted(sorted: Float64Array, points: number): RatingSummary {
  // A typed array sorts numbers natively: a study's 100,000 ratings of a scale in a few ms, not ~100.
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
