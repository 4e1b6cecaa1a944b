import { decide, type LearnedModel, type Prediction, type TrainingExample } from "./model.js";
import { probabilities } from "./logistic.js";

/**
 * Temperature scaling (Guo et al., "On Calibration of Modern Neural Networks", ICML 2017): one
 * number T divides every score before the softmax (or sigmoid), fitted by minimising the negative
 * log-likelihood of out-of-fold predictions, so a model that is too sure of itself (T > 1) says
 * so less loudly. It never changes which code is predicted, only how sure the coder says it is.
 * The expected calibration error (ECE) is the gap between confidence and accuracy, averaged over
 * ten equal-width confidence bins weighted by their turns (Naeini et al. 2015; Guo et al. eq. 3).
 */

/** A turn's scores from a model that never saw it, with the human codes it is checked against. */
export interface Scored {
  model: LearnedModel;
  scores: Float64Array[];
  example: TrainingExample;
}

/** The human's class index in each head of `model` (-1: the head has no such class or no label). */
function targetIndexes(item: Scored): number[][] {
  return item.model.heads.map((head) => {
    if (head.kind === "scale") {
      const r = item.example.scores?.[head.scale];
      return typeof r === "number" ? [head.classes.indexOf(r)] : [];
    }
    const codes = item.example.codes ?? [];
    return (head.models[0].kind === "softmax" ? codes.slice(0, 1) : codes).map((c) => head.classes.indexOf(c));
  });
}

/** Mean negative log-likelihood of the human codes at temperature T (labels a model cannot predict are left out). */
function negativeLogLikelihood(items: readonly Scored[], targets: readonly number[][][], temperature: number): number {
  let total = 0;
  let n = 0;
  items.forEach((item, i) =>
    item.model.heads.forEach((head, h) => {
      const wanted = targets[i][h];
      if (wanted.length === 0 || wanted.includes(-1)) return;
      const kind = head.models[0].kind;
      const p = probabilities(kind, item.scores[h], temperature);
      if (kind === "softmax") total -= Math.log(Math.max(p[wanted[0]], 1e-300));
      else p.forEach((q, k) => (total -= Math.log(Math.max(wanted.includes(k) ? q : 1 - q, 1e-300))));
      n++;
    }),
  );
  return n === 0 ? 0 : total / n;
}

/** The temperature that minimises the NLL, by golden-section search on log T in [1/20, 20]; 1 when there is nothing to fit. */
export function fitTemperature(items: readonly Scored[]): number {
  const targets = items.map(targetIndexes);
  const f = (logT: number) => negativeLogLikelihood(items, targets, Math.exp(logT));
  let [a, b] = [Math.log(1 / 20), Math.log(20)];
  const ratio = (Math.sqrt(5) - 1) / 2;
  let c = b - ratio * (b - a);
  let d = a + ratio * (b - a);
  let [fc, fd] = [f(c), f(d)];
  for (let i = 0; i < 60; i++) {
    if (fc <= fd) {
      [b, d, fd] = [d, c, fc];
      c = b - ratio * (b - a);
      fc = f(c);
    } else {
      [a, c, fc] = [c, d, fd];
      d = a + ratio * (b - a);
      fd = f(d);
    }
  }
  const t = Math.exp((a + b) / 2);
  // Rounded so the stored settings (and the training hash) do not depend on the last bits.
  return Math.round(t * 1000) / 1000;
}

/** Whether a prediction's first code (or every rating) is the human's. */
export function correct(prediction: Prediction, example: TrainingExample): boolean {
  if (prediction.codes) return prediction.codes[0] === example.codes?.[0];
  return Object.entries(prediction.scores ?? {}).every(([scale, r]) => example.scores?.[scale] === r);
}

/** ECE over ten equal-width bins of confidence (0..1). */
export function expectedCalibrationError(pairs: readonly { confidence: number; correct: boolean }[], bins = 10): number {
  if (pairs.length === 0) return NaN;
  const count = new Float64Array(bins);
  const sure = new Float64Array(bins);
  const right = new Float64Array(bins);
  for (const p of pairs) {
    const b = Math.min(bins - 1, Math.floor(p.confidence * bins));
    count[b]++;
    sure[b] += p.confidence;
    right[b] += p.correct ? 1 : 0;
  }
  let ece = 0;
  for (let b = 0; b < bins; b++) if (count[b] > 0) ece += Math.abs(right[b] - sure[b]) / pairs.length;
  return ece;
}

/** Calibration of out-of-fold scores: one temperature, and the ECE before it and after it. */
export interface Calibration {
  temperature: number;
  /** ECE of the out-of-fold predictions as the model gives them. */
  eceBefore: number;
  /**
   * ECE after temperature scaling, cross-fitted: each fold's turns are scaled by a temperature
   * fitted on the other folds only, so the figure is not measured on what it was fitted to.
   */
  eceAfter: number;
}

export function calibrate(items: readonly Scored[], fold: readonly number[]): Calibration {
  const pairs = (temperatureOf: (i: number) => number) =>
    items.map((item, i) => {
      const p = decide(item.model, item.scores, temperatureOf(i));
      return { confidence: p.confidence, correct: correct(p, item.example) };
    });
  const folds = [...new Set(fold)];
  const perFold = new Map(folds.map((f) => [f, fitTemperature(items.filter((_, i) => fold[i] !== f))]));
  return {
    temperature: fitTemperature(items),
    eceBefore: expectedCalibrationError(pairs(() => 1)),
    eceAfter: expectedCalibrationError(pairs((i) => perFold.get(fold[i])!)),
  };
}
