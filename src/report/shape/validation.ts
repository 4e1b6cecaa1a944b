import type { RecordsSummary } from "../../coding/records.js";
import type { CoderValidationSummary } from "../types.js";

/**
 * Whether a code set's coder was checked against the study's human codes, as its latest run
 * recorded it (`provenance.validation`, written by the rules and learned coders; summariseRecords
 * keeps the latest): the dashboard and the report mark codes from a coder that was not, or was
 * and fell under the floor. People are not validated against themselves; other coders that record
 * nothing are "not recorded".
 */
export function codeSetValidation(coder: string, recorded: RecordsSummary["validation"]): CoderValidationSummary {
  if (coder.startsWith("human:")) return { status: "human" };
  const status = recorded?.status;
  if (status !== "validated" && status !== "below-floor" && status !== "unvalidated") return { status: "not recorded" };
  return { status, ...(typeof recorded?.kappa === "number" ? { kappa: recorded.kappa } : {}) };
}

/** The words the dashboard and the report show for it. */
export function validationLabel(v: CoderValidationSummary): string {
  const kappa = v.kappa !== undefined ? `, kappa ${v.kappa.toFixed(2)}` : "";
  if (v.status === "human") return "people";
  if (v.status === "validated") return `validated on this study${kappa}`;
  if (v.status === "below-floor") return `BELOW FLOOR${kappa}: check before use`;
  if (v.status === "unvalidated") return "NOT VALIDATED on this study";
  return "not recorded";
}
