import type { Session } from "../transcript/schema.js";
import { provenance } from "../util/provenance.js";
import type { CodingJobOptions, CodingSummary } from "./job.js";
import { RULES_CODER_VERSION, codeTurnWithRules } from "./rules/index.js";

/**
 * The coders that answer without a model (rules, learned) as one function per turn, for
 * runCodingJob (job.ts): each turn's value and the provenance stored with it.
 */

type OfflineCoder = (
  session: Session,
  index: number,
) => { value: { codes?: string[]; scores?: Record<string, number>; rationale?: string }; provenance: Record<string, unknown> };

/** The rules or learned coder as one function per turn (undefined for the LLM). */
export function offlineCoder(options: CodingJobOptions, summary: CodingSummary): OfflineCoder | undefined {
  const { codebook } = options;
  if (options.coder === "rules") {
    // One provenance (its createdAt: when the run began) for the run; each record adds its rule ids.
    // What a run shares is stored once per run (codes-file.ts).
    const run = provenance({
      coder: "rules",
      rulesVersion: RULES_CODER_VERSION,
      codebook: codebook.id,
      codebookVersion: codebook.version,
      validation: options.rulesValidation ?? { status: "unvalidated", reason: "no human codes of this codebook in the study to check the rules against" },
    });
    return (session, index) => {
      const result = codeTurnWithRules(codebook, session, index);
      return { value: { codes: result.codes, scores: result.scores, rationale: result.rationale }, provenance: { ...run, rules: result.rules } };
    };
  }
  if (options.coder !== "learned") return undefined;
  const learner = options.learner;
  if (!learner) throw new Error("the learned coder needs a trained learner");
  const { folds, kappa, agreement, n, ratings, sessions, interval, settings, views, calibration } = learner.validation;
  summary.learned = {
    trainedOn: learner.trainedOn,
    trainingSize: learner.trainingSize,
    validation: { folds, kappa, agreement, n, ratings, sessions, interval, settings, views, calibration },
    status: learner.status,
    ...(options.learningCurve ? { curve: learner.learningCurve() } : {}),
  };
  const run = provenance({ ...learner.settings, codebook: codebook.id, codebookVersion: codebook.version });
  return (session, index) => {
    const prediction = learner.predict(session, index);
    const { codes, scores, probabilities, heldOut, outOfFold } = prediction;
    // Rounded once, so what is stored, shown and compared with --review-below is one number.
    const confidence = Math.round(prediction.confidence * 1000) / 1000;
    const margin = Math.round(prediction.margin * 1000) / 1000;
    const turn = session.turns[index];
    if (options.reviewBelow !== undefined && confidence < options.reviewBelow) {
      (summary.review ??= []).push({
        session: session.id,
        turn: turn.id,
        text: turn.text,
        ...(codes ? { codes } : {}),
        ...(scores ? { scores } : {}),
        confidence,
      });
    }
    // Object.assign, not a spread of `run` (~16 keys) and five more: the spread cost ~20 µs a
    // record (1.8 s of 100,000 in a profile), the copy well under 1 µs; the same keys, in the same order.
    return { value: { codes, scores }, provenance: Object.assign({}, run, { heldOut, outOfFold, confidence, margin, probabilities }) };
  };
}
