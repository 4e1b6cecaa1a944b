import type { CodingSummary } from "./job.js";
import { describeViews } from "./learned/model.js";

/** The one-line summary printed at the end of `colloquy code`. */
export function formatCodingSummary(s: CodingSummary): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const skipped = Object.entries(s.skipped)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const parts = [
    `${s.codebook}/${s.coder}: coded ${n(s.coded)}`,
    `failed ${n(s.failed)}`,
    `cached ${n(s.cached)}`,
    `skipped ${n(s.skippedTotal)}${skipped ? ` (${skipped})` : ""}`,
    `already coded ${n(s.alreadyCoded)}`,
  ];
  if (s.stoppedBy)
    parts.push(
      `not reached ${n(s.remaining)} (stopped: ${s.stoppedKind === "storage" ? "the response cache cannot be written" : "the endpoint refused the request"})`,
    );
  else if (s.aborted) parts.push(`not reached ${n(s.remaining)} (aborted; run again to continue)`);
  if (s.learned) {
    const v = s.learned.validation;
    // A scales codebook compares one rating per scale of a turn: say both, never ratings as turns.
    const compared = v.ratings !== undefined ? `${n(v.ratings)} ratings of ${n(v.n)} human code(s)` : `${n(v.n)} human code(s)`;
    const interval = v.interval ? ` (95% CI ${v.interval.lower.toFixed(3)}-${v.interval.upper.toFixed(3)})` : "";
    const kappa = Number.isFinite(v.kappa)
      ? `kappa ${v.kappa.toFixed(3)}${interval}, agreement ${(v.agreement * 100).toFixed(1)}% on ${compared} (${v.folds}-fold, grouped by session)`
      : "not validated (human codes in fewer than two sessions)";
    const status = s.learned.status.status === "validated" ? "" : `; ${s.learned.status.status.toUpperCase()}: ${s.learned.status.reason}`;
    const alone = v.settings.text && v.settings.context ? "" : ` (${describeViews(v.settings)})`;
    parts.push(`learned from ${n(s.learned.trainingSize)} code(s) by ${s.learned.trainedOn.join(", ")}${alone}: ${kappa}${status}`);
  }
  if (s.failuresResolved > 0) parts.push(`${n(s.failuresResolved)} earlier failure(s) now coded`);
  if (s.coder !== "rules" && (s.requests > 0 || s.cachedRequests > 0)) {
    // Every HTTP attempt is a request (and may be billed): failed attempts and retries included.
    const attempts = s.failedRequests > 0 || s.retriedRequests > 0 ? `${n(s.failedRequests)} failed, ${n(s.retriedRequests)} retried, ` : "";
    parts.push(`requests ${n(s.requests)} (${attempts}+${n(s.cachedRequests)} cached)`);
    parts.push(
      `tokens in ${n(s.promptTokens)} / out ${n(s.completionTokens)}${s.promptTokensPerTurn ? ` (${Math.round(s.promptTokensPerTurn)} prompt tokens per coded turn)` : ""}`,
    );
    parts.push(s.estimatedCost === undefined ? "est. cost unknown (add model.prices to colloquy.json)" : `est. cost $${s.estimatedCost.toFixed(4)}`);
  }
  parts.push(`${(s.elapsedMs / 1000).toFixed(1)} s`);
  return parts.join(", ");
}
