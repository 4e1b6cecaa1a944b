import { mulberry32, shuffleInPlace } from "../../util/random.js";
import type { Codebook } from "../codebook/schema.js";
import { predictLearned, trainLearnedModel, type ModelSettings, type Prediction, type TrainingExample } from "./model.js";
import { agreementOf, shuffledSessions, type GroupedExample } from "./validate.js";

/**
 * Learning curves: agreement against the number of human-coded training turns, so a researcher
 * sees when more hand-coding stops paying. Which turns make up a size is a random draw, and with
 * few turns the draw matters, so every point is the mean over several seeds (each seed its own
 * fold assignment and its own draw), with the lowest and highest seed beside it. `colloquy code
 * --learning-curve` and `colloquy agree --learning-curve` both call `learningCurve` with the
 * settings the coder chose, so they print the same curve.
 */

export interface LearningCurvePoint {
  /** Human-coded turns trained on. */
  size: number;
  /** Mean kappa and agreement over the seeds. */
  kappa: number;
  agreement: number;
  /** Lowest and highest kappa over the seeds. */
  low: number;
  high: number;
  seeds: number;
  /** Turns predicted (per seed) at this size. */
  n: number;
}

export const CURVE_SEEDS = [1, 2, 3];
const SIZES = [25, 50, 100, 200, 400, 800, 1600, 3200];

export interface CurveOptions {
  settings: ModelSettings;
  folds?: number;
  seeds?: readonly number[];
  sizes?: readonly number[];
}

function summarise(size: number, runs: readonly { kappa: number; agreement: number; n: number }[]): LearningCurvePoint {
  const ok = runs.filter((r) => Number.isFinite(r.kappa));
  const mean = (f: (r: (typeof runs)[number]) => number) => (ok.length ? ok.reduce((s, r) => s + f(r), 0) / ok.length : NaN);
  return {
    size,
    kappa: mean((r) => r.kappa),
    agreement: mean((r) => r.agreement),
    low: ok.length ? Math.min(...ok.map((r) => r.kappa)) : NaN,
    high: ok.length ? Math.max(...ok.map((r) => r.kappa)) : NaN,
    seeds: ok.length,
    n: Math.max(0, ...runs.map((r) => r.n)),
  };
}

/** Sizes below `largest`, then `largest` itself. */
const sizesUpTo = (largest: number, sizes: readonly number[] = SIZES) => sizes.filter((s) => s < largest).concat(largest);

/** The first `size` turns of `pool` in a seeded order: a random draw of turns. */
function drawOrder<T>(pool: readonly T[], seed: number): T[] {
  return shuffleInPlace([...pool], mulberry32(seed));
}

function trainOrNot(codebook: Codebook, examples: readonly TrainingExample[], settings: ModelSettings) {
  try {
    return trainLearnedModel(codebook, examples, settings);
  } catch {
    return undefined; // one category only in so small a draw: its turns stay unpredicted
  }
}

/**
 * Cross-validated curve: per seed, sessions are dealt into folds; each fold is predicted by models
 * trained on random draws of 25, 50, 100, … turns of the other folds.
 */
export function learningCurve(codebook: Codebook, examples: readonly GroupedExample[], options: CurveOptions): LearningCurvePoint[] {
  const seeds = options.seeds ?? CURVE_SEEDS;
  const groups = new Set(examples.map((e) => e.group)).size;
  const folds = Math.min(options.folds ?? 5, groups);
  if (folds < 2) return [];
  const sizes = sizesUpTo(Math.floor((examples.length * (folds - 1)) / folds), options.sizes);
  const runs = sizes.map(() => [] as { kappa: number; agreement: number; n: number }[]);
  for (const seed of seeds) {
    const foldOf = new Map(shuffledSessions(examples, seed).map((g, i) => [g, i % folds]));
    const predictions = sizes.map(() => examples.map((): Prediction | undefined => undefined));
    for (let f = 0; f < folds; f++) {
      const pool = drawOrder(
        examples.filter((e) => foldOf.get(e.group) !== f),
        seed * 1000 + f,
      );
      sizes.forEach((size, s) => {
        const model = trainOrNot(codebook, pool.slice(0, size), options.settings);
        if (model) examples.forEach((e, i) => foldOf.get(e.group) === f && (predictions[s][i] = predictLearned(model, e.terms)));
      });
    }
    sizes.forEach((_, s) => runs[s].push(agreementOf(codebook, examples, predictions[s])));
  }
  return sizes.map((size, s) => summarise(size, runs[s]));
}

/**
 * Held-out curve: per seed, models trained on random draws of 25, 50, 100, … turns of `pool`
 * predict every turn of `evaluation`, whose sessions must not be in the pool. This is the curve
 * `colloquy agree --learning-curve` prints for a held-out part of a study.
 */
export function heldOutCurve(
  codebook: Codebook,
  pool: readonly TrainingExample[],
  evaluation: readonly TrainingExample[],
  options: CurveOptions,
): LearningCurvePoint[] {
  const seeds = options.seeds ?? CURVE_SEEDS;
  const sizes = sizesUpTo(pool.length, options.sizes);
  const runs = sizes.map(() => [] as { kappa: number; agreement: number; n: number }[]);
  const score = (examples: readonly TrainingExample[]) => {
    const model = trainOrNot(codebook, examples, options.settings);
    return model
      ? agreementOf(
          codebook,
          evaluation,
          evaluation.map((e) => predictLearned(model, e.terms)),
        )
      : { kappa: NaN, agreement: NaN, n: 0 };
  };
  // The whole pool is the same training set whatever the seed: trained once (in the pool's own order).
  const whole = score(pool);
  for (const seed of seeds) {
    const ordered = drawOrder(pool, seed);
    sizes.forEach((size, s) => runs[s].push(size === pool.length ? whole : score(ordered.slice(0, size))));
  }
  return sizes.map((size, s) => summarise(size, runs[s]));
}
