import type { Codebook } from "../codebook/schema.js";
import type { TrainingExample } from "./model.js";
import type { Validation } from "./validate.js";

/**
 * The floor below which an offline coder's codes are not to be trusted without a person saying
 * so, and the validation every offline code carries: was its coder checked against human codes
 * of this study, and at what kappa. Landis & Koch (1977) call kappa under 0.4 "fair" at best;
 * a category seen fewer than 5 times cannot be learned or checked.
 */

/** Cross-validated kappa under this is below the floor. */
export const KAPPA_FLOOR = 0.4;
/** A typical category (the median over the categories the people used) needs this many codes. */
export const MIN_CODES_PER_CATEGORY = 5;

/** What a record says about its coder's validation on this study. */
export interface CoderValidation {
  /**
   * "validated": checked against human codes of this study and at or above the floor;
   * "below-floor": checked, and under it (coded only because the user said so);
   * "unvalidated": never checked against human codes of this study.
   */
  status: "validated" | "below-floor" | "unvalidated";
  /** Why it is below the floor or unvalidated. */
  reason?: string;
  /** Human coders compared against. */
  against?: string[];
  kappa?: number | null;
  /** 95% bootstrap interval over sessions. */
  interval?: [number, number];
  /** Turns compared, in how many sessions. */
  n?: number;
  sessions?: number;
  method?: string;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** How many codes each category (or each rating of each scale) got, among those used. */
function countsPerCategory(codebook: Codebook, examples: readonly TrainingExample[]): number[] {
  const counts = new Map<string, number>();
  for (const e of examples) {
    const labels = codebook.kind === "nominal" ? (e.codes ?? []) : Object.entries(e.scores ?? {}).map(([s, r]) => `${s}=${r}`);
    for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts.values()];
}

/** The learned coder's status from its cross-validation and the codes it learned from. */
export function floorCheck(codebook: Codebook, examples: readonly TrainingExample[], validation: Validation): CoderValidation {
  const measured = {
    kappa: Number.isFinite(validation.kappa) ? round(validation.kappa) : null,
    ...(validation.interval ? { interval: [round(validation.interval.lower), round(validation.interval.upper)] as [number, number] } : {}),
    n: validation.n,
    sessions: validation.sessions,
    method: `${validation.folds}-fold cross-validation grouped by session`,
  };
  if (validation.folds < 2)
    return {
      status: "unvalidated",
      reason: "the human codes are in fewer than two sessions, so the coder cannot be checked on a session it did not learn from",
      ...measured,
    };
  const typical = median(countsPerCategory(codebook, examples));
  if (typical < MIN_CODES_PER_CATEGORY)
    return {
      status: "below-floor",
      reason: `too few human codes per category: the median category has ${typical} (at least ${MIN_CODES_PER_CATEGORY} needed)`,
      ...measured,
    };
  if (!(validation.kappa >= KAPPA_FLOOR))
    return { status: "below-floor", reason: `the cross-validated kappa ${measured.kappa ?? "(undefined)"} is under ${KAPPA_FLOOR}`, ...measured };
  return { status: "validated", ...measured };
}
