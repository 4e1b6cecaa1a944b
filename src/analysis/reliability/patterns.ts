import { mulberry32, quantile, type BootstrapInterval, type BootstrapOptions } from "./bootstrap.js";
import { multinomial } from "./multinomial.js";
import { isMissing, type Rating } from "./values.js";

/**
 * Units reduced to their rating patterns (the tuple of every coder's value). Every agreement
 * statistic depends on the units only through how often each pattern occurs, so a bootstrap
 * replicate only needs pattern counts (a multinomial draw), then O(patterns) per statistic,
 * with all statistics sharing the same resamples.
 */
export interface UnitPatterns {
  /** Pattern index of each unit. */
  patternOf: Int32Array;
  /** ratings[coder][pattern]: the pattern's values, in the same layout as the input ratings. */
  ratings: Rating[][];
  /** How often each pattern occurs in the data. */
  counts: Float64Array;
}

export function unitPatterns(ratings: readonly (readonly Rating[])[]): UnitPatterns {
  const nUnits = ratings[0]?.length ?? 0;
  const index = new Map<string, number>();
  const patternOf = new Int32Array(nUnits);
  const out: Rating[][] = ratings.map(() => []);
  const counts: number[] = [];
  for (let u = 0; u < nUnits; u++) {
    const key = JSON.stringify(ratings.map((row) => (isMissing(row[u]) ? null : row[u])));
    let p = index.get(key);
    if (p === undefined) {
      p = counts.length;
      index.set(key, p);
      counts.push(0);
      ratings.forEach((row, c) => out[c].push(isMissing(row[u]) ? null : row[u]));
    }
    counts[p]++;
    patternOf[u] = p;
  }
  return { patternOf, ratings: out, counts: Float64Array.from(counts) };
}

/**
 * Percentile bootstrap CIs of several statistics over the same resamples of units. Resampling
 * n units with replacement makes the pattern counts Multinomial(n, observed shares), so each
 * replicate draws those counts directly (exact, seeded) and hands them to every statistic.
 */
export function bootstrapPatterns(
  patterns: UnitPatterns,
  statistics: readonly ((counts: Float64Array) => number)[],
  options: BootstrapOptions = {},
): BootstrapInterval[] {
  const replicates = options.replicates ?? 1000;
  const seed = options.seed ?? 1;
  const confidence = options.confidence ?? 0.95;
  if (!Number.isInteger(replicates) || replicates < 1) throw new Error(`bootstrap: replicates must be a positive integer (got ${replicates})`);
  const random = mulberry32(seed);
  const n = patterns.patternOf.length;
  // Largest patterns first: the binomial chain then works with the largest probabilities early.
  const order = Array.from(patterns.counts.keys()).sort((x, y) => patterns.counts[y] - patterns.counts[x]);
  const sortedWeights = Float64Array.from(order, (p) => patterns.counts[p]);
  const drawn = new Float64Array(order.length);
  const counts = new Float64Array(order.length);
  const values: number[][] = statistics.map(() => []);
  const undefinedReplicates = statistics.map(() => 0);
  for (let b = 0; b < replicates; b++) {
    multinomial(n, sortedWeights, random, drawn);
    order.forEach((p, x) => (counts[p] = drawn[x]));
    statistics.forEach((f, s) => {
      const v = f(counts);
      if (Number.isFinite(v)) values[s].push(v);
      else undefinedReplicates[s]++;
    });
  }
  return values.map((vs, s) => {
    vs.sort((x, y) => x - y);
    return {
      lower: quantile(vs, (1 - confidence) / 2),
      upper: quantile(vs, (1 + confidence) / 2),
      confidence,
      replicates,
      undefinedReplicates: undefinedReplicates[s],
      seed,
      method: "percentile" as const,
    };
  });
}

/** Cohen's kappa of coders i and j from pattern counts (sklearn's formula; weights by label position). */
export function kappaFromPatterns(
  patterns: UnitPatterns,
  i: number,
  j: number,
  labels: readonly (string | number)[],
  weights?: "linear" | "quadratic",
): (counts: Float64Array) => number {
  const k = labels.length;
  const index = new Map(labels.map((l, x) => [l, x]));
  const cellOf = Int32Array.from(patterns.ratings[i], (v, p) => {
    const r = isMissing(v) ? undefined : index.get(v);
    const w = patterns.ratings[j][p];
    const c = isMissing(w) ? undefined : index.get(w);
    return r === undefined || c === undefined ? -1 : r * k + c;
  });
  const weight = (x: number, y: number): number => (weights === "linear" ? Math.abs(x - y) : weights === "quadratic" ? (x - y) ** 2 : x === y ? 0 : 1);
  const w = Float64Array.from({ length: k * k }, (_, x) => weight(Math.floor(x / k), x % k));
  const conf = new Float64Array(k * k);
  const rows = new Float64Array(k);
  const cols = new Float64Array(k);
  return (counts) => {
    conf.fill(0);
    for (let p = 0; p < cellOf.length; p++) if (cellOf[p] >= 0) conf[cellOf[p]] += counts[p];
    rows.fill(0);
    cols.fill(0);
    let n = 0;
    for (let x = 0; x < k * k; x++) {
      rows[Math.floor(x / k)] += conf[x];
      cols[x % k] += conf[x];
      n += conf[x];
    }
    let obs = 0;
    let exp = 0;
    for (let x = 0; x < k; x++) {
      for (let y = 0; y < k; y++) {
        obs += w[x * k + y] * conf[x * k + y];
        exp += (w[x * k + y] * rows[x] * cols[y]) / n;
      }
    }
    return exp === 0 ? NaN : 1 - obs / exp;
  };
}
