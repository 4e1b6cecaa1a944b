import { personsBySession, resolveDesign, type DeclaredDesign, type InferenceSettings } from "../analysis/shared/design.js";
import { chooseTest, type TestId } from "../analysis/inference/decision.js";
import type { Adjustment } from "../analysis/inference/multiplicity.js";
import { DEFAULT_RESAMPLES } from "../analysis/inference/permutation.js";
import type { MeasureCompareOptions } from "../analysis/concepts/conditions.js";
import type { StudyConfig } from "../study/config.js";
import type { Session } from "../transcript/schema.js";
import { CliError, errorMessage } from "../util/errors.js";

/** What a command line may override of the study's inference settings. */
export interface InferenceFlags extends DeclaredDesign {
  test?: TestId;
  adjust?: Adjustment;
}

/**
 * The study's one design, test and adjustment (colloquy.json `compare`, then the defaults:
 * sessions as independent units, the design's permutation test, Holm, 10,000 resamples, seed 1),
 * with a command line's flags over them. Every analysis that compares conditions takes these, so
 * compare, topics, concepts, the dashboard and the report state one unit and one n.
 */
export function studyInference(config: StudyConfig, sessions: readonly Session[], flags: InferenceFlags = {}): InferenceSettings {
  const c = config.compare;
  try {
    const design = resolveDesign(sessions, {
      flag: { design: flags.design, unit: flags.unit, agentUnits: flags.agentUnits },
      config: { design: c.design, unit: c.unit, agentUnits: c.agentUnits },
    });
    const test = flags.test ?? c.test;
    chooseTest(design.design, test);
    return {
      design,
      test,
      adjust: flags.adjust ?? c.adjust ?? (c.holm === false ? "none" : "holm"),
      resamples: c.resamples ?? DEFAULT_RESAMPLES,
      seed: c.seed ?? 1,
    };
  } catch (error) {
    throw new CliError(errorMessage(error).replace(/^\w+: /, ""));
  }
}

/** The comparison settings topics and concepts share with compare: the study's inference, its people and its control condition. */
export function studyCompareOptions(config: StudyConfig, sessions: readonly Session[]): MeasureCompareOptions {
  const inference = studyInference(config, sessions);
  return { inference, persons: personsBySession(sessions, inference.design.agentUnits), control: config.compare.control };
}
