import { loadCodebook } from "../coding/codebook/load.js";
import { trainingExamples } from "../coding/learned/coder.js";
import { heldOutCurve, learningCurve, type LearningCurvePoint } from "../coding/learned/curve.js";
import type { ModelSettings } from "../coding/learned/model.js";
import { crossValidate } from "../coding/learned/validate.js";
import { CliError } from "../util/errors.js";
import type { StudyContext } from "./context.js";
import { describeSelection, selectedContext, selectionOf, type SessionSelection } from "./selection.js";

/**
 * `colloquy agree --learning-curve`: for a learned coder among the compared ones, its agreement
 * against the number of human-coded training turns (25, 50, 100, …), so a researcher sees when
 * more hand-coding stops paying. The training codes are those of the coders the learned coder
 * was trained on (its records' provenance, or `train`).
 *  - With a selection (`--sessions` etc.): models trained on growing parts of the training codes
 *    outside the selection predict the selected sessions, scored against the reference coder:
 *    a held-out curve.
 *  - Without: the session-grouped cross-validated curve `colloquy code --learning-curve` prints.
 * Both train with the settings the learned coder chose (its records' `modelSettings`; chosen
 * again by cross-validation on the training codes when `train` overrides them), and average over
 * the same seeds, so this curve and `code --learning-curve`'s are the same numbers. The held-out
 * curve chooses them again on the codes outside the selection when the coder learned from codes
 * inside it.
 */

export interface AgreeCurveOptions {
  codebook: string;
  coders: readonly string[];
  /** The human coder the predictions are scored against (default: the first human coder of `coders`). */
  reference?: string;
  /** Override the coders trained on (default: the learned coder's provenance `trainedOn`). */
  train?: readonly string[];
  selection?: SessionSelection;
}

export interface AgreeCurve {
  learner: string;
  trainedOn: string[];
  reference: string;
  method: "held-out" | "cross-validated";
  /** The model settings every point was trained with. */
  settings: ModelSettings;
  /** Human-coded turns available for training (outside the selection when there is one). */
  pool: number;
  /** Turns scored (held-out: the reference's codes in the selection). */
  evaluated: number;
  points: LearningCurvePoint[];
}

async function trainedOnOf(
  context: StudyContext,
  codebook: string,
  coders: readonly string[],
): Promise<{ learner: string; trainedOn: string[]; settings?: ModelSettings }> {
  for (const coder of coders) {
    const records = await context.codes(codebook, coder);
    const trained = records.find((r) => Array.isArray(r.provenance.trainedOn))?.provenance;
    if (trained) {
      // Records of learned coder versions before 5 have no `text`: their models all had the text model.
      const chosen = trained.modelSettings as (Omit<ModelSettings, "text"> & { text?: boolean; temperature?: number }) | undefined;
      const settings = chosen ? { c: chosen.c, text: chosen.text ?? true, context: chosen.context, balanced: chosen.balanced } : undefined;
      return { learner: coder, trainedOn: trained.trainedOn as string[], settings };
    }
  }
  const named = coders.find((c) => c === "learned" || c.startsWith("learned:"));
  if (named)
    throw new CliError(
      `--learning-curve: ${named} has no ${codebook} codes saying what it was trained on; run \`colloquy code <study> --coder learned --train human:<name>\` or pass --train`,
    );
  throw new CliError(`--learning-curve needs a learned coder among --coders (e.g. --coders learned,human:alice)`);
}

export async function agreeLearningCurve(context: StudyContext, options: AgreeCurveOptions): Promise<AgreeCurve> {
  const codebook = await loadCodebook(options.codebook, context.dir);
  const found = options.train?.length
    ? { learner: options.coders.find((c) => c.startsWith("learned")) ?? "learned", trainedOn: [...options.train] }
    : await trainedOnOf(context, codebook.id, options.coders);
  const reference = options.reference ?? options.coders.find((c) => c.startsWith("human:") && c !== found.learner) ?? found.trainedOn[0];
  const sessions = await context.sessions();
  const training = (await Promise.all(found.trainedOn.map((coder) => context.codes(codebook.id, coder)))).flat();
  if (training.length === 0) throw new CliError(`--learning-curve: ${found.trainedOn.join(", ")} coded no turn of ${codebook.id}`);
  const given = selectionOf(options.selection);
  const examples = trainingExamples(sessions, training);
  const seed = context.config.model.seed;
  const settings = found.settings ?? crossValidate(codebook, examples, { seed }).settings;
  const { learner, trainedOn } = found;
  if (!given) {
    return {
      learner,
      trainedOn,
      reference: found.trainedOn.join("+"),
      method: "cross-validated",
      settings,
      pool: examples.length,
      evaluated: examples.length,
      points: learningCurve(codebook, examples, { settings }),
    };
  }
  const selected = new Set((await selectedContext(context, given).sessions()).map((s) => s.id));
  const pool = trainingExamples(
    sessions,
    training.filter((r) => !selected.has(r.session)),
  );
  const evaluation = trainingExamples(
    sessions,
    (await context.codes(codebook.id, reference)).filter((r) => selected.has(r.session)),
  );
  if (pool.length === 0)
    throw new CliError(
      `--learning-curve: every turn ${found.trainedOn.join(", ")} coded is in ${describeSelection(given)}; nothing is left to train on outside it`,
    );
  if (evaluation.length === 0) throw new CliError(`--learning-curve: ${reference} coded no turn of ${describeSelection(given)}`);
  // Settings the coder chose with codes of the selected sessions in its training saw the held-out
  // labels (C was picked by their kappa): choose them again on the pool alone, so the curve is the
  // same whether or not the coder was trained on the selection.
  const sawSelection = training.some((r) => selected.has(r.session));
  const heldOutSettings = sawSelection ? crossValidate(codebook, pool, { seed }).settings : settings;
  return {
    learner,
    trainedOn,
    reference,
    method: "held-out",
    settings: heldOutSettings,
    pool: pool.length,
    evaluated: evaluation.length,
    points: heldOutCurve(codebook, pool, evaluation, { settings: heldOutSettings }),
  };
}
