import { createHash } from "node:crypto";
import type { Session } from "../../transcript/schema.js";
import type { Codebook } from "../codebook/schema.js";
import type { CodeRecord } from "../records.js";
import { turnTerms } from "./features.js";
import type { LogisticOptions } from "./logistic.js";
import { predictLearned, trainLearnedModel, type LearnedModel, type Prediction } from "./model.js";
import { crossValidate, learningCurve, type GroupedExample, type LearningCurvePoint, type Validation } from "./validate.js";

/**
 * The learned coder: a classifier trained on the study's own human codes (`--train human:alice`),
 * validated by session-grouped cross-validation before it codes anything, then coding every
 * other turn offline with a probability per category. Turns the humans coded get the
 * out-of-fold prediction (made by a model that never saw that session), so agreement measured
 * later on them is honest. Training is a few seconds even for thousands of coded turns, so the
 * model is trained afresh each run rather than stored; its training set's hash is stored in every
 * record, and codes made from another training set are re-made.
 */

/** Bump when features or training change in a way that changes codes. */
export const LEARNED_CODER_VERSION = "1";

export interface LearnedCoder {
  /** Hash of the training set and settings; records with another hash are out of date. */
  trainingHash: string;
  trainedOn: string[];
  /** Human-coded turns learned from (a turn coded by two people counts twice). */
  trainingSize: number;
  validation: Validation;
  /** Agreement against training size (computed on demand: it trains a model per size and fold). */
  learningCurve(): LearningCurvePoint[];
  /** The prediction for turn `index` of `session`. */
  predict(session: Session, index: number): Prediction & { heldOut: boolean };
  /** Settings shared by every record's provenance. */
  settings: Record<string, unknown>;
}

export interface LearnedCoderOptions {
  codebook: Codebook;
  /** Every session of the study (training turns are looked up in them). */
  sessions: readonly Session[];
  /** The human coders' current records of this codebook. */
  training: readonly CodeRecord[];
  trainedOn: readonly string[];
  seed?: number;
  folds?: number;
  logistic?: Partial<LogisticOptions>;
}

export function createLearnedCoder(options: LearnedCoderOptions): LearnedCoder {
  const { codebook } = options;
  const examples = trainingExamples(options.sessions, options.training);
  if (examples.length === 0)
    throw new Error(
      `no turn of this study is coded by ${options.trainedOn.join(", ")} in ${codebook.id}: code some by hand first (colloquy sheet / codes import)`,
    );
  const seed = options.seed ?? 1;
  const validation = crossValidate(codebook, examples, { folds: options.folds, seed, logistic: options.logistic });
  const model: LearnedModel = trainLearnedModel(codebook, examples, { seed, ...options.logistic });
  const outOfFold = new Map<string, Prediction>();
  examples.forEach((e, i) => {
    const p = validation.predictions[i];
    if (p && !outOfFold.has(e.key)) outOfFold.set(e.key, p);
  });
  const trainingHash = hashTraining(options, seed);
  const settings = {
    coder: "learned",
    learnedVersion: LEARNED_CODER_VERSION,
    model: "tf-idf (word 1-2-grams, char 2-4-grams) + logistic regression",
    trainedOn: [...options.trainedOn],
    trainingHash,
    trainingSize: examples.length,
    validation: {
      method: `${validation.folds}-fold cross-validation grouped by session`,
      kappa: round(validation.kappa),
      agreement: round(validation.agreement),
      n: validation.n,
    },
  };
  return {
    trainingHash,
    trainedOn: [...options.trainedOn],
    trainingSize: examples.length,
    validation,
    settings,
    learningCurve: () => learningCurve(codebook, examples, { folds: options.folds, seed }),
    predict(session, index) {
      const held = outOfFold.get(`${session.id}\u0000${session.turns[index].id}`);
      if (held) return { ...held, heldOut: true };
      return { ...predictLearned(model, turnTerms(session, index)), heldOut: false };
    },
  };
}

/** Each coded turn found in `sessions` as a training example (its features and the human's codes), grouped by session. */
export function trainingExamples(sessions: readonly Session[], records: readonly CodeRecord[]): (GroupedExample & { key: string })[] {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const examples: (GroupedExample & { key: string })[] = [];
  for (const record of records) {
    const session = byId.get(record.session);
    const index = session?.turns.findIndex((t) => t.id === record.turn) ?? -1;
    if (!session || index < 0) continue;
    examples.push({
      key: `${record.session}\u0000${record.turn}`,
      group: record.session,
      terms: turnTerms(session, index),
      codes: record.codes,
      scores: record.scores,
    });
  }
  return examples;
}

/** Order-free hash of what the model learned from and how. */
function hashTraining(options: LearnedCoderOptions, seed: number): string {
  const rows = options.training.map((r) => JSON.stringify([r.coder, r.session, r.turn, r.fingerprint ?? "", r.codes ?? [], r.scores ?? {}])).sort();
  const hash = createHash("sha256");
  hash.update(JSON.stringify([LEARNED_CODER_VERSION, options.codebook.id, options.codebook.version, seed, options.folds ?? 5, options.logistic ?? {}]));
  for (const row of rows) hash.update(row).update("\n");
  return hash.digest("hex").slice(0, 16);
}

const round = (x: number) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null);
