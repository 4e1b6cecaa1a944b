import { holm } from "../inference/holm.js";
import { cohensDz } from "../inference/effect.js";
import { hedgesG, mannWhitneyU, pairedTTest, tCritical, welchTTest, wilcoxonSignedRank } from "../inference/index.js";
import { errorMessage } from "../../util/errors.js";
import { bootstrapMean } from "../reliability/bootstrap.js";
import { sha256 } from "../../util/hash.js";
import type { Design } from "../shared/design.js";

/**
 * Per-condition summaries of one measure and the between-condition tests, shared by the
 * topics and concepts reports.
 *
 * Design: "within" (every unit, e.g. a participant, took part in each condition) pairs the
 * unit's values across two conditions (mean over its sessions per condition) and runs the
 * paired t-test and the Wilcoxon signed-rank test on the units present in both; "between"
 * treats the conditions as independent samples (Welch t-test and Mann-Whitney U). The stages
 * pass the study's one design ({@link resolveDesign} in ../design.ts: compare.design in
 * colloquy.json, else inferred from the sessions), so topics, concepts and compare agree; a
 * library caller that passes none gets this module's own inference ("within" when at least two
 * units appear in two or more conditions, else "between"). Comparisons: every
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
   * 95% confidence interval of the mean: percentile bootstrap ({@link meanBootstrapInterval}),
   * which stays inside the values' range (a branching ratio's interval never goes below 0);
   * null for n < 3 (see ciNote); for n < 10 ciNote says it is too narrow. Absent from files written before it was added.
   */
  ci95?: [number, number] | null;
  /** How ci95 was computed, or why there is none. */
  ciMethod?: string;
  ciNote?: string;
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
  /** Effect size: Cohen's dz (paired t), r = |z|/√n (Wilcoxon), Hedges' g (Welch), rank-biserial (Mann-Whitney). */
  effectSize?: number | null;
  effectSizeName?: string;
  /** Why the test (or its statistic or effect size) could not be computed, when it was not. */
  skipped?: string;
  /** What to keep in mind, e.g. a small sample. */
  note?: string;
}

export interface MeasureComparison {
  measure: string;
  /** What one value is: a participant in a session, or a session. */
  unit: "participant" | "session";
  byCondition: Record<string, ValueSummary>;
  design: "within" | "between";
  designSource: "config" | "inferred";
  /** One sentence saying where the design came from (the study's design, see ../design.ts). */
  designReason?: string;
  tests: ConditionTest[];
}

export interface MeasureCompareOptions {
  design?: Design;
  /** Says where `design` came from; with it, designSource is "config" only when colloquy.json declared it. */
  designOrigin?: { source: "flag" | "colloquy.json" | "inferred"; reason: string };
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
  const base = { n: xs.length, mean: m, sd, min: Math.min(...xs), max: Math.max(...xs), missing };
  if (xs.length < MIN_INTERVAL_N)
    return { ...base, ci95: null, ciNote: `n = ${xs.length}: too few values for a confidence interval (needs ${MIN_INTERVAL_N})` };
  const ci = { ...base, ci95: meanBootstrapInterval(xs), ciMethod: INTERVAL_METHOD };
  return xs.length < SMALL_INTERVAL_N
    ? {
        ...ci,
        ciNote: `n = ${xs.length}: a percentile bootstrap interval is too narrow with fewer than ${SMALL_INTERVAL_N} values (it covers the mean less often than 95%); read it as descriptive`,
      }
    : ci;
}

/** Fewer values than this get no interval: a bootstrap of 2 values only restates them. */
const MIN_INTERVAL_N = 3;
/**
 * Below this n the percentile bootstrap of a mean undercovers: it is built from the sample's own
 * spread (the plug-in SD, n denominator, with no t quantile), so a nominal 95% interval covers the
 * mean less often (Hesterberg 2015, "What teachers should know about the bootstrap"). Simulated
 * with normal data, 2000 samples each: 73% at n = 3, 83% at n = 5, 89% at n = 9, 93% at n = 20.
 */
const SMALL_INTERVAL_N = 10;
const INTERVAL_REPLICATES = 2000;
const INTERVAL_METHOD = `percentile bootstrap of the mean (${INTERVAL_REPLICATES} resamples, seed 1)`;

/**
 * 95% percentile bootstrap interval of the mean of `xs` (seeded, so it replays exactly). Unlike
 * mean ± t·sd/√n it cannot leave the range of the values, so a measure that cannot be negative
 * (a ratio, a count, a rate) never gets a negative bound, however small and skewed the sample.
 */
export function meanBootstrapInterval(xs: readonly number[], confidence = 0.95): [number, number] {
  const key = intervalKey(xs, confidence);
  const known = meanIntervals.known.get(key);
  if (known) {
    meanIntervals.used.add(key);
    return [...known];
  }
  const ci = bootstrapMean(xs, { replicates: INTERVAL_REPLICATES, seed: 1, confidence });
  // A resample of identical values can sum to a hair outside them in floating point (1.8999… for 1.9).
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const interval: [number, number] = [Math.min(hi, Math.max(lo, ci.lower)), Math.min(hi, Math.max(lo, ci.upper))];
  // A cache: a long-lived process that bootstraps many lists starts it afresh.
  if (meanIntervals.known.size >= MAX_KNOWN_INTERVALS) {
    meanIntervals.known.clear();
    meanIntervals.used.clear();
  }
  meanIntervals.known.set(key, interval);
  meanIntervals.used.add(key);
  return [...interval];
}

/**
 * The intervals {@link meanBootstrapInterval} computed or was given in this process, by the
 * digest of their values (in order, as doubles) and confidence. Adding one session to a study
 * changes the values of one condition only: with the intervals of the last run (kept by
 * interval-store.ts), the others are not bootstrapped again (0.15 s of 2,000 resamples per
 * condition and measure, a run, at 100,000 turns). An interval is a function of exactly that key
 * (the seed and replicates are fixed), so a kept one equals a fresh one.
 */
export const meanIntervals = { known: new Map<string, readonly [number, number]>(), used: new Set<string>() };
export const MAX_KNOWN_INTERVALS = 20_000;

function intervalKey(xs: readonly number[], confidence: number): string {
  const bytes = new Float64Array(xs);
  return `${confidence} ${xs.length} ${sha256(new Uint8Array(bytes.buffer))}`;
}

/**
 * t-based confidence interval of a mean from its sample SD and n; null when n < 2 or sd is
 * unknown. Only for files written before ci95 was stored: it can leave the measure's range.
 */
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
  const paired = kind === "pairedTTest" || kind === "wilcoxonSignedRank";
  const base = { a, b, test: kind, nA, nB, n: paired ? xs.length : xs.length + ys.length };
  const small = paired
    ? xs.length < 6
      ? `only ${xs.length} pairs: treat p as descriptive`
      : undefined
    : Math.min(xs.length, ys.length) < 5
      ? `only ${xs.length} and ${ys.length} values: treat p as descriptive`
      : undefined;
  let result: ConditionTest;
  try {
    result = { ...base, ...computeTest(kind, xs, ys), pHolm: null };
  } catch (error) {
    return { ...base, statistic: null, p: null, pHolm: null, meanDiff: null, skipped: errorMessage(error).replace(/^\w+: /, "") };
  }
  if (result.statistic === null && result.skipped === undefined) result.skipped = "every value is the same in both conditions, so the statistic is undefined";
  if (result.effectSize === null && result.skipped === undefined) result.skipped = "the values have no spread, so the effect size is undefined";
  if (small) result.note = small;
  return result;
}

/** One test's numbers; throws when it cannot run (too few values). */
function computeTest(kind: ConditionTest["test"], xs: number[], ys: number[]): Omit<ConditionTest, "a" | "b" | "test" | "n" | "nA" | "nB" | "pHolm"> {
  switch (kind) {
    case "pairedTTest": {
      const r = pairedTTest(xs, ys);
      const infinite = r.se === 0 && r.meanDiff !== 0 ? { skipped: "every pair differs by the same amount: t is infinite and the effect size undefined" } : {};
      return {
        statistic: finiteOrNull(r.t),
        df: r.df,
        p: finiteOrNull(r.p),
        meanDiff: r.meanDiff,
        effectSizeName: "Cohen's dz",
        effectSize: cohensDz(xs, ys),
        ...infinite,
      };
    }
    case "wilcoxonSignedRank": {
      const r = wilcoxonSignedRank(xs, ys);
      const none = r.n === 0 ? { skipped: "every pair has the same value: no non-zero differences to rank" } : {};
      return {
        statistic: r.W,
        p: finiteOrNull(r.p),
        meanDiff: mean(xs.map((x, i) => x - ys[i])),
        effectSizeName: "r = |z| / sqrt(n)",
        effectSize: finiteOrNull(r.r),
        ...none,
      };
    }
    case "welchTTest": {
      const r = welchTTest(xs, ys);
      const g = hedgesG(xs, ys);
      const infinite =
        !Number.isFinite(r.t) && !Number.isNaN(r.t)
          ? { skipped: "neither condition's values vary but their means differ: t is infinite and the effect size undefined" }
          : {};
      return {
        statistic: finiteOrNull(r.t),
        df: finiteOrNull(r.df) ?? undefined,
        p: finiteOrNull(r.p),
        meanDiff: r.meanX - r.meanY,
        effectSizeName: "Hedges' g",
        effectSize: g,
        ...infinite,
      };
    }
    case "mannWhitneyU": {
      const r = mannWhitneyU(xs, ys);
      return {
        statistic: r.U,
        p: finiteOrNull(r.p),
        meanDiff: mean(xs) - mean(ys),
        effectSizeName: "rank-biserial correlation",
        effectSize: finiteOrNull(r.rankBiserial),
      };
    }
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
  const origin = options.designOrigin;
  const tests: ConditionTest[] = [];
  for (const [a, b] of conditionPairs(conditions, options.control)) {
    const ma = perCondition.get(a)!;
    const mb = perCondition.get(b)!;
    if (design === "within") {
      const shared = [...ma.keys()].filter((u) => mb.has(u)).sort();
      if (shared.length === 0 && ma.size + mb.size > 0) {
        // The declared design does not fit the data: say so on the line instead of "needs 2 pairs (got 0)".
        const skipped = `the design is within-subject but no ${unit} has a value in both ${a} and ${b}, so nothing can be paired; if different ${unit}s took part in each condition, set compare.design to "between" in colloquy.json`;
        for (const test of ["pairedTTest", "wilcoxonSignedRank"] as const)
          tests.push({ a, b, test, n: 0, nA: ma.size, nB: mb.size, statistic: null, p: null, pHolm: null, meanDiff: null, skipped });
        continue;
      }
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
  const designSource = origin ? (origin.source === "inferred" ? "inferred" : "config") : options.design ? "config" : "inferred";
  const designReason = origin?.reason ?? (options.design ? "given by the caller" : `inferred: ${repeated} ${unit}s have values in two or more conditions`);
  return { measure, unit, byCondition, design, designSource, designReason, tests };
}
