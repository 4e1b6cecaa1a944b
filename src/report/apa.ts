import type { TestResult } from "../analysis/compare/tests.js";
import type { ConditionTest, ValueSummary } from "../analysis/concepts/conditions.js";
import { pWithRelation } from "../util/p-value.js";
import { cannotReach } from "../analysis/inference/two-groups.js";

/**
 * APA-style text for the numbers the analyses computed ("W = 12, p = .031, r = .45"). Formatting
 * only: every number is read from an analysis file and rounded here, never recomputed.
 */

/** p with three decimals and no leading zero; "p < .001" and "p > .999" at the ends (../util/p-value.ts). */
export function apaP(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return "p = n/a";
  return pWithRelation(p);
}

/** A number rounded to `digits`; values bounded by 1 (correlations, kappa) lose the leading zero. */
export function apaNumber(x: number | null | undefined, digits = 2, bounded = false): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "n/a";
  const s = x.toFixed(digits);
  return bounded ? s.replace(/^(-?)0\./, "$1.") : s;
}

/** Degrees of freedom: whole numbers as they are, Welch's fractional df to one decimal. */
function apaDf(df: number): string {
  return Number.isInteger(df) ? String(df) : df.toFixed(1);
}

const EFFECT_SYMBOL: Record<string, string> = {
  "Cohen's dz": "dz",
  "Hedges' g": "g",
  "Hedges' g_z": "g_z",
  "Cliff's delta": "δ",
  "matched-pairs rank-biserial r": "r_rb",
  "rank-biserial correlation": "r_rb",
  "Cramér's V": "V",
};
const BOUNDED = new Set(["r", "r_rb", "V", "δ"]);

/** "g = 1.20, 95% CI [0.10, 2.30]": the effect size and its bootstrap interval over units. */
function effect(name: string | undefined, value: number | null | undefined, ci?: [number, number] | null): string | null {
  if (!name || value === null || value === undefined || !Number.isFinite(value)) return null;
  const symbol = EFFECT_SYMBOL[name] ?? name;
  const bounded = BOUNDED.has(symbol);
  return `${symbol} = ${apaNumber(value, 2, bounded)}${ci ? `, 95% CI [${apaNumber(ci[0], 2, bounded)}, ${apaNumber(ci[1], 2, bounded)}]` : ""}`;
}

/** "Holm-adjusted p = .031" (the p the report's text uses), or the raw p when the study adjusts nothing. */
function adjustedP(p: number | null | undefined, adjusted: number | null | undefined, adjust: string | undefined): string {
  if (adjust === undefined || adjust === "none" || adjusted === undefined) return apaP(p);
  return `${adjust === "holm" ? "Holm" : "BH"}-adjusted ${apaP(adjusted)} (unadjusted ${apaP(p)})`;
}

/** The statistic as APA writes it: "t(4.2) = 2.10", "U = 3", "mean difference = 1.25". */
function statisticText(name: string, statistic: number, df: number | null | undefined): string {
  if (name === "t") return `t(${df === null || df === undefined ? "?" : apaDf(df)}) = ${apaNumber(statistic)}`;
  if (name === "mean difference") return `M_diff = ${apaNumber(statistic)}`;
  return `${name} = ${apaNumber(statistic, Number.isInteger(statistic) ? 0 : 1)}`;
}

/**
 * A test whose n cannot reach p < .05 is not reported as a test: "cannot reach p < .05 with 3 vs 3
 * sessions (smallest possible p = .10); M_diff = 1.25, g = 1.20, 95% CI [...]".
 */
function cannotReachText(sizes: string, smallestP: number, statistic: string | null, effectText: string | null): string {
  return [`cannot reach p < .05 with ${sizes} (smallest possible p = ${smallestP.toFixed(2).replace(/^0\./, ".")})`, statistic, effectText]
    .filter(Boolean)
    .join("; ");
}

/** One compare test: "M_diff = 1.25, Holm-adjusted p = .031 (unadjusted p = .004), g = 1.20, 95% CI [...]", or why it did not run. */
export function apaCompareTest(t: TestResult): string {
  if (t.method?.startsWith("Fisher's exact") && t.p !== null) {
    // Fisher's exact test has no test statistic: its p, with the odds ratio and V beside it.
    const or = t.statistic === null ? "OR = ∞" : `OR = ${apaNumber(t.statistic)}`;
    return [`Fisher's exact test, N = ${t.n}`, apaP(t.p), or, effect(t.effectSizeName, t.effectSize) ?? "effect size n/a"].join(", ");
  }
  if (t.p === null) {
    const e = effect(t.effectSizeName, t.effectSize, t.effectCi95);
    return `not tested: ${t.note ?? "statistic undefined"}${e ? ` (${e})` : ""}`;
  }
  if (cannotReach(t)) {
    const d = t.details as { nCondition?: number; nReference?: number } | undefined;
    const paired = t.family === "paired-permutation" || t.family === "wilcoxon";
    const sizes = paired ? `${t.n} paired ${t.unit}s` : `${d?.nCondition ?? "?"} vs ${d?.nReference ?? "?"} ${t.unit}s`;
    const mean = (t.details as { meanDifference?: number | null } | undefined)?.meanDifference;
    return cannotReachText(
      sizes,
      t.smallestP!,
      mean === undefined || mean === null ? null : `M_diff = ${apaNumber(mean)}`,
      effect(t.effectSizeName, t.effectSize, t.effectCi95),
    );
  }
  const stat =
    t.family === "chi-square" ? `χ²(${apaDf(t.df ?? 0)}, N = ${t.n}) = ${apaNumber(t.statistic)}` : statisticText(t.statisticName, t.statistic!, t.df);
  return [stat, adjustedP(t.p, t.pAdjusted, t.adjust), effect(t.effectSizeName, t.effectSize, t.effectCi95) ?? "effect size n/a"].join(", ");
}

/** The test's name as a reader knows it ("permutation test of the difference in means (two-sided)"). */
export function conditionTestName(t: ConditionTest): string {
  return t.testName;
}

/** One topics/concepts test: "M_diff = 0.68, Holm-adjusted p = .567 (unadjusted p = .120), g = 0.39", or why it did not run. */
export function apaConditionTest(t: ConditionTest): string {
  if (t.p === null || t.statistic === null) {
    const e = effect(t.effectSizeName, t.effectSize, t.effectCi95);
    return `not tested: ${t.skipped ?? "statistic undefined"}${e ? ` (${e})` : ""}`;
  }
  const e = effect(t.effectSizeName, t.effectSize, t.effectCi95);
  if (cannotReach(t)) {
    const paired = t.test === "paired-permutation" || t.test === "wilcoxon";
    return cannotReachText(
      paired ? `${t.n} pairs` : `${t.nA} vs ${t.nB} units`,
      t.smallestP!,
      t.meanDiff === null ? null : `M_diff = ${apaNumber(t.meanDiff)}`,
      e,
    );
  }
  return [statisticText(t.statisticName, t.statistic, t.df), adjustedP(t.p, t.pAdjusted, t.adjust), e ?? "effect size n/a"].join(", ");
}

/** "M = 1.09, SD = 0.63, 95% CI [0.71, 1.52], n = 5" (the CI as the analysis computed it). */
export function apaSummary(s: ValueSummary, unit: string): string {
  if (s.n === 0 || s.mean === null) return `no values${s.missing ? ` (${s.missing} missing)` : ""}`;
  const ci = s.ci95 ? `, 95% CI [${apaNumber(s.ci95[0])}, ${apaNumber(s.ci95[1])}]` : "";
  // Every n says what it counts ("n = 3 participants"), so 3 is never read as 3 turns.
  return `M = ${apaNumber(s.mean)}, SD = ${apaNumber(s.sd)}${ci}, n = ${s.n} ${unit}${s.n === 1 ? "" : "s"}`;
}
