import type { TestResult } from "../analysis/compare/tests.js";
import type { ConditionTest, ValueSummary } from "../analysis/concepts/conditions.js";
import { pWithRelation } from "../util/p-value.js";

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
  "Cohen's dz = mean difference / SD of differences": "dz",
  "r = |z| / sqrt(n)": "r",
  "Hedges' g": "g",
  "rank-biserial correlation": "r_rb",
  "Cramér's V": "V",
};
const BOUNDED = new Set(["r", "r_rb", "V"]);

function effect(name: string | undefined, value: number | null | undefined): string | null {
  if (!name || value === null || value === undefined || !Number.isFinite(value)) return null;
  const symbol = EFFECT_SYMBOL[name] ?? name;
  return `${symbol} = ${apaNumber(value, 2, BOUNDED.has(symbol))}`;
}

/** One compare test: "W = 12, p = .031, r = .45", or "not computed: <reason>". */
export function apaCompareTest(t: TestResult): string {
  if (t.method?.startsWith("Fisher's exact") && t.p !== null) {
    // Fisher's exact test has no test statistic: its p, with the odds ratio and V beside it.
    const or = t.statistic === null ? "OR = ∞" : `OR = ${apaNumber(t.statistic)}`;
    const parts = [`Fisher's exact test, N = ${t.n}`, apaP(t.p)];
    if (t.pHolm !== undefined) parts.push(`Holm-adjusted ${apaP(t.pHolm)}`);
    return [...parts, or, effect(t.effectSizeName, t.effectSize) ?? "effect size n/a"].join(", ");
  }
  if (t.statistic === null) return `not computed: ${t.note ?? "statistic undefined"}`;
  const stat =
    t.family === "chi-square"
      ? `χ²(${apaDf(t.df ?? 0)}, N = ${t.n}) = ${apaNumber(t.statistic)}`
      : t.family === "paired-t" || t.family === "welch"
        ? `t(${t.df === null || t.df === undefined ? "?" : apaDf(t.df)}) = ${apaNumber(t.statistic)}`
        : `${t.statisticName} = ${apaNumber(t.statistic, Number.isInteger(t.statistic) ? 0 : 1)}`;
  const parts = [stat, apaP(t.p)];
  if (t.pHolm !== undefined) parts.push(`Holm-adjusted ${apaP(t.pHolm)}`);
  const e = effect(t.effectSizeName, t.effectSize);
  parts.push(e ?? "effect size n/a");
  return parts.join(", ");
}

const CONDITION_TEST_NAMES: Record<ConditionTest["test"], string> = {
  pairedTTest: "paired t-test",
  wilcoxonSignedRank: "Wilcoxon signed-rank",
  welchTTest: "Welch's t-test",
  mannWhitneyU: "Mann-Whitney U",
};

/** The test's name as a reader knows it ("paired t-test"). */
export function conditionTestName(t: ConditionTest): string {
  return CONDITION_TEST_NAMES[t.test];
}

/** One topics/concepts test: "t(2) = 0.68, p = .567, dz = 0.39", or "not computed: <reason>". */
export function apaConditionTest(t: ConditionTest): string {
  if (t.statistic === null) return `not computed: ${t.skipped ?? "statistic undefined"}`;
  const stat =
    t.test === "pairedTTest" || t.test === "welchTTest"
      ? `t(${t.df === undefined ? "?" : apaDf(t.df)}) = ${apaNumber(t.statistic)}`
      : `${t.test === "wilcoxonSignedRank" ? "W" : "U"} = ${apaNumber(t.statistic, Number.isInteger(t.statistic) ? 0 : 1)}`;
  const e = effect(t.effectSizeName, t.effectSize);
  return [
    stat,
    apaP(t.p),
    ...(t.pHolm !== null && t.pHolm !== t.p ? [`Holm-adjusted ${apaP(t.pHolm)}`] : []),
    e ?? (t.skipped ? `effect size n/a (${t.skipped})` : "effect size n/a"),
  ].join(", ");
}

/** "M = 1.09, SD = 0.63, 95% CI [0.71, 1.52], n = 5" (the CI as the analysis computed it). */
export function apaSummary(s: ValueSummary): string {
  if (s.n === 0 || s.mean === null) return `no values${s.missing ? ` (${s.missing} missing)` : ""}`;
  const ci = s.ci95 ? `, 95% CI [${apaNumber(s.ci95[0])}, ${apaNumber(s.ci95[1])}]` : "";
  return `M = ${apaNumber(s.mean)}, SD = ${apaNumber(s.sd)}${ci}, n = ${s.n}`;
}
