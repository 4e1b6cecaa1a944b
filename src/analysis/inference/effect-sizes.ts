import { quantile } from "../reliability/bootstrap.js";
import { cohensDz, hedgesG, isSpread } from "./effect.js";
import { assertPaired, rankAverage } from "./ranks.js";
import { ownDraws, type Draws } from "./draws.js";

/**
 * Effect sizes a reader can use beside a test, each with a percentile bootstrap interval over
 * the units (sessions or people), never over turns.
 */

/**
 * Cliff's delta: P(X > Y) - P(X < Y) over all nx·ny pairs, in [-1, 1]; positive when x tends to be
 * larger. Equal to the Mann-Whitney rank-biserial correlation 2U/(nx·ny) - 1 with SciPy's U
 * (ties count one half). Null when a sample is empty.
 */
export function cliffsDelta(x: readonly number[], y: readonly number[]): number | null {
  if (x.length === 0 || y.length === 0) return null;
  let more = 0;
  let fewer = 0;
  for (const a of x)
    for (const b of y) {
      if (a > b) more++;
      else if (a < b) fewer++;
    }
  return (more - fewer) / (x.length * y.length);
}

/**
 * Matched-pairs rank-biserial correlation (Kerby 2014), counting every pair: the absolute
 * differences of all n pairs are ranked (zero differences included, Pratt/"zsplit", their ranks
 * split evenly between the signs) and r = (R+ - R-) / (n(n+1)/2). Pairs with no difference pull
 * it toward 0, so 6 non-zero of 20 pairs cannot show r = 1. As
 * scipy.stats.wilcoxon(x, y, zero_method="zsplit", alternative="greater").statistic = R+.
 * Null without pairs.
 */
export function matchedPairsRankBiserial(x: readonly number[], y: readonly number[]): number | null {
  assertPaired(x, y, "matchedPairsRankBiserial");
  const n = x.length;
  if (n === 0) return null;
  const d = x.map((v, i) => v - y[i]);
  const { ranks } = rankAverage(d.map(Math.abs));
  let signed = 0;
  d.forEach((v, i) => (signed += v > 0 ? ranks[i] : v < 0 ? -ranks[i] : 0));
  return signed / ((n * (n + 1)) / 2);
}

/**
 * Hedges' g_z for paired samples: Cohen's dz (mean difference / SD of differences) times the
 * small-sample correction J = 1 - 3 / (4·df - 1) with df = n - 1 (Lakens 2013, eqs. 6-7; the same
 * J as Hedges' g, whose df is nx + ny - 2). Null for fewer than 3 pairs or no spread.
 */
export function hedgesGz(x: readonly number[], y: readonly number[]): number | null {
  const dz = cohensDz(x, y);
  if (dz === null || x.length < 3) return null;
  return dz * (1 - 3 / (4 * (x.length - 1) - 1));
}

/** The effect sizes {@link effectInterval} can bootstrap. */
export type EffectSize = "hedges-g" | "hedges-gz" | "cliffs-delta" | "rank-biserial";

export const EFFECT_SIZE_NAMES: Record<EffectSize, string> = {
  "hedges-g": "Hedges' g",
  "hedges-gz": "Hedges' g_z",
  "cliffs-delta": "Cliff's delta",
  "rank-biserial": "matched-pairs rank-biserial r",
};

/** Whether the effect size pairs x[i] with y[i]. */
export const isPairedEffect = (effect: EffectSize): boolean => effect === "hedges-gz" || effect === "rank-biserial";

/** The effect size of x against y. */
export function effectSize(effect: EffectSize, x: readonly number[], y: readonly number[]): number | null {
  switch (effect) {
    case "hedges-g":
      return hedgesG(x, y);
    case "hedges-gz":
      return hedgesGz(x, y);
    case "cliffs-delta":
      return cliffsDelta(x, y);
    case "rank-biserial":
      return matchedPairsRankBiserial(x, y);
  }
}

export interface EffectInterval {
  ci95: [number, number] | null;
  /** e.g. "percentile bootstrap over sessions (2,000 resamples, seed 1; 12 undefined)". */
  method: string;
}

export const EFFECT_REPLICATES = 2000;

/**
 * Fewer units than this on a side (or pairs) get no interval. The percentile bootstrap of a
 * standardised effect is far too narrow on a few units: resampling 3 to 5 values a side often
 * draws nearly constant samples, whose small SD inflates |g|, and never mixes the conditions, so
 * with no effect at all the interval excludes 0 in about 1 sample in 6 (nominal 1 in 20), e.g.
 * g = 0.69, 95% CI [0.34, 1.38] beside a permutation p of .76. It falls to about 7% at 10 a side (and
 * stays there at 15: the percentile interval of g is a little narrow at any small n).
 */
export const MIN_EFFECT_INTERVAL_N = 10;

/**
 * 95% percentile bootstrap interval of an effect size, resampling units: pairs together for a
 * paired effect, each condition's units on their own (stratified) otherwise. Resamples whose
 * effect is undefined (no spread) are left out and counted; with more than a tenth of them
 * undefined, or fewer than {@link MIN_EFFECT_INTERVAL_N} units a side, there is no interval.
 */
export function effectInterval(
  effect: EffectSize,
  x: readonly number[],
  y: readonly number[],
  unit: string,
  seed = 1,
  draws: Draws = ownDraws,
): EffectInterval {
  const paired = isPairedEffect(effect);
  const base = `percentile bootstrap over ${unit}s (${EFFECT_REPLICATES} resamples, seed ${seed})`;
  if (x.length < MIN_EFFECT_INTERVAL_N || y.length < MIN_EFFECT_INTERVAL_N)
    return {
      ci95: null,
      method: `no interval: fewer than ${MIN_EFFECT_INTERVAL_N} ${unit}s ${paired ? "paired" : "in a condition"} (a percentile bootstrap of the effect size is too narrow there; read the effect size as descriptive)`,
    };
  const values = resampledEffects(effect, x, y, seed, draws).filter(Number.isFinite).sort();
  const undefinedCount = EFFECT_REPLICATES - values.length;
  if (undefinedCount > EFFECT_REPLICATES / 10)
    return { ci95: null, method: `no interval: ${undefinedCount} of ${EFFECT_REPLICATES} resamples had no spread (${base})` };
  return { ci95: [quantile(values, 0.025), quantile(values, 0.975)], method: undefinedCount ? `${base}; ${undefinedCount} undefined left out` : base };
}

/**
 * The effect size of each bootstrap resample (NaN where it is undefined). Units are drawn from a
 * seeded mulberry32 stream (./draws.ts): for a paired effect one index per pair; otherwise x's
 * units, then y's. Hedges' g and g_z, the sizes every permutation test reports, are computed from
 * the drawn indices (two passes, as hedgesG and cohensDz compute them, with the same test of a
 * real spread) without copying the resample: at 1,000 sessions this loop runs 2,000 times per
 * code and comparison, and copying each resample first cost several times as much. Rank-based
 * sizes copy the resample and call {@link effectSize}.
 */
export function resampledEffects(effect: EffectSize, x: readonly number[], y: readonly number[], seed: number, draws: Draws = ownDraws): Float64Array {
  const out = new Float64Array(EFFECT_REPLICATES);
  const paired = isPairedEffect(effect);
  if (paired) assertPaired(x, y, `${effect} bootstrap`);
  const nx = x.length;
  const ny = paired ? 0 : y.length;
  const indices = draws.bootstrap(nx, ny, EFFECT_REPLICATES, seed);
  const stride = nx + ny;
  if (effect === "hedges-g") {
    const correction = 1 - 3 / (4 * (nx + ny) - 9);
    for (let b = 0; b < EFFECT_REPLICATES; b++) {
      const sx = drawnSpread(x, indices, b * stride, nx);
      const sy = drawnSpread(y, indices, b * stride + nx, ny);
      const pooled = Math.sqrt((sx.squares + sy.squares) / (nx + ny - 2));
      out[b] = isSpread(pooled, Math.max(sx.scale, sy.scale)) ? ((sx.mean - sy.mean) / pooled) * correction : NaN;
    }
    return out;
  }
  if (effect === "hedges-gz") {
    const d = x.map((v, i) => v - y[i]);
    const correction = 1 - 3 / (4 * (nx - 1) - 1);
    for (let b = 0; b < EFFECT_REPLICATES; b++) {
      const s = drawnSpread(d, indices, b * stride, nx);
      const sd = Math.sqrt(s.squares / (nx - 1));
      out[b] = isSpread(sd, s.scale) ? (s.mean / sd) * correction : NaN;
    }
    return out;
  }
  const xs = new Array<number>(nx);
  const ys = new Array<number>(paired ? nx : ny);
  for (let b = 0; b < EFFECT_REPLICATES; b++) {
    const at = b * stride;
    if (paired) {
      for (let i = 0; i < nx; i++) {
        const j = indices[at + i];
        xs[i] = x[j];
        ys[i] = y[j];
      }
    } else {
      for (let i = 0; i < nx; i++) xs[i] = x[indices[at + i]];
      for (let i = 0; i < ny; i++) ys[i] = y[indices[at + nx + i]];
    }
    out[b] = effectSize(effect, xs, ys) ?? NaN;
  }
  return out;
}

/** Mean, sum of squared deviations from it, and largest absolute value of `values` at indices[from … from + n). */
function drawnSpread(values: readonly number[], indices: Int32Array, from: number, n: number): { mean: number; squares: number; scale: number } {
  let sum = 0;
  let scale = 0;
  for (let i = from; i < from + n; i++) {
    const v = values[indices[i]];
    sum += v;
    if (Math.abs(v) > scale) scale = Math.abs(v);
  }
  const mean = sum / n;
  let squares = 0;
  for (let i = from; i < from + n; i++) {
    const dev = values[indices[i]] - mean;
    squares += dev * dev;
  }
  return { mean, squares, scale };
}
