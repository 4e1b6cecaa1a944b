import { mulberry32Next, mulberry32Value } from "../../util/random.js";
import { quantile } from "../reliability/bootstrap.js";
import { cohensDz, hedgesG } from "./effect.js";
import { assertPaired, rankAverage } from "./ranks.js";

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
 * 95% percentile bootstrap interval of an effect size, resampling units: pairs together for a
 * paired effect, each condition's units on their own (stratified) otherwise. Resamples whose
 * effect is undefined (no spread) are left out and counted; with more than a tenth of them
 * undefined, or fewer than 3 units a side, there is no interval.
 */
export function effectInterval(effect: EffectSize, x: readonly number[], y: readonly number[], unit: string, seed = 1): EffectInterval {
  const paired = isPairedEffect(effect);
  const base = `percentile bootstrap over ${unit}s (${EFFECT_REPLICATES} resamples, seed ${seed})`;
  if (x.length < 3 || y.length < 3) return { ci95: null, method: `no interval: fewer than 3 ${unit}s ${paired ? "paired" : "in a condition"}` };
  let state = seed | 0;
  const draw = (n: number) => {
    state = mulberry32Next(state);
    return Math.floor(mulberry32Value(state) * n);
  };
  const xs = new Array<number>(x.length);
  const ys = new Array<number>(y.length);
  const values: number[] = [];
  for (let b = 0; b < EFFECT_REPLICATES; b++) {
    if (paired) {
      for (let i = 0; i < x.length; i++) {
        const j = draw(x.length);
        xs[i] = x[j];
        ys[i] = y[j];
      }
    } else {
      for (let i = 0; i < x.length; i++) xs[i] = x[draw(x.length)];
      for (let i = 0; i < y.length; i++) ys[i] = y[draw(y.length)];
    }
    const v = effectSize(effect, xs, ys);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  const undefinedCount = EFFECT_REPLICATES - values.length;
  if (undefinedCount > EFFECT_REPLICATES / 10)
    return { ci95: null, method: `no interval: ${undefinedCount} of ${EFFECT_REPLICATES} resamples had no spread (${base})` };
  values.sort((a, b) => a - b);
  return { ci95: [quantile(values, 0.025), quantile(values, 0.975)], method: undefinedCount ? `${base}; ${undefinedCount} undefined left out` : base };
}
