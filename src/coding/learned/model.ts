import type { Codebook } from "../codebook/schema.js";
import type { Session } from "../../transcript/schema.js";
import { fitIdf, turnVector, vectorise, withoutContext, type Idf, type SparseVector, type TurnTerms } from "./features.js";
import { logisticScores, scoresInto, probabilities, trainLogistic, type LogisticKind, type LogisticModel } from "./logistic.js";

/**
 * A codebook-shaped classifier: for a nominal codebook one head over its categories (softmax, or
 * one-vs-rest when the codebook allows several codes per turn); for a scales codebook one head per
 * scale over its ratings, predicting the probability-weighted mean rating, rounded (so a scale
 * keeps its order). A head is one or two logistic regressions: one on the text alone, one on the
 * text and the turn's context; with both, their scores are averaged. Whether the context helps
 * could not be told by a plain comparison of cross-validated kappas on a study's few hundred
 * codes (bench/learned-quality.ts: the choice went the wrong way on both corpora it measures), and
 * the average is never far from the better of the two, so the average codes unless the folds show
 * one model alone measurably better (validate.ts, ViewComparison); then only that one is trained.
 */

/** One human-coded turn to learn from. */
export interface TrainingExample {
  terms: TurnTerms;
  codes?: readonly string[];
  scores?: Readonly<Record<string, number>>;
}

/** What a model is trained with; chosen per study by grouped cross-validation (validate.ts). */
export interface ModelSettings {
  /** Inverse regularisation strength (scikit-learn's C). */
  c: number;
  /** Fit a model on the text features alone. */
  text: boolean;
  /** Fit a model on the text and the context features (speaker kind, neighbouring turns). With `text` too, their scores are averaged. */
  context: boolean;
  /** Weight examples by n / (classes x n_class) (scikit-learn's class_weight="balanced"); single-label heads only. */
  balanced: boolean;
}

/** `models`: the text model (with `text`), then the text-and-context model (with `context`); their scores are averaged. */
type Head = { kind: "categories"; classes: string[]; models: LogisticModel[] } | { kind: "scale"; scale: string; classes: number[]; models: LogisticModel[] };

/** The feature views a model is trained on, in this order: text only (`text`); text and context (`context`). */
const viewsOf = (settings: ModelSettings): boolean[] => [...(settings.text ? [false] : []), ...(settings.context ? [true] : [])];

/** Which model codes, in words (provenance, the printed estimate and summary). */
export function describeViews(settings: { text: boolean; context: boolean }): string {
  if (settings.text && settings.context) return "the text model averaged with the text-and-context model";
  return settings.context ? "the text-and-context model alone" : "the text model alone";
}

export interface LearnedModel {
  idf: Idf;
  settings: ModelSettings;
  heads: Head[];
}

export interface Prediction {
  codes?: string[];
  scores?: Record<string, number>;
  /** Per category (nominal) or per "scale=rating" (scales). */
  probabilities: Record<string, number>;
  /** Probability of what was predicted (lowest over a turn's scales or chosen codes): 0..1. */
  confidence: number;
  /** Probability of the best class minus the second best (lowest over heads): small = doubtful. */
  margin: number;
}

/** The class indexes a head should learn for each example it has a label for. */
function targetsOf(codebook: Codebook, examples: readonly TrainingExample[]): { head: Omit<Head, "models">; kind: LogisticKind; rows: [number, number[]][] }[] {
  if (codebook.kind === "nominal") {
    const classes = codebook.categories.map((c) => c.id).filter((id) => examples.some((e) => e.codes?.includes(id)));
    if (classes.length < 2) throw new Error(`the human codes use ${classes.length} category of ${codebook.id}; a learned coder needs examples of at least two`);
    const position = new Map(classes.map((c, i) => [c, i]));
    // Several codes per turn only where the codebook allows it; otherwise the first (one per turn).
    const kind = codebook.multiple ? "one-vs-rest" : "softmax";
    const rows = examples
      .map((e, i): [number, number[]] => [i, (e.codes ?? []).map((c) => position.get(c)).filter((k): k is number => k !== undefined)])
      .filter(([, t]) => t.length > 0)
      .map(([i, t]): [number, number[]] => [i, kind === "softmax" ? [t[0]] : t]);
    return [{ head: { kind: "categories", classes }, kind, rows }];
  }
  const heads = codebook.scales.flatMap((scale) => {
    const rated = examples.map((e, i) => [i, e.scores?.[scale.id]] as const).filter((r): r is readonly [number, number] => typeof r[1] === "number");
    const classes = [...new Set(rated.map(([, r]) => r))].sort((a, b) => a - b);
    if (classes.length < 2) return [];
    const position = new Map(classes.map((c, i) => [c, i]));
    return [
      {
        head: { kind: "scale" as const, scale: scale.id, classes },
        kind: "softmax" as const,
        rows: rated.map(([i, r]): [number, number[]] => [i, [position.get(r)!]]),
      },
    ];
  });
  if (heads.length === 0) throw new Error(`no scale of ${codebook.id} has human ratings of two different values; a learned coder needs them`);
  return heads;
}

/** scikit-learn's "balanced" weights: n / (classes x count of the example's class). */
function balancedWeights(rows: readonly [number, number[]][], classes: number): Float64Array {
  const count = new Float64Array(classes);
  for (const [, t] of rows) count[t[0]]++;
  const present = count.filter((c) => c > 0).length;
  return Float64Array.from(rows, ([, t]) => rows.length / (present * count[t[0]]));
}

/** A training set's idf and its turns' vectors, per view (text only; text and context). */
export interface TrainingFeatures {
  idf: Idf;
  /** Without `text` (trainingFeatures), undefined. */
  text?: SparseVector[];
  withContext: SparseVector[];
}

/**
 * Computed once per training set: cross-validation tries several settings on the same one.
 * Without `text`, no text-only vectors: a text-and-context model alone needs none, and at 20,000
 * turns they were ~80 MB held through its fit.
 */
export function trainingFeatures(examples: readonly TrainingExample[], text = true): TrainingFeatures {
  const idf = fitIdf(examples.map((e) => e.terms));
  const withContext = examples.map((e) => vectorise(e.terms, idf));
  return { idf, ...(text ? { text: withContext.map((x) => withoutContext(x, idf)) } : {}), withContext };
}

export interface TrainOptions {
  /** A model of the same examples to continue from (a warm start). */
  start?: LearnedModel;
  /** `trainingFeatures(examples)`, when the caller already has it. */
  features?: TrainingFeatures;
}

/** Train on `examples` (in the order given: callers pass a canonical order). */
export function trainLearnedModel(codebook: Codebook, examples: readonly TrainingExample[], settings: ModelSettings, options: TrainOptions = {}): LearnedModel {
  const { start } = options;
  const { idf, text, withContext } = options.features ?? trainingFeatures(examples, settings.text);
  const views = viewsOf(settings).map((context) => (context ? withContext : (text ?? withContext.map((x) => withoutContext(x, idf)))));
  if (views.length === 0) throw new Error("a learned model needs the text model, the text-and-context model or both");
  const heads = targetsOf(codebook, examples).map(({ head, kind, rows }, h): Head => {
    const classes = head.classes.length;
    const weights = settings.balanced && kind === "softmax" ? balancedWeights(rows, classes) : undefined;
    const models = views.map((vectors, v) =>
      trainLogistic(
        kind,
        rows.map(([i]) => vectors[i]),
        rows.map(([, t]) => t),
        classes,
        { c: settings.c, weights, start: start?.heads[h]?.models[v] },
      ),
    );
    return { ...head, models } as Head;
  });
  return { idf, settings, heads };
}

/** Each head's class scores (logits, averaged over its models) for one turn: what calibration rescales. */
export function headScores(model: LearnedModel, terms: TurnTerms): Float64Array[] {
  return vectorScores(model, vectorise(terms, model.idf, model.settings.context));
}

/**
 * `headScores` of a turn's vector under the model's idf. One vector serves both models: the blocks
 * are normalised apart, so the text blocks are the same with or without the context block, and the
 * text model never gave the context a column.
 */
export function vectorScores(model: LearnedModel, x: SparseVector): Float64Array[] {
  return meanScores(model, x.index, x.value, x.index.length);
}

/** One model's scores, before they are added into its head's mean, reused from call to call. */
let scratch = new Float64Array(16);

/**
 * Each head's class scores, the mean of its models' (as `averageScores`), of the vector's first
 * `length` entries; each model's scores are made in a reused array rather than a new one.
 */
function meanScores(model: LearnedModel, index: ArrayLike<number>, value: ArrayLike<number>, length: number): Float64Array[] {
  return model.heads.map((head) => {
    const sum = new Float64Array(head.classes.length);
    if (scratch.length < sum.length) scratch = new Float64Array(sum.length);
    const out = scratch.subarray(0, sum.length);
    for (const m of head.models) {
      scoresInto(m, index, value, length, out);
      addShare(sum, out, head.models.length);
    }
    return sum;
  });
}

/** Each head's class scores from each of its models (in `viewsOf` order), before they are averaged. */
export function modelScores(model: LearnedModel, x: SparseVector): Float64Array[][] {
  return model.heads.map((head) => head.models.map((m) => logisticScores(m, x)));
}

/** The mean of a head's models' scores. */
export function averageScores(scores: readonly Float64Array[]): Float64Array {
  const sum = new Float64Array(scores[0].length);
  for (const s of scores) addShare(sum, s, scores.length);
  return sum;
}

/** Adds one of a head's `models` models' scores, each divided by `models`, into `sum` (their mean, added in model order). */
function addShare(sum: Float64Array, scores: Float64Array, models: number): void {
  for (let k = 0; k < sum.length; k++) sum[k] += scores[k] / models;
}

/**
 * The part of a model with both views that is one of them: its text model (`context` false) or its
 * text-and-context model (`context` true), as if trained with only that view's setting.
 */
export function oneView(model: LearnedModel, context: boolean): LearnedModel {
  if (!model.settings.text || !model.settings.context) throw new Error("oneView: the model has one view only");
  const v = context ? 1 : 0;
  return { idf: model.idf, settings: { ...model.settings, text: !context, context }, heads: model.heads.map((h) => ({ ...h, models: [h.models[v]] }) as Head) };
}

/** The prediction from each head's scores, divided by `temperature` (calibration.ts) first. */
export function decide(model: LearnedModel, scores: readonly Float64Array[], temperature = 1): Prediction {
  const probs: Record<string, number> = {};
  const out: Prediction = { probabilities: probs, confidence: 1, margin: 1 };
  model.heads.forEach((head, h) => {
    const kind = head.models[0].kind;
    const p = probabilities(kind, scores[h], temperature);
    const order = [...p.keys()].sort((a, b) => p[b] - p[a] || a - b);
    out.margin = Math.min(out.margin, p[order[0]] - (p[order[1]] ?? 0));
    if (head.kind === "categories") {
      head.classes.forEach((c, k) => (probs[c] = round(p[k])));
      // One-vs-rest: every class over one half, and at least the most likely one, most likely first
      // (so the first code is the model's best guess, as for one code per turn).
      const chosen = kind === "one-vs-rest" ? order.filter((k, i) => i === 0 || p[k] >= 0.5) : [order[0]];
      out.codes = chosen.map((k) => head.classes[k]);
      out.confidence = Math.min(out.confidence, ...chosen.map((k) => p[k]));
    } else {
      head.classes.forEach((r, k) => (probs[`${head.scale}=${r}`] = round(p[k])));
      const mean = head.classes.reduce((s, r, k) => s + r * p[k], 0);
      const nearest = head.classes.reduce((a, b) => (Math.abs(b - mean) < Math.abs(a - mean) ? b : a));
      out.scores = { ...out.scores, [head.scale]: nearest };
      out.confidence = Math.min(out.confidence, p[head.classes.indexOf(nearest)]);
    }
  });
  return out;
}

export function predictLearned(model: LearnedModel, terms: TurnTerms, temperature = 1): Prediction {
  return decide(model, headScores(model, terms), temperature);
}

/**
 * `predictLearned(model, turnTerms(session, index), temperature)`, the same prediction, without a
 * turn's intermediate arrays (its terms, its vector, each model's scores): what coding every turn
 * of a study does (features.ts, turnVector, says why that matters).
 */
export function predictTurn(model: LearnedModel, session: Session, index: number, temperature = 1): Prediction {
  const x = turnVector(session, index, model.idf, model.settings.context);
  return decide(model, meanScores(model, x.index, x.value, x.length), temperature);
}

const round = (x: number) => Math.round(x * 1000) / 1000;
