import type { Codebook } from "../codebook/schema.js";
import { fitIdf, vectorise, type Idf, type TurnTerms } from "./features.js";
import { predictLogistic, trainLogistic, type LogisticModel, type LogisticOptions } from "./logistic.js";

/**
 * A codebook-shaped classifier: for a nominal codebook one head over its categories (softmax, or
 * one-vs-rest when the codebook allows several codes per turn); for a scales codebook one head per
 * scale over its ratings, predicting the probability-weighted mean rating, rounded (so a scale
 * keeps its order).
 */

/** One human-coded turn to learn from. */
export interface TrainingExample {
  terms: TurnTerms;
  codes?: readonly string[];
  scores?: Readonly<Record<string, number>>;
}

type Head = { kind: "categories"; classes: string[]; model: LogisticModel } | { kind: "scale"; scale: string; classes: number[]; model: LogisticModel };

export interface LearnedModel {
  idf: Idf;
  heads: Head[];
}

export interface Prediction {
  codes?: string[];
  scores?: Record<string, number>;
  /** Per category (nominal) or per "scale=rating" (scales). */
  probabilities: Record<string, number>;
  /** Probability of what was predicted (lowest over a turn's scales or chosen codes): 0..1. */
  confidence: number;
}

export function trainLearnedModel(codebook: Codebook, examples: readonly TrainingExample[], options: Partial<LogisticOptions> = {}): LearnedModel {
  const idf = fitIdf(examples.map((e) => e.terms));
  const vectors = examples.map((e) => vectorise(e.terms, idf));
  const heads: Head[] = [];
  if (codebook.kind === "nominal") {
    const classes = codebook.categories.map((c) => c.id).filter((id) => examples.some((e) => e.codes?.includes(id)));
    if (classes.length < 2) throw new Error(`the human codes use ${classes.length} category of ${codebook.id}; a learned coder needs examples of at least two`);
    const position = new Map(classes.map((c, i) => [c, i]));
    const kept = examples
      .map((e, i) => [i, (e.codes ?? []).map((c) => position.get(c)).filter((k): k is number => k !== undefined)] as const)
      .filter(([, t]) => t.length > 0);
    // Several codes per turn only where the codebook allows it; otherwise the first (one per turn).
    const kind = codebook.multiple ? "one-vs-rest" : "softmax";
    const targets = kept.map(([, t]) => (kind === "softmax" ? [t[0]] : t));
    heads.push({
      kind: "categories",
      classes,
      model: trainLogistic(
        kind,
        kept.map(([i]) => vectors[i]),
        targets,
        classes.length,
        options,
      ),
    });
  } else {
    for (const scale of codebook.scales) {
      const rated = examples.map((e, i) => [i, e.scores?.[scale.id]] as const).filter((r): r is readonly [number, number] => typeof r[1] === "number");
      const classes = [...new Set(rated.map(([, r]) => r))].sort((a, b) => a - b);
      if (classes.length < 2) continue;
      const position = new Map(classes.map((c, i) => [c, i]));
      heads.push({
        kind: "scale",
        scale: scale.id,
        classes,
        model: trainLogistic(
          "softmax",
          rated.map(([i]) => vectors[i]),
          rated.map(([, r]) => [position.get(r)!]),
          classes.length,
          options,
        ),
      });
    }
    if (heads.length === 0) throw new Error(`no scale of ${codebook.id} has human ratings of two different values; a learned coder needs them`);
  }
  return { idf, heads };
}

export function predictLearned(model: LearnedModel, terms: TurnTerms): Prediction {
  const x = vectorise(terms, model.idf);
  const probabilities: Record<string, number> = {};
  const out: Prediction = { probabilities, confidence: 1 };
  for (const head of model.heads) {
    const p = predictLogistic(head.model, x);
    if (head.kind === "categories") {
      head.classes.forEach((c, k) => (probabilities[c] = round(p[k])));
      const best = argmax(p);
      // One-vs-rest: every class over one half, and at least the most likely one.
      // Most probable first, so the first code is the model's best guess (as for one code per turn).
      const chosen =
        head.model.kind === "one-vs-rest"
          ? head.classes
              .map((_, k) => k)
              .filter((k) => p[k] >= 0.5 || k === best)
              .sort((a, b) => p[b] - p[a])
          : [best];
      out.codes = chosen.map((k) => head.classes[k]);
      out.confidence = Math.min(out.confidence, ...chosen.map((k) => p[k]));
    } else {
      head.classes.forEach((r, k) => (probabilities[`${head.scale}=${r}`] = round(p[k])));
      const mean = head.classes.reduce((s, r, k) => s + r * p[k], 0);
      const nearest = head.classes.reduce((a, b) => (Math.abs(b - mean) < Math.abs(a - mean) ? b : a));
      out.scores = { ...out.scores, [head.scale]: nearest };
      out.confidence = Math.min(out.confidence, p[head.classes.indexOf(nearest)]);
    }
  }
  return out;
}

function argmax(p: Float64Array): number {
  let best = 0;
  for (let k = 1; k < p.length; k++) if (p[k] > p[best]) best = k;
  return best;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
