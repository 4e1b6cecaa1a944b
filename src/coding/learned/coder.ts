import { createHash } from "node:crypto";
import type { Session } from "../../transcript/schema.js";
import type { Codebook } from "../codebook/schema.js";
import { codeValuesDigest, type CodeRecord } from "../records.js";
import { turnTerms } from "./features.js";
import { learningCurve, type LearningCurvePoint } from "./curve.js";
import { describeViews, predictTurn, trainLearnedModel, type LearnedModel, type Prediction } from "./model.js";
import { floorCheck, type CoderValidation } from "./floor.js";
import { crossValidate, SETTINGS_GRID, type GroupedExample, type Validation } from "./validate.js";

/**
 * The learned coder: a classifier trained on the study's own human codes (`--train human:alice`),
 * validated by session-grouped cross-validation before it codes anything, then coding every
 * other turn offline with a calibrated probability per category. Turns the humans coded get the
 * out-of-fold prediction (made by a model that never saw that session), so agreement measured
 * later on them is honest. The examples are put in one canonical order (session, turn, coder)
 * before anything is learned, and training has no randomness but the seeded folds, so the same
 * codes in any order give the same model and the same codes. Training takes seconds, so the model
 * is trained afresh each run rather than stored; the hash of exactly what it saw (each turn's
 * features, its codes, its session) and of its settings is stored in every record, and codes made
 * from another training set are made again.
 */

/** Bump when features or training change in a way that changes codes. */
export const LEARNED_CODER_VERSION = "8"; // 5: one model alone codes where the folds show it measurably better than the average (validate.ts); 6: only on at least 10 sessions, and for nominal codebooks only; 7: above 2,000 codes C is chosen on the drawn sessions' turns only, which can choose another C; 8: character n-grams as scikit-learn's char_wb makes them (whitespace tokens, punctuation kept)

export interface LearnedCoder {
  /** Hash of the training set as the model saw it and of the settings; records with another hash are out of date. */
  trainingHash: string;
  trainedOn: string[];
  /** Human-coded turns learned from (a turn coded by two people counts twice). */
  trainingSize: number;
  validation: Validation;
  /** The model that codes every turn no fold predicted. */
  model: LearnedModel;
  /** Whether the estimate clears the floor (floor.ts), stored with every code. */
  status: CoderValidation;
  /** Agreement against training size, averaged over seeds (computed on demand: it trains many models). */
  learningCurve(): LearningCurvePoint[];
  /**
   * The prediction for turn `index` of `session`. `heldOut`: the model that made it never saw
   * this turn (true for every turn but a training turn whose fold could not be trained);
   * `outOfFold`: it is a human-coded turn predicted by its cross-validation fold's model.
   */
  predict(session: Session, index: number): Prediction & { heldOut: boolean; outOfFold: boolean };
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
}

export function createLearnedCoder(options: LearnedCoderOptions): LearnedCoder {
  const { codebook } = options;
  const examples = trainingExamples(options.sessions, options.training);
  if (examples.length === 0)
    throw new Error(
      `no turn of this study is coded by ${options.trainedOn.join(", ")} in ${codebook.id}: code some by hand first (colloquy sheet / codes import)`,
    );
  const seed = options.seed ?? 1;
  const folds = options.folds ?? 5;
  const validation = crossValidate(codebook, examples, { folds, seed });
  const model: LearnedModel = trainLearnedModel(codebook, examples, validation.settings);
  const { temperature } = validation.calibration;
  const outOfFold = new Map<string, Prediction>();
  examples.forEach((e, i) => {
    const p = validation.predictions[i];
    if (p && !outOfFold.has(e.key)) outOfFold.set(e.key, p);
  });
  const trained = new Set(examples.map((e) => e.key));
  const status = floorCheck(codebook, examples, validation);
  const trainingHash = hashTraining(codebook, examples, { seed, folds, grid: SETTINGS_GRID });
  const settings = {
    coder: "learned",
    learnedVersion: LEARNED_CODER_VERSION,
    model: `tf-idf (word 1-2-grams, char_wb 2-5-grams with punctuation, sublinear tf, l2 norm) + logistic regression (L-BFGS, balanced class weights), ${describeViews(validation.settings)}`,
    modelSettings: { ...validation.settings, temperature },
    converged: model.heads.every((h) => h.models.every((m) => m.fit.converged)),
    trainedOn: [...options.trainedOn],
    // What each human coder's codes said when the model learned from them: the dashboard, the report
    // and `sample --strategy uncertain` compare it with their codes now (records.ts changedTraining).
    trainedCodes: Object.fromEntries(options.trainedOn.map((coder) => [coder, codeValuesDigest(options.training.filter((r) => r.coder === coder))])),
    trainingHash,
    trainingSize: examples.length,
    validation: status,
  };
  return {
    trainingHash,
    trainedOn: [...options.trainedOn],
    trainingSize: examples.length,
    validation,
    model,
    status,
    settings,
    learningCurve: () => learningCurve(codebook, examples, { folds, settings: validation.settings }),
    predict(session, index) {
      const key = `${session.id}\u0000${session.turns[index].id}`;
      const held = outOfFold.get(key);
      if (held) return Object.assign({}, held, { heldOut: true, outOfFold: true });
      return Object.assign(predictTurn(model, session, index, temperature), { heldOut: !trained.has(key), outOfFold: false });
    },
  };
}

/** A training example with the key of its turn and what orders it. */
export type KeyedExample = GroupedExample & { key: string; turnIndex: number; coder: string; fingerprint: string };

/**
 * Each coded turn found in `sessions` as a training example (its features and the human's codes),
 * in the canonical order: by session id, turn position, coder. Records of turns the study no
 * longer has are left out (the model never sees them, and neither does the training hash).
 */
export function trainingExamples(sessions: readonly Session[], records: readonly CodeRecord[]): KeyedExample[] {
  const byId = new Map(sessions.map((s) => [s.id, { session: s, position: new Map(s.turns.map((t, i) => [t.id, i])) }]));
  const examples: KeyedExample[] = [];
  for (const record of records) {
    const found = byId.get(record.session);
    const index = found?.position.get(record.turn);
    if (!found || index === undefined) continue;
    examples.push({
      key: `${record.session}\u0000${record.turn}`,
      group: record.session,
      turnIndex: index,
      coder: record.coder,
      fingerprint: record.fingerprint ?? "",
      terms: turnTerms(found.session, index),
      codes: record.codes,
      scores: record.scores,
    });
  }
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return examples.sort((a, b) => text(a.group, b.group) || a.turnIndex - b.turnIndex || text(a.coder, b.coder));
}

/** Hash of what the model saw, in the order it saw it (each turn's features, codes, session), and of every setting. */
function hashTraining(codebook: Codebook, examples: readonly KeyedExample[], settings: Record<string, unknown>): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify([LEARNED_CODER_VERSION, codebook.id, codebook.version, codebook, settings]));
  for (const e of examples) hash.update(JSON.stringify([e.group, e.terms.blocks, e.codes ?? [], e.scores ?? {}])).update("\n");
  return hash.digest("hex").slice(0, 16);
}
