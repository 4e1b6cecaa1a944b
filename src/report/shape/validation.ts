import { changedTraining, type RecordsSummary } from "../../coding/records.js";
import type { CoderValidationSummary } from "../types.js";

/**
 * Whether a code set's coder was checked against the study's human codes, as its latest run
 * recorded it (`provenance.validation`, written by the rules and learned coders; summariseRecords
 * keeps the latest): the dashboard and the report mark codes from a coder that was not, or was
 * and fell under the floor. People are not validated against themselves; other coders that record
 * nothing are "not recorded". A learned coder's codes are out of date when a human coder it
 * trained on has other codes now (`digestOf`: that coder's codeValuesDigest, undefined when it has
 * none): its validation was of a model that never saw them (a \`colloquy code\` that refused to
 * train again under the floor leaves them in place, as does recoding only some sessions).
 */
export function codeSetValidation(
  coder: string,
  summary: Pick<RecordsSummary, "validation" | "trainings">,
  digestOf: (coder: string) => string | undefined = () => undefined,
): CoderValidationSummary {
  if (coder.startsWith("human:")) return { status: "human" };
  const recorded = summary.validation;
  const status = recorded?.status;
  if (status !== "validated" && status !== "below-floor" && status !== "unvalidated") return { status: "not recorded" };
  const outOfDate = changedTraining(summary, digestOf).length > 0;
  return { status, ...(typeof recorded?.kappa === "number" ? { kappa: recorded.kappa } : {}), ...(outOfDate ? { outOfDate } : {}) };
}

/** The words the dashboard and the report show for it. */
export function validationLabel(v: CoderValidationSummary): string {
  const kappa = v.kappa !== undefined ? `, kappa ${v.kappa.toFixed(2)}` : "";
  const stale = v.outOfDate ? "; OUT OF DATE: human codes changed since it was trained (run colloquy code again)" : "";
  if (v.status === "human") return "people";
  if (v.status === "validated") return `validated on this study${kappa}${stale}`;
  if (v.status === "below-floor") return `BELOW FLOOR${kappa}: check before use${stale}`;
  if (v.status === "unvalidated") return "NOT VALIDATED on this study";
  return "not recorded";
}
