import type { LearningCurvePoint } from "../coding/learned/curve.js";

/** One line of a printed learning curve: mean kappa over the seeds, their range, the agreement. */
export function formatCurvePoint(p: LearningCurvePoint): string {
  const k = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "  -  ");
  const agreement = Number.isFinite(p.agreement) ? `${(p.agreement * 100).toFixed(1)}%` : "-";
  return `  ${String(p.size).padStart(6)} training turns  kappa ${k(p.kappa)} (seeds ${k(p.low)}-${k(p.high)}, ${p.seeds} seeds)  agreement ${agreement}  (n=${p.n})`;
}
