/**
 * Seeded bootstrap over units. Deterministic: the same seed gives the same interval on every
 * machine, so an agreement report can be reproduced exactly.
 */

import { mulberry32, mulberry32Next, mulberry32Value } from "../../util/random.js";

export { mulberry32 };

/** Percentile bootstrap interval. */
export interface BootstrapInterval {
  lower: number;
  upper: number;
  /** Confidence level, e.g. 0.95. */
  confidence: number;
  replicates: number;
  /** Replicates whose statistic was undefined (NaN, e.g. a resample with no variation) and were left out. */
  undefinedReplicates: number;
  seed: number;
  method: "percentile";
}

/** Options of {@link bootstrapCI}. */
export interface BootstrapOptions {
  replicates?: number;
  seed?: number;
  /** Confidence level (default 0.95). */
  confidence?: number;
}

/** Quantile with linear interpolation between order statistics (numpy's default "linear" method). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * Percentile bootstrap CI: draw `replicates` resamples of the nUnits units with replacement
 * (indices passed to `statistic`), take the (1-confidence)/2 and (1+confidence)/2 quantiles.
 */
export function bootstrapCI(nUnits: number, statistic: (sample: Int32Array) => number, options: BootstrapOptions = {}): BootstrapInterval {
  return bootstrapSeries(nUnits, (sample) => [statistic(sample)], 1, options)[0];
}

/**
 * Several statistics over the same resamples: `statistics(sample)` returns one value per
 * statistic. Same seed, same resamples, so intervals are reproducible and comparable.
 */
export function bootstrapSeries(
  nUnits: number,
  statistics: (sample: Int32Array) => number[],
  count: number,
  options: BootstrapOptions = {},
): BootstrapInterval[] {
  const replicates = options.replicates ?? 1000;
  const seed = options.seed ?? 1;
  const level = options.confidence ?? 0.95;
  if (!Number.isInteger(replicates) || replicates < 1) throw new Error(`bootstrapCI: replicates must be a positive integer (got ${replicates})`);
  const random = mulberry32(seed);
  const values: number[][] = Array.from({ length: count }, () => []);
  const undefinedReplicates = new Array<number>(count).fill(0);
  // One buffer reused by every replicate: statistics must not keep it.
  const sample = new Int32Array(nUnits);
  for (let b = 0; b < replicates; b++) {
    for (let i = 0; i < nUnits; i++) sample[i] = Math.floor(random() * nUnits);
    statistics(sample).forEach((v, s) => {
      if (Number.isFinite(v)) values[s].push(v);
      else undefinedReplicates[s]++;
    });
  }
  return values.map((vs, s) =>
    percentileInterval(
      vs.sort((a, b) => a - b),
      level,
      replicates,
      undefinedReplicates[s],
      seed,
    ),
  );
}

/** The percentile interval of the replicates' finite statistics, sorted. */
function percentileInterval(values: ArrayLike<number>, level: number, replicates: number, undefinedReplicates: number, seed: number): BootstrapInterval {
  return {
    lower: quantile(values, (1 - level) / 2),
    upper: quantile(values, (1 + level) / 2),
    confidence: level,
    replicates,
    undefinedReplicates,
    seed,
    method: "percentile",
  };
}

/**
 * {@link bootstrapCI} of the mean of `values`: the same resamples (same seed, same draws in the
 * same order) and the same sums, so the same interval, without a sample buffer or a callback per
 * replicate. Concept and topic comparisons bootstrap every condition's mean of every measure each
 * run (2,000 replicates of 1,000+ values each).
 */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): BootstrapInterval {
  const replicates = options.replicates ?? 1000;
  const seed = options.seed ?? 1;
  const level = options.confidence ?? 0.95;
  if (!Number.isInteger(replicates) || replicates < 1) throw new Error(`bootstrapMean: replicates must be a positive integer (got ${replicates})`);
  const n = values.length;
  const xs = new Float64Array(values);
  const means = new Float64Array(replicates);
  let kept = 0;
  // mulberry32's state in a local, not a closure per draw: the same draws in the same order, in
  // half the time (the topics and concepts stages bootstrap a changed condition's mean of every measure each run).
  let state = seed | 0;
  for (let b = 0; b < replicates; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      state = mulberry32Next(state);
      sum += xs[Math.floor(mulberry32Value(state) * n)];
    }
    const mean = sum / n;
    if (Number.isFinite(mean)) means[kept++] = mean;
  }
  return percentileInterval(means.subarray(0, kept).sort(), level, replicates, replicates - kept, seed);
}
