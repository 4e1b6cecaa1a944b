import { cohenKappa } from "../../analysis/reliability/kappa.js";
import { mulberry32, shuffleInPlace } from "../../util/random.js";
import type { Codebook } from "../codebook/schema.js";
import type { LogisticOptions } from "./logistic.js";
import { predictLearned, trainLearnedModel, type Prediction, type TrainingExample } from "./model.js";

/**
 * Cross-validation grouped by session: the sessions are dealt into folds, and each fold is
 * predicted by a model trained on the others, so no session is in both training and evaluation
 * (turns of one conversation are alike; a random split of turns would flatter the coder). The
 * out-of-fold predictions are what the learned coder stores for the human-coded turns, so
 * `colloquy agree` between it and the human coders is an honest estimate, never a re-reading of
 * its own training answers.
 */

export interface GroupedExample extends TrainingExample {
  /** Session id: the unit kept together in one fold. */
  group: string;
}

export interface Validation {
  folds: number;
  /** Out-of-fold prediction per example (same order); undefined when its fold could not be trained. */
  predictions: (Prediction | undefined)[];
  /**
   * Cohen's kappa between the human codes and the out-of-fold predictions (nominal: first code;
   * scales: linear-weighted, averaged over scales). NaN when there were fewer than two sessions.
   */
  kappa: number;
  /** Percent agreement on the same pairs (scales: exact rating). */
  agreement: number;
  n: number;
}

/**
 * Above this many coded turns, the fold models are trained on whole sessions drawn (seeded) until
 * about this many turns are in: training 5 models on 20,000 turns would cost minutes. Every
 * session, drawn or not, is still predicted by the model of its own fold, which never saw it.
 */
export const MAX_VALIDATION_EXAMPLES = 5_000;

/** Visits per fold's training: the folds together cost about twice the final model. */
const FOLD_VISITS = 40_000;

/** The examples' sessions in a seeded order (the same for cross-validation and the learning curve). */
function shuffledSessions(examples: readonly GroupedExample[], seed = 1): string[] {
  return shuffleInPlace([...new Set(examples.map((e) => e.group))].sort(), mulberry32(seed));
}

export function crossValidate(
  codebook: Codebook,
  examples: readonly GroupedExample[],
  options: { folds?: number; seed?: number; logistic?: Partial<LogisticOptions>; maxExamples?: number } = {},
): Validation {
  const predictions: (Prediction | undefined)[] = examples.map(() => undefined);
  // Sessions in a seeded order; keep the first up to the validation budget; deal them into folds.
  const shuffled = shuffledSessions(examples, options.seed);
  const sizes = new Map<string, number>();
  for (const e of examples) sizes.set(e.group, (sizes.get(e.group) ?? 0) + 1);
  const chosen: string[] = [];
  let total = 0;
  for (const g of shuffled) {
    if (total >= (options.maxExamples ?? MAX_VALIDATION_EXAMPLES)) break;
    chosen.push(g);
    total += sizes.get(g)!;
  }
  const folds = Math.min(options.folds ?? 5, chosen.length);
  if (folds < 2) return { folds, predictions, kappa: NaN, agreement: NaN, n: 0 };
  // Every session has a fold (the drawn ones first, so they spread evenly); only drawn ones train.
  const foldOf = new Map(shuffled.map((g, i) => [g, i % folds]));
  const drawn = new Set(chosen);
  for (let f = 0; f < folds; f++) {
    const train = examples.filter((e) => drawn.has(e.group) && foldOf.get(e.group) !== f);
    let model;
    try {
      model = trainLearnedModel(codebook, train, { visits: FOLD_VISITS, ...options.logistic });
    } catch {
      continue; // a fold whose training part has one category only: its turns stay unpredicted
    }
    examples.forEach((e, i) => {
      if (foldOf.get(e.group) === f) predictions[i] = predictLearned(model, e.terms);
    });
  }
  return { folds, predictions, ...agreementOf(codebook, examples, predictions) };
}

/** Kappa and percent agreement of predictions against the examples' human codes. */
export function agreementOf(
  codebook: Codebook,
  examples: readonly TrainingExample[],
  predictions: readonly (Prediction | undefined)[],
): { kappa: number; agreement: number; n: number } {
  if (codebook.kind === "nominal") {
    const pairs = examples.flatMap((e, i) => (predictions[i]?.codes?.[0] && e.codes?.[0] ? [[e.codes[0], predictions[i]!.codes![0]] as const] : []));
    if (pairs.length === 0) return { kappa: NaN, agreement: NaN, n: 0 };
    const k = cohenKappa(
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
    );
    return { kappa: k.kappa, agreement: pairs.filter(([a, b]) => a === b).length / pairs.length, n: pairs.length };
  }
  const kappas: number[] = [];
  let same = 0;
  let n = 0;
  for (const scale of codebook.scales) {
    const pairs = examples.flatMap((e, i) => {
      const human = e.scores?.[scale.id];
      const machine = predictions[i]?.scores?.[scale.id];
      return typeof human === "number" && typeof machine === "number" ? [[human, machine] as const] : [];
    });
    if (pairs.length === 0) continue;
    const labels = Array.from({ length: scale.points }, (_, i) => i + 1);
    const k = cohenKappa(
      pairs.map((p) => p[0]),
      pairs.map((p) => p[1]),
      { weights: "linear", labels },
    );
    if (Number.isFinite(k.kappa)) kappas.push(k.kappa);
    same += pairs.filter(([a, b]) => a === b).length;
    n += pairs.length;
  }
  return { kappa: kappas.length ? kappas.reduce((a, b) => a + b, 0) / kappas.length : NaN, agreement: n ? same / n : NaN, n };
}

export interface LearningCurvePoint {
  /** Human-coded turns trained on. */
  size: number;
  kappa: number;
  agreement: number;
  /** Turns predicted (out of fold) at this size. */
  n: number;
}

/**
 * Agreement against training-set size, so a researcher sees when more hand-coding stops paying:
 * in each session-grouped fold, models are trained on the first 25, 50, 100, … turns of the
 * other folds (in a seeded order of whole sessions) and predict the held-out fold.
 */
export function learningCurve(
  codebook: Codebook,
  examples: readonly GroupedExample[],
  options: { folds?: number; seed?: number; sizes?: number[] } = {},
): LearningCurvePoint[] {
  const groups = shuffledSessions(examples, options.seed);
  const folds = Math.min(options.folds ?? 5, groups.length);
  if (folds < 2) return [];
  const foldOf = new Map(groups.map((g, i) => [g, i % folds]));
  const rank = new Map(groups.map((g, i) => [g, i]));
  const largest = Math.floor((examples.length * (folds - 1)) / folds);
  const sizes = (options.sizes ?? [25, 50, 100, 200, 400, 800, 1600, 3200]).filter((s) => s < largest).concat(largest);
  return sizes.map((size) => {
    const predictions: (Prediction | undefined)[] = examples.map(() => undefined);
    for (let f = 0; f < folds; f++) {
      // Whole sessions in the seeded order, so a size means "the first sessions a person coded".
      const pool = examples.filter((e) => foldOf.get(e.group) !== f).sort((a, b) => rank.get(a.group)! - rank.get(b.group)!);
      let model;
      try {
        model = trainLearnedModel(codebook, pool.slice(0, size), { visits: FOLD_VISITS });
      } catch {
        continue;
      }
      examples.forEach((e, i) => {
        if (foldOf.get(e.group) === f) predictions[i] = predictLearned(model, e.terms);
      });
    }
    return { size, ...agreementOf(codebook, examples, predictions) };
  });
}

/**
 * Agreement on an evaluation set against training size: models trained on the first 25, 50,
 * 100, … turns of `pool` (whole sessions in the same seeded order as `learningCurve`) predict
 * every turn of `evaluation`, whose sessions must not be in the pool. This is the curve
 * `colloquy agree --learning-curve` prints for a held-out part of a study.
 */
export function heldOutCurve(
  codebook: Codebook,
  pool: readonly GroupedExample[],
  evaluation: readonly TrainingExample[],
  options: { seed?: number; sizes?: number[] } = {},
): LearningCurvePoint[] {
  const rank = new Map(shuffledSessions(pool, options.seed).map((g, i) => [g, i]));
  const ordered = [...pool].sort((a, b) => rank.get(a.group)! - rank.get(b.group)!);
  const sizes = (options.sizes ?? [25, 50, 100, 200, 400, 800, 1600, 3200]).filter((s) => s < ordered.length).concat(ordered.length);
  return sizes.map((size) => {
    let model;
    try {
      model = trainLearnedModel(codebook, ordered.slice(0, size), { visits: FOLD_VISITS });
    } catch {
      return { size, kappa: NaN, agreement: NaN, n: 0 };
    }
    const predictions = evaluation.map((e) => predictLearned(model, e.terms));
    return { size, ...agreementOf(codebook, evaluation, predictions) };
  });
}
