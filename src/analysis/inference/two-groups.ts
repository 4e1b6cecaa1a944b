import type { Draws } from "./draws.js";
import { chooseTest, type DecisionRow, type TestId } from "./decision.js";
import { EFFECT_SIZE_NAMES, effectInterval, effectSize } from "./effect-sizes.js";
import { mannWhitneyU } from "./mannwhitney.js";
import { independentArrangements, pairedArrangements, pairedPermutationTest, permutationTest, smallestTwoSidedP } from "./permutation.js";
import { minimumDetectableEffect } from "./power.js";
import { mean } from "./ranks.js";
import { welchTTest } from "./ttest.js";
import { wilcoxonSignedRank } from "./wilcoxon.js";

/**
 * One pre-declared test of one measure between two conditions, on one value per unit: the
 * decision table's test (./decision.ts), its effect size with a bootstrap interval over the
 * units, the smallest p the test can give at this n and the minimum detectable effect. When the
 * test cannot reach p < alpha at all (3 vs 3 sessions), the line says so (the report's text then
 * says that instead of the test).
 */
export interface GroupTest {
  test: TestId;
  /** e.g. "permutation test of the difference in means (two-sided)". */
  testName: string;
  /** Observations per side (pairs: both are the number of pairs). */
  nA: number;
  nB: number;
  statisticName: string;
  statistic: number | null;
  df?: number | null;
  /** Raw two-sided p; null when the test did not run (see note). */
  p: number | null;
  /** "exact (20 arrangements)", "Monte Carlo (10000 resamples, seed 1)", "approx" … */
  method?: string;
  /** The smallest two-sided p an exact test can give at these sizes (null for Welch's t). */
  smallestP: number | null;
  /** Mean of condition minus mean of reference (paired: mean of the differences). */
  meanDifference: number | null;
  effectSizeName: string;
  effectSize: number | null;
  effectCi95: [number, number] | null;
  effectCiMethod: string;
  /** Minimum detectable |g| (or |g_z|) at 80% power, two-sided alpha; only where a test ran. */
  mde80: number | null;
  /** What to keep in mind, or why the test did not run. */
  note?: string;
}

export interface GroupTestOptions {
  /** The unit's name, for notes ("session", "participant"). */
  unit: string;
  test?: TestId;
  alpha?: number;
  resamples?: number;
  seed?: number;
  /** Draws shared by the tests over the same units (./draws.ts: a comparison's codes or measures); drawn per test without. */
  draws?: Draws;
}

/** ".10", ".05", ".004": two significant decimals for the round numbers these notes state. */
const shortP = (p: number): string => (p >= 0.01 ? p.toFixed(2) : p.toPrecision(1)).replace(/^0\./, ".");

const fixed = (v: number | null | undefined): number | null => (v !== null && v !== undefined && Number.isFinite(v) ? v : null);

/** Test condition values x against reference values y (paired designs: x[i] and y[i] are one person). */
export function testTwoGroups(design: "between" | "within", x: readonly number[], y: readonly number[], options: GroupTestOptions): GroupTest {
  const row = chooseTest(design, options.test);
  const alpha = options.alpha ?? 0.05;
  const paired = design === "within";
  const unit = options.unit;
  const effect = fixed(effectSize(row.effect, x, y));
  const interval = effectInterval(row.effect, x, y, unit, options.seed, options.draws);
  const base: GroupTest = {
    test: row.test,
    testName: row.name,
    nA: x.length,
    nB: y.length,
    statisticName: row.statisticName,
    statistic: null,
    p: null,
    smallestP: smallest(row, x, y),
    meanDifference: x.length && y.length ? (paired ? mean(x.map((v, i) => v - y[i])) : mean(x) - mean(y)) : null,
    effectSizeName: EFFECT_SIZE_NAMES[row.effect],
    effectSize: effect,
    effectCi95: interval.ci95,
    effectCiMethod: interval.method,
    mde80: null,
  };
  const sizes = paired ? `${x.length} paired ${unit}s` : `${x.length} vs ${y.length} ${unit}s`;
  if (paired ? x.length < 2 : x.length < 2 || y.length < 2) {
    return { ...base, note: `${sizes}: too few to test (the ${unit}s' values are listed in the file)` };
  }
  const ran = run(row, x, y, options);
  const mde80 = fixed(minimumDetectableEffect(paired ? { pairs: x.length } : { nA: x.length, nB: y.length }, alpha));
  // Too few units to reach alpha at all: the test still runs (its p is exact and kept, and
  // adjusted with its family), but the line says plainly that it cannot be significant.
  const cannot =
    base.smallestP !== null && base.smallestP > alpha
      ? `${sizes}: the smallest two-sided p this test can give is ${shortP(base.smallestP)}, so it cannot reach p < ${shortP(alpha)}; read p and the effect size as descriptive`
      : undefined;
  const noSpread = ran.p === null ? "every value is the same in both conditions: nothing to test" : undefined;
  const note = [noSpread, cannot].filter(Boolean).join("; ");
  return { ...base, ...ran, mde80, ...(note ? { note } : {}) };
}

/** Whether a test's n is too small for it ever to reach p < alpha (3 vs 3 sessions, 3 pairs). */
export function cannotReach(t: { smallestP?: number | null }, alpha = 0.05): boolean {
  return t.smallestP !== undefined && t.smallestP !== null && t.smallestP > alpha;
}

/**
 * The smallest two-sided p the test can give. Paired tests: a pair with no difference changes
 * nothing when its sign flips (and Wilcoxon drops it), so only the pairs that differ count.
 */
function smallest(row: DecisionRow, x: readonly number[], y: readonly number[]): number | null {
  if (row.test === "welch") return null;
  if (row.design === "within") return smallestTwoSidedP(pairedArrangements(x.filter((v, i) => v !== y[i]).length));
  return smallestTwoSidedP(independentArrangements(x.length, y.length));
}

function run(row: DecisionRow, x: readonly number[], y: readonly number[], options: GroupTestOptions): Pick<GroupTest, "statistic" | "df" | "p" | "method"> {
  const permutation = { resamples: options.resamples, seed: options.seed, draws: options.draws };
  const method = (r: { method: string; arrangements: number; seed?: number }) =>
    r.method === "exact" ? `exact (${r.arrangements} arrangements)` : `Monte Carlo (${r.arrangements} resamples, seed ${r.seed})`;
  switch (row.test) {
    case "permutation": {
      const r = permutationTest(x, y, permutation);
      return { statistic: r.statistic, p: fixed(r.p), method: method(r) };
    }
    case "paired-permutation": {
      const r = pairedPermutationTest(x, y, permutation);
      return { statistic: r.statistic, p: x.some((v, i) => v !== y[i]) ? fixed(r.p) : null, method: method(r) };
    }
    case "mann-whitney": {
      const r = mannWhitneyU(x, y);
      return { statistic: r.U, p: fixed(r.p), method: r.method };
    }
    case "welch": {
      const r = welchTTest(x, y);
      return { statistic: fixed(r.t), df: fixed(r.df), p: fixed(r.p), method: "Welch-Satterthwaite df" };
    }
    case "wilcoxon": {
      const r = wilcoxonSignedRank(x, y);
      return { statistic: r.W, p: r.n > 0 ? fixed(r.p) : null, method: r.method };
    }
  }
}
