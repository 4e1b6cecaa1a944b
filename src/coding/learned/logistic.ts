import type { SparseVector } from "./features.js";
import { minimise, type LbfgsResult } from "./lbfgs.js";

/**
 * L2-regularised logistic regression on sparse vectors, trained to convergence by L-BFGS on the
 * whole training set at once (as scikit-learn's LogisticRegression(solver="lbfgs")):
 *  - "softmax": one label per example (multinomial cross-entropy);
 *  - "one-vs-rest": any number of labels per example (an independent sigmoid per class).
 * The objective is scikit-learn's, divided by the sum of the example weights:
 *   (1 / Σw) · [ Σᵢ wᵢ · lossᵢ + ‖W‖² / (2C) ]     (the intercepts are not penalised),
 * so C means what it means there. Full-batch and without randomness: the same examples in the
 * same order give the same model, bit for bit (the caller puts them in a canonical order).
 * Only the features seen in training get a weight column, so memory is classes x seen features.
 */

export type LogisticKind = "softmax" | "one-vs-rest";

export interface LogisticOptions {
  /** Inverse regularisation strength (scikit-learn's C). */
  c: number;
  /** Per-example weights (e.g. class weights); default 1 each. */
  weights?: Float64Array;
  /** Start from these parameters (a neighbouring C's solution on the same data: warm start). */
  start?: LogisticModel;
  maxIterations?: number;
}

export interface LogisticModel {
  kind: LogisticKind;
  classes: number;
  /** Feature (a vocabulary id, features.ts) -> weight column, -1 (or beyond the end) for features not seen in training. */
  columns: Int32Array;
  /** weights[column * classes + class]. */
  weights: Float64Array;
  bias: Float64Array;
  /** How the optimiser ended. */
  fit: LbfgsResult;
}

/** The training vectors as one compressed sparse row matrix over the seen columns. */
interface Rows {
  start: Int32Array;
  column: Int32Array;
  value: Float64Array;
  width: number;
  columns: Int32Array;
}

function rowsOf(xs: readonly SparseVector[]): Rows {
  let features = 0;
  for (const x of xs) for (const j of x.index) features = Math.max(features, j + 1);
  const columns = new Int32Array(features).fill(-1);
  let width = 0;
  let nnz = 0;
  for (const x of xs) {
    nnz += x.index.length;
    for (const j of x.index) if (columns[j] < 0) columns[j] = width++;
  }
  const start = new Int32Array(xs.length + 1);
  const column = new Int32Array(nnz);
  const value = new Float64Array(nnz);
  let at = 0;
  xs.forEach((x, i) => {
    for (let a = 0; a < x.index.length; a++, at++) {
      column[at] = columns[x.index[a]];
      value[at] = x.value[a];
    }
    start[i + 1] = at;
  });
  return { start, column, value, width, columns };
}

/**
 * Class scores of one sparse row: `out[k]` = bias[biasAt + k] + Σₐ weights[column[a]·K + k]·value[a]
 * over a in [from, to), K = out.length. The classes go four at a time, summed in locals:
 * accumulating into `out` directly made every addition wait for the previous store to the same
 * element, and this loop is most of the training and coding time. The additions are done in the
 * same order either way, so the numbers are the same.
 */
function rowScores(
  column: Int32Array,
  value: Float64Array,
  from: number,
  to: number,
  weights: Float64Array,
  bias: Float64Array,
  biasAt: number,
  out: Float64Array,
): void {
  const classes = out.length;
  let k = 0;
  for (; k + 4 <= classes; k += 4) {
    let s0 = bias[biasAt + k];
    let s1 = bias[biasAt + k + 1];
    let s2 = bias[biasAt + k + 2];
    let s3 = bias[biasAt + k + 3];
    for (let a = from; a < to; a++) {
      const at = column[a] * classes + k;
      const v = value[a];
      s0 += weights[at] * v;
      s1 += weights[at + 1] * v;
      s2 += weights[at + 2] * v;
      s3 += weights[at + 3] * v;
    }
    out[k] = s0;
    out[k + 1] = s1;
    out[k + 2] = s2;
    out[k + 3] = s3;
  }
  for (; k < classes; k++) {
    let s = bias[biasAt + k];
    for (let a = from; a < to; a++) s += weights[column[a] * classes + k] * value[a];
    out[k] = s;
  }
}

/** gradient[j·K + k] += residual[k]·v over row `i`'s entries (and the bias), in the blocks of `rowScores`. */
function addRowGradient(rows: Rows, i: number, residual: Float64Array, bias: number, gradient: Float64Array): void {
  const { start, column, value } = rows;
  const classes = residual.length;
  const from = start[i];
  const to = start[i + 1];
  for (let k = 0; k < classes; k++) gradient[bias + k] += residual[k];
  let k = 0;
  for (; k + 4 <= classes; k += 4) {
    const r0 = residual[k];
    const r1 = residual[k + 1];
    const r2 = residual[k + 2];
    const r3 = residual[k + 3];
    for (let a = from; a < to; a++) {
      const at = column[a] * classes + k;
      const v = value[a];
      gradient[at] += r0 * v;
      gradient[at + 1] += r1 * v;
      gradient[at + 2] += r2 * v;
      gradient[at + 3] += r3 * v;
    }
  }
  for (; k < classes; k++) {
    const r = residual[k];
    for (let a = from; a < to; a++) gradient[column[a] * classes + k] += r * value[a];
  }
}

/** What the objective needs besides the parameters. */
interface Problem {
  kind: LogisticKind;
  rows: Rows;
  classes: number;
  /** isTarget[i · classes + k]: 1 when class k is a label of example i. */
  isTarget: Uint8Array;
  weights: Float64Array;
  totalWeight: number;
  lambda: number;
  /** Where the biases start in the parameter vector (the weights come first). */
  size: number;
  /** Scratch: one row's scores, then its residuals. */
  scores: Float64Array;
}

/** The objective at `x`, its gradient written into `gradient`. */
function lossAndGradient(p: Problem, x: Float64Array, gradient: Float64Array): number {
  const { kind, rows, classes, isTarget, weights, size, scores, lambda } = p;
  gradient.fill(0);
  let loss = 0;
  const n = rows.start.length - 1;
  for (let i = 0; i < n; i++) {
    rowScores(rows.column, rows.value, rows.start[i], rows.start[i + 1], x, x, size, scores);
    const w = weights[i];
    const y = i * classes;
    if (kind === "softmax") {
      let max = -Infinity;
      for (let k = 0; k < classes; k++) max = Math.max(max, scores[k]);
      let sum = 0;
      for (let k = 0; k < classes; k++) sum += Math.exp(scores[k] - max);
      const logSum = max + Math.log(sum);
      for (let k = 0; k < classes; k++) {
        if (isTarget[y + k]) loss += w * (logSum - scores[k]);
        scores[k] = w * (Math.exp(scores[k] - logSum) - isTarget[y + k]);
      }
    } else {
      for (let k = 0; k < classes; k++) {
        const s = scores[k];
        // log(1 + e^s) - y·s, computed without overflow.
        loss += w * ((s > 0 ? s + Math.log1p(Math.exp(-s)) : Math.log1p(Math.exp(s))) - isTarget[y + k] * s);
        scores[k] = w * (1 / (1 + Math.exp(-s)) - isTarget[y + k]);
      }
    }
    // scores now holds the residuals: d loss / d score.
    addRowGradient(rows, i, scores, size, gradient);
  }
  let penalty = 0;
  for (let j = 0; j < size; j++) {
    penalty += x[j] * x[j];
    gradient[j] += lambda * x[j];
  }
  for (let j = 0; j < gradient.length; j++) gradient[j] /= p.totalWeight;
  return (loss + (lambda * penalty) / 2) / p.totalWeight;
}

/** `targets[i]`: the class indexes of example i (exactly one for softmax). */
export function trainLogistic(
  kind: LogisticKind,
  xs: readonly SparseVector[],
  targets: readonly (readonly number[])[],
  classes: number,
  options: LogisticOptions,
): LogisticModel {
  const rows = rowsOf(xs);
  const size = rows.width * classes;
  const theta = new Float64Array(size + classes);
  if (options.start && options.start.weights.length === size) {
    // Same data (same columns): continue from the neighbour's solution.
    theta.set(options.start.weights);
    theta.set(options.start.bias, size);
  }
  const weights = options.weights ?? new Float64Array(xs.length).fill(1);
  let totalWeight = 0;
  for (const w of weights) totalWeight += w;
  const isTarget = new Uint8Array(xs.length * classes);
  targets.forEach((t, i) => t.forEach((k) => (isTarget[i * classes + k] = 1)));
  const problem: Problem = { kind, rows, classes, isTarget, weights, totalWeight, lambda: 1 / options.c, size, scores: new Float64Array(classes) };
  const fit = minimise(
    (x, gradient) => lossAndGradient(problem, x, gradient),
    theta,
    options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations },
  );
  return { kind, classes, columns: rows.columns, weights: theta.slice(0, size), bias: theta.slice(size), fit };
}

/** One vector's entries as model columns (those the model has), reused from call to call. */
let entryColumn = new Int32Array(1024);
let entryValue = new Float64Array(1024);

/** Class scores (logits) of one vector. */
export function logisticScores(model: LogisticModel, x: SparseVector): Float64Array {
  const out = new Float64Array(model.classes);
  scoresInto(model, x.index, x.value, x.index.length, out);
  return out;
}

/** Class scores of the vector's first `length` entries (ids and values), written into `out` (model.classes long). */
export function scoresInto(model: LogisticModel, index: ArrayLike<number>, value: ArrayLike<number>, length: number, out: Float64Array): void {
  if (length > entryColumn.length) {
    entryColumn = new Int32Array(length);
    entryValue = new Float64Array(length);
  }
  let n = 0;
  const { columns } = model;
  for (let a = 0; a < length; a++) {
    const j = index[a];
    const column = j < columns.length ? columns[j] : -1;
    if (column < 0) continue;
    entryColumn[n] = column;
    entryValue[n++] = value[a];
  }
  rowScores(entryColumn, entryValue, 0, n, model.weights, model.bias, 0, out);
}

/**
 * Scores to probabilities, each score divided by `temperature` first (1 = as trained; above 1
 * softens overconfident probabilities): a sigmoid per class (one-vs-rest) or the softmax.
 */
export function probabilities(kind: LogisticKind, scores: Float64Array, temperature = 1): Float64Array {
  const out = new Float64Array(scores.length);
  if (kind === "one-vs-rest") {
    for (let k = 0; k < scores.length; k++) out[k] = 1 / (1 + Math.exp(-scores[k] / temperature));
    return out;
  }
  let max = -Infinity;
  for (let k = 0; k < scores.length; k++) max = Math.max(max, scores[k] / temperature);
  let sum = 0;
  for (let k = 0; k < scores.length; k++) sum += out[k] = Math.exp(scores[k] / temperature - max);
  for (let k = 0; k < scores.length; k++) out[k] /= sum;
  return out;
}

/** Class probabilities of one vector (softmax: they sum to 1; one-vs-rest: each in [0, 1]). */
export function predictLogistic(model: LogisticModel, x: SparseVector, temperature = 1): Float64Array {
  return probabilities(model.kind, logisticScores(model, x), temperature);
}
