import { holm } from "../tests/holm.js";
import { mannWhitneyU, pairedTTest, tCritical, welchTTest, wilcoxonSignedRank } from "../tests/index.js";
import { errorMessage } from "../../util/errors.js";

/**
 * Per-condition summaries of one measure and the between-condition tests, shared by the
 * topics and concepts reports.
 *
 * Design: "within" (every unit, e.g. a participant, took part in each condition) pairs the
 * unit's values across two conditions (mean over its sessions per condition) and runs the
 * paired t-test and the Wilcoxon signed-rank test on the units present in both; "between"
 * treats the conditions as independent samples (Welch t-test and Mann-Whitney U). The design
 * comes from `compare.design` in colloquy.json; without it, it is inferred: "within" when at
 * least two units appear in two or more conditions, else "between". Comparisons: every
 * condition against `compare.control` when set, else every pair of conditions; with more than
 * one comparison, p-values are Holm-adjusted per test across the comparisons.
 */

/** One unit's value of a measure in one session. `null` values (e.g. no times) are left out and counted. */
export interface UnitValue {
  /** Pairing key: participant id for participant measures, session id (or group) for session measures. */
  unit: string;
  condition: string;
  value: number | null;
}

/** Mean, SD (sample, n - 1), n, min, max of one condition's values. */
export interface ValueSummary {
  n: number;
  mean: number | null;
  /** Sample standard deviation (n - 1 denominator); null for n < 2. */
  sd: number | null;
  min: number | null;
  max: number | null;
  /** Values that were null (e.g. a rate without times) and so left out. */
  missing: number;
  /**
   * 95% confidence interval of the mean, mean ± t(0.975, n - 1) · sd / √n ({@link tCritical});
   * null for n < 2. Absent from files written before it was added.
   */
  ci95?: [number, number] | null;
}

/** One test of condition `a` against condition `b`. */
export interface ConditionTest {
  a: string;
  b: string;
  test: "pairedTTest" | "wilcoxonSignedRank" | "welchTTest" | "mannWhitneyU";
  /** Pairs for paired tests; total values for independent samples. */
  n: number;
  nA: number;
  nB: number;
  /** t, W or U, depending on the test. */
  statistic: number | null;
  df?: number;
  p: number | null;
  /** Holm-adjusted p across the comparisons of this measure and test (equals p with one comparison). */
  pHolm: number | null;
  /** Mean of a - b over pairs (paired) or difference of means (independent). */
  meanDiff: number | null;
  /** Why the test could not run (too few values), when it did not. */
  skipped?: string;
}

export interface MeasureComparison {
  measure: string;
  /** What one value is: a participant in a session, or a session. */
  unit: "participant" | "session";
  byCondition: Record<string, ValueSummary>;
  design: "within" | "between";
  designSource: "config" | "inferred";
  tests: ConditionTest[];
}

export interface MeasureCompareOptions {
  design?: "within" | "between";
  control?: string;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Summary statistics of a list of values (nulls counted as missing). */
export function summariseValues(values: readonly (number | null)[]): ValueSummary {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const missing = values.length - xs.length;
  if (xs.length === 0) return { n: 0, mean: null, sd: null, min: null, max: null, missing, ci95: null };
  const m = mean(xs);
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1)) : null;
  return { n: xs.length, mean: m, sd, min: Math.min(...xs), max: Math.max(...xs), missing, ci95: meanInterval(m, sd, xs.length) };
}

/** t-based confidence interval of a mean from its sample SD and n; null when n < 2 or sd is unknown. */
export function meanInterval(mean: number, sd: number | null, n: number, confidence = 0.95): [number, number] | null {
  if (sd === null || n < 2 || !Number.isFinite(sd)) return null;
  const half = (tCritical(n - 1, confidence) * sd) / Math.sqrt(n);
  return [mean - half, mean + half];
}

function conditionPairs(conditions: readonly string[], control: string | undefined): [string, string][] {
  if (control !== undefined && conditions.includes(control)) {
    return conditions.filter((c) => c !== control).map((c) => [c, control]);
  }
  const pairs: [string, string][] = [];
  for (let i = 0; i < conditions.length; i++) for (let j = i + 1; j < conditions.length; j++) pairs.push([conditions[i], conditions[j]]);
  return pairs;
}

function unitMeans(values: readonly UnitValue[], condition: string): Map<string, number> {
  const groups = new Map<string, number[]>();
  for (const v of values) {
    if (v.condition !== condition || v.value === null || !Number.isFinite(v.value)) continue;
    groups.set(v.unit, [...(groups.get(v.unit) ?? []), v.value]);
  }
  return new Map([...groups].map(([unit, xs]) => [unit, mean(xs)]));
}

function runTest(kind: ConditionTest["test"], a: string, b: string, xs: number[], ys: number[], nA: number, nB: number): ConditionTest {
  const base = { a, b, test: kind, nA, nB, n: kind === "pairedTTest" || kind === "wilcoxonSignedRank" ? xs.length : xs.length + ys.length };
  try {
    switch (kind) {
      case "pairedTTest": {
        const r = pairedTTest(xs, ys);
        return { ...base, statistic: finiteOrNull(r.t), df: r.df, p: finiteOrNull(r.p), pHolm: null, meanDiff: r.meanDiff };
      }
      case "wilcoxonSignedRank": {
        const r = wilcoxonSignedRank(xs, ys);
        return { ...base, statistic: r.W, p: finiteOrNull(r.p), pHolm: null, meanDiff: mean(xs.map((x, i) => x - ys[i])) };
      }
      case "welchTTest": {
        const r = welchTTest(xs, ys);
        return { ...base, statistic: finiteOrNull(r.t), df: finiteOrNull(r.df) ?? undefined, p: finiteOrNull(r.p), pHolm: null, meanDiff: r.meanX - r.meanY };
      }
      case "mannWhitneyU": {
        const r = mannWhitneyU(xs, ys);
        return { ...base, statistic: r.U, p: finiteOrNull(r.p), pHolm: null, meanDiff: mean(xs) - mean(ys) };
      }
    }
  } catch (error) {
    return { ...base, statistic: null, p: null, pHolm: null, meanDiff: null, skipped: errorMessage(error) };
  }
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/** Summaries per condition and the between-condition tests of one measure. */
export function compareMeasure(
  measure: string,
  unit: MeasureComparison["unit"],
  values: readonly UnitValue[],
  options: MeasureCompareOptions = {},
): MeasureComparison {
  const conditions = [...new Set(values.map((v) => v.condition))].sort();
  const byCondition: Record<string, ValueSummary> = {};
  for (const c of conditions) byCondition[c] = summariseValues(values.filter((v) => v.condition === c).map((v) => v.value));
  const perCondition = new Map(conditions.map((c) => [c, unitMeans(values, c)]));
  const unitConditions = new Map<string, number>();
  for (const means of perCondition.values()) for (const u of means.keys()) unitConditions.set(u, (unitConditions.get(u) ?? 0) + 1);
  const repeated = [...unitConditions.values()].filter((n) => n >= 2).length;
  const design = options.design ?? (repeated >= 2 ? "within" : "between");
  const tests: ConditionTest[] = [];
  for (const [a, b] of conditionPairs(conditions, options.control)) {
    const ma = perCondition.get(a)!;
    const mb = perCondition.get(b)!;
    if (design === "within") {
      const shared = [...ma.keys()].filter((u) => mb.has(u)).sort();
      const xs = shared.map((u) => ma.get(u)!);
      const ys = shared.map((u) => mb.get(u)!);
      tests.push(runTest("pairedTTest", a, b, xs, ys, ma.size, mb.size), runTest("wilcoxonSignedRank", a, b, xs, ys, ma.size, mb.size));
    } else {
      const xs = values.filter((v) => v.condition === a && v.value !== null && Number.isFinite(v.value)).map((v) => v.value!);
      const ys = values.filter((v) => v.condition === b && v.value !== null && Number.isFinite(v.value)).map((v) => v.value!);
      tests.push(runTest("welchTTest", a, b, xs, ys, xs.length, ys.length), runTest("mannWhitneyU", a, b, xs, ys, xs.length, ys.length));
    }
  }
  for (const kind of new Set(tests.map((t) => t.test))) {
    const group = tests.filter((t) => t.test === kind);
    const adjusted = holm(group.map((t) => t.p ?? NaN));
    group.forEach((t, i) => (t.pHolm = Number.isNaN(adjusted[i]) ? null : adjusted[i]));
  }
  return { measure, unit, byCondition, design, designSource: options.design ? "config" : "inferred", tests };
}
