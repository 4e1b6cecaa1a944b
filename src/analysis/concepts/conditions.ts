import { chooseTest, decisionTable, tCritical, testTwoGroups, type TestId } from "../inference/index.js";
import { sharedDraws, type Draws } from "../inference/draws.js";
import { adjustPValues, type Adjustment } from "../inference/multiplicity.js";
import { errorMessage } from "../../util/errors.js";
import { bootstrapMean } from "../reliability/bootstrap.js";
import { sha256 } from "../../util/hash.js";
import { comparisonPairs, DEFAULT_INFERENCE, type InferenceSettings } from "../shared/design.js";

/**
 * Per-condition summaries of the measures of topics and concepts, and one test per measure and
 * comparison, so every section states its unit and n as compare does. A value is measured per
 * participant or per session (`level`), and no observation is counted twice:
 *  - a participant-level measure is analysed on the study's unit (../shared/design.ts): with
 *    session units a session's values are averaged into one value per session; with participant
 *    units each person's values (by id; agents only when the design says so) into one per person
 *    and condition, paired by id in a within-subject design;
 *  - a session-level measure (a session's concept rate, its topic tree) is one value of one
 *    session, so its unit is always the session: a session belongs to one condition, so it is
 *    compared as an independent sample, never paired nor copied to each of its people.
 * The test comes from the decision table (../inference/decision.ts). Comparisons and their
 * direction come from ../shared/design.ts (comparisonPairs: each condition against
 * `compare.control` when set, else every pair; differences are the condition (`a`) minus its
 * reference (`b`)). A family is the measures of one analysis in one comparison, adjusted for
 * multiplicity (Holm by default), as compare's family is the codes of one codebook in one comparison.
 */

/** One measured value: a participant's in a session, or a session's. `null` values (e.g. no times) are left out and counted. */
export interface UnitValue {
  session: string;
  /** The participant's id, for participant-level measures. */
  participant?: string;
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

/** One test of condition `a` against its reference `b` (differences are a minus b). */
export interface ConditionTest {
  /** The condition. */
  a: string;
  /** The reference: the control, or the earlier of the two conditions in alphabetical order. */
  b: string;
  /** The decision table's test (one per comparison). */
  test: TestId;
  testName: string;
  /** Pairs for paired tests; units in both samples for independent ones. */
  n: number;
  nA: number;
  nB: number;
  statisticName: string;
  /** Mean difference (permutation tests), U, W or t, depending on the test. */
  statistic: number | null;
  df?: number;
  /** Raw two-sided p; null when the test did not run (see skipped). */
  p: number | null;
  /** p adjusted across the analysis's measures in this comparison (the family) by `adjust`. */
  pAdjusted: number | null;
  adjust: Adjustment;
  /** Tests in the family the adjustment counted. */
  familySize?: number;
  /** Mean of a - b over pairs (paired) or difference of means (independent). */
  meanDiff: number | null;
  effectSize?: number | null;
  effectSizeName?: string;
  /** 95% bootstrap interval of the effect size over units. */
  effectCi95?: [number, number] | null;
  /** Smallest p the test can give at this n; minimum detectable effect at 80% power. */
  smallestP?: number | null;
  mde80?: number | null;
  method?: string;
  /** Why the test (or its statistic or effect size) could not be computed, when it was not. */
  skipped?: string;
  /** What to keep in mind. */
  note?: string;
}

export interface MeasureComparison {
  measure: string;
  /** What one measured value is: a participant's in a session, or a session's. */
  level: "participant" | "session";
  /** The unit of analysis: each summary and test counts these (the study's; always "session" for a session-level measure). */
  unit: "participant" | "session";
  /** Per condition, over the units. */
  byCondition: Record<string, ValueSummary>;
  design: "within" | "between";
  designSource: "flag" | "colloquy.json" | "default";
  /** One sentence saying where the design came from (the study's design, see ../shared/design.ts). */
  designReason: string;
  tests: ConditionTest[];
}

export interface MeasureCompareOptions {
  /** The study's design, test and adjustment (default: sessions, permutation, Holm). */
  inference?: InferenceSettings;
  /** The people (participant units) of each session, by session id; needed for participant units. */
  persons?: ReadonlyMap<string, readonly string[]>;
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

/**
 * Each unit's value in each condition: the mean of its values there. Session units: the
 * session's values; participant units: a participant's values, when the participant is a
 * person unit (a session-level value never reaches here: its unit is the session).
 */
function unitValues(
  values: readonly UnitValue[],
  unit: "participant" | "session",
  persons: ReadonlyMap<string, readonly string[]>,
): Map<string, Map<string, number>> {
  const groups = new Map<string, Map<string, number[]>>();
  for (const v of values) {
    if (v.value === null || !Number.isFinite(v.value)) continue;
    const key =
      unit === "session" ? v.session : v.participant !== undefined && (persons.get(v.session) ?? []).includes(v.participant) ? v.participant : undefined;
    if (key === undefined) continue;
    let byUnit = groups.get(v.condition);
    if (!byUnit) groups.set(v.condition, (byUnit = new Map()));
    byUnit.set(key, [...(byUnit.get(key) ?? []), v.value]);
  }
  return new Map([...groups].map(([c, byUnit]) => [c, new Map([...byUnit].map(([k, xs]) => [k, mean(xs)]))]));
}

/**
 * How one measure is analysed: a participant-level measure on the study's design and unit; a
 * session-level one on sessions as independent units, with the study's test when it is one for
 * independent units (else that design's default), and a reason saying why.
 */
function measureDesign(level: MeasureComparison["level"], inference: InferenceSettings) {
  const d = inference.design;
  if (level === "participant" || d.unit === "session")
    return { design: d.design, unit: d.unit, test: inference.test, source: d.source, reason: d.reason, note: undefined };
  const test = decisionTable.find((r) => r.test === inference.test)?.design === "between" ? inference.test : undefined;
  const paired = d.design === "within";
  return {
    design: "between" as const,
    unit: "session" as const,
    test,
    source: d.source,
    reason: `a session-level measure: each session is one observation (a session belongs to one condition, so it is ${paired ? "not paired, and " : ""}not counted once per person)`,
    note: paired ? "the same people took part in sessions of both conditions, so the sessions are not fully independent: read p with that in mind" : undefined,
  };
}

/** One measure's summaries per condition (over units) and its tests (raw p; {@link compareMeasures} adjusts). */
function compareMeasure(
  measure: string,
  level: MeasureComparison["level"],
  values: readonly UnitValue[],
  options: MeasureCompareOptions,
  draws: Draws,
): MeasureComparison {
  const inference = options.inference ?? DEFAULT_INFERENCE;
  const how = measureDesign(level, inference);
  const { design, unit } = how;
  const conditions = [...new Set(values.map((v) => v.condition))].sort();
  const perCondition = unitValues(values, unit, options.persons ?? new Map());
  const unitsIn = (c: string) => perCondition.get(c) ?? new Map<string, number>();
  const byCondition: Record<string, ValueSummary> = {};
  for (const c of conditions) {
    const missing = values.filter((v) => v.condition === c && (v.value === null || !Number.isFinite(v.value))).length;
    byCondition[c] = { ...summariseValues([...unitsIn(c).values()]), missing };
  }
  const row = chooseTest(design, how.test);
  const tests: ConditionTest[] = [];
  for (const [a, b] of comparisonPairs(conditions, options.control)) {
    const ma = unitsIn(a);
    const mb = unitsIn(b);
    const shared = [...ma.keys()].filter((u) => mb.has(u)).sort();
    const xs = design === "within" ? shared.map((u) => ma.get(u)!) : [...ma.values()];
    const ys = design === "within" ? shared.map((u) => mb.get(u)!) : [...mb.values()];
    const base = {
      a,
      b,
      test: row.test,
      testName: row.name,
      statisticName: row.statisticName,
      nA: ma.size,
      nB: mb.size,
      pAdjusted: null,
      adjust: inference.adjust,
    };
    if (design === "within" && shared.length === 0 && ma.size + mb.size > 0) {
      // The declared design does not fit the data: say so on the line instead of "needs 2 pairs (got 0)".
      const skipped = `the design is within-subject but no person has a value in both ${a} and ${b}, so nothing can be paired; if different people took part in each condition, set compare.design to "between" in colloquy.json`;
      tests.push({ ...base, n: 0, statistic: null, p: null, meanDiff: null, skipped });
      continue;
    }
    try {
      const g = testTwoGroups(design, xs, ys, { unit, test: how.test, resamples: inference.resamples, seed: inference.seed, draws });
      const note = [g.p !== null ? g.note : undefined, how.note].filter(Boolean).join("; ");
      tests.push({
        ...base,
        n: design === "within" ? xs.length : xs.length + ys.length,
        statistic: g.statistic,
        ...(g.df !== undefined && g.df !== null ? { df: g.df } : {}),
        p: g.p,
        meanDiff: g.meanDifference,
        effectSizeName: g.effectSizeName,
        effectSize: g.effectSize,
        effectCi95: g.effectCi95,
        smallestP: g.smallestP,
        mde80: g.mde80,
        ...(g.method ? { method: g.method } : {}),
        ...(g.p === null && g.note ? { skipped: g.note } : {}),
        ...(note ? { note } : {}),
      });
    } catch (error) {
      tests.push({ ...base, n: xs.length + ys.length, statistic: null, p: null, meanDiff: null, skipped: errorMessage(error).replace(/^\w+: /, "") });
    }
  }
  return { measure, level, unit, byCondition, design, designSource: how.source, designReason: how.reason, tests };
}

/**
 * Every measure of one analysis compared between conditions. The family is the analysis's
 * measures in one comparison (condition and reference), adjusted for multiplicity by the study's
 * adjustment (Holm by default); tests that did not run stay out of it.
 */
export function compareMeasures(
  measures: readonly { measure: string; level: MeasureComparison["level"]; values: readonly UnitValue[] }[],
  options: MeasureCompareOptions = {},
): MeasureComparison[] {
  // Measures over the same units share their tests' draws of the arrangements (inference/draws.ts).
  const draws = sharedDraws();
  const out = measures.map((m) => compareMeasure(m.measure, m.level, m.values, options, draws));
  const families = new Map<string, ConditionTest[]>();
  for (const t of out.flatMap((c) => c.tests)) {
    const key = `${t.a}\u0000${t.b}`;
    families.set(key, [...(families.get(key) ?? []), t]);
  }
  const adjust = options.inference?.adjust ?? DEFAULT_INFERENCE.adjust;
  for (const family of families.values()) {
    const tested = family.filter((t) => t.p !== null);
    const adjusted = adjustPValues(
      tested.map((t) => t.p!),
      adjust,
    );
    tested.forEach((t, i) => (t.pAdjusted = Number.isFinite(adjusted[i]) ? adjusted[i] : null));
    for (const t of family) t.familySize = tested.length;
  }
  return out;
}
