import { resolveDesign } from "../analysis/shared/design.js";
import type { MeasureCompareOptions } from "../analysis/concepts/conditions.js";
import type { StudyConfig } from "../study/config.js";
import type { Session } from "../transcript/schema.js";

/**
 * The condition comparison settings topics and concepts share with compare: the study's one
 * design (colloquy.json compare.design, else inferred from the sessions by the same rule compare
 * uses) and its control condition.
 */
export function studyCompareOptions(config: StudyConfig, sessions: readonly Session[]): MeasureCompareOptions {
  const design = resolveDesign(sessions, { config: config.compare.design });
  return { design: design.design, designOrigin: design, control: config.compare.control };
}
