import { chiSquare, chooseTest, fisherExact, testTwoGroups, type DecisionRow, type GroupTest, type TestId } from "../inference/index.js";
import { sharedDraws } from "../inference/draws.js";
import { adjustPValues, ADJUSTMENT_NAMES, type Adjustment } from "../inference/multiplicity.js";
import { comparisonPairs, type InferenceSettings } from "../shared/design.js";
import type { FrequencyRow, UnitRow } from "./compare.js";
import { errorMessage } from "../../util/errors.js";
import { pWithRelation } from "../../util/p-value.js";

/**
 * The inferential side of `colloquy compare`: one pre-declared test per comparison and code, on
 * one value per unit of analysis (a session, or a person by id; ../shared/design.ts), chosen by
 * the decision table (../inference/decision.ts): a permutation test by default, Mann-Whitney,
 * Welch, or for pairs Wilcoxon as named alternatives. Comparisons and their direction (condition
 * minus reference) come from ../shared/design.ts (comparisonPairs); each comparison's codes are
 * one family, adjusted for multiplicity (Holm by default); raw and adjusted p are both kept. A design that
 * cannot reach p < .05 at all is said so on the line instead of a test. Chi-square tests of the
 * act counts are kept as description: acts are nested in sessions and speakers, not independent.
 */

/** Which units each pairwise comparison used. */
export interface Comparison {
  condition: string;
  reference: string;
  design: "within" | "between";
  unit: "participant" | "session";
  measure: "count" | "proportion";
  /** within: units present in both conditions (the pairs, in order); between: null. */
  paired: string[] | null;
  /** Units only in the condition / only in the reference (within: not tested, reported here). */
  onlyInCondition: string[];
  onlyInReference: string[];
  /** Units with no counted acts, left out because their proportion is undefined (measure "proportion"). */
  emptyUnits: string[];
  /** Observations per side that the tests used. */
  nCondition: number;
  nReference: number;
}

/** One test. Every result says which test ran, on what unit and on how many observations. */
export interface TestResult {
  /** The test (decision-table id), or "chi-square" for the descriptive act-count tables. */
  family: TestId | "chi-square";
  /** Human-readable name, e.g. "permutation test of the difference in means (two-sided)". */
  test: string;
  code?: string;
  condition?: string;
  reference?: string;
  /** Chi-square: the rows of the table. */
  across?: "conditions" | "roles";
  unit: "participant" | "session" | "act";
  measure?: "count" | "proportion";
  /** Pairs (paired tests), units in both samples (independent tests) or acts (chi-square). */
  n: number;
  statisticName: string;
  statistic: number | null;
  df?: number | null;
  /** Raw two-sided p (null when the test did not run: see note). */
  p: number | null;
  /** p adjusted within the family (the comparison's codes) by `adjust`; what the report's text uses. */
  pAdjusted?: number | null;
  adjust?: Adjustment;
  /** Tests in the family the adjustment counted. */
  familySize?: number;
  effectSizeName?: string;
  effectSize?: number | null;
  /** 95% bootstrap interval of the effect size over units, and how it was made. */
  effectCi95?: [number, number] | null;
  effectCiMethod?: string;
  /** The smallest p the test can give at this n, and the minimum detectable effect (80% power, α = .05). */
  smallestP?: number | null;
  mde80?: number | null;
  /** How p was computed ("exact (20 arrangements)", "Monte Carlo (…)", "Pearson"…). */
  method?: string;
  /** Test-specific numbers (sizes, means, the chi-square table…). */
  details?: Record<string, unknown>;
  /** Chi-square of act counts: shown as description, not a test of the conditions. */
  descriptive?: boolean;
  /** Why a test could not run or what to keep in mind. */
  note?: string;
}

export interface TestInput {
  labels: string[];
  conditions: string[];
  control: string | null;
  units: UnitRow[];
  byCondition: FrequencyRow[];
  byRole: FrequencyRow[];
  measure: "count" | "proportion";
  inference: InferenceSettings;
}

const num = (v: number | undefined | null): number | null => (v !== undefined && v !== null && Number.isFinite(v) ? v : null);

/** The note of a chi-square over acts, naming what it is not a test of (the conditions, or the roles). */
const actsNote = (across: "conditions" | "roles") =>
  `descriptive: acts are nested in sessions and speakers, so they are not independent observations and this p is not a test of the ${across} (the per-unit tests are)`;

/** Run every test of a comparison; see the module comment for what runs when. */
export function runTests(input: TestInput): { comparisons: Comparison[]; tests: TestResult[] } {
  const { labels, conditions, control, measure, inference } = input;
  const { design, unit } = inference.design;
  const pairs = comparisonPairs(conditions, control);
  const byCondition = new Map<string, UnitRow[]>();
  for (const u of input.units) {
    const list = byCondition.get(u.condition);
    if (list) list.push(u);
    else byCondition.set(u.condition, [u]);
  }
  const comparisons: Comparison[] = [];
  const tests: TestResult[] = [];

  // Acts per session (a person seen in two sessions of a condition: the mean of the two), or the share of the unit's acts.
  const value = (u: UnitRow, code: string) => (measure === "count" ? u.counts[code] / u.sessions : u.counts[code] / u.total);
  const within = design === "within";
  const row = chooseTest(design, inference.test);
  // Every code of a comparison is tested over the same units: their tests share one draw of the arrangements.
  const draws = sharedDraws();
  for (const [condition, reference] of pairs) {
    const usable = (list: UnitRow[]) => (measure === "proportion" ? list.filter((u) => u.total > 0) : list);
    const all = [...(byCondition.get(condition) ?? []), ...(byCondition.get(reference) ?? [])];
    const emptyUnits = measure === "proportion" ? all.filter((u) => u.total === 0).map((u) => `${u.condition}: ${u.unit}`) : [];
    const a = new Map(usable(byCondition.get(condition) ?? []).map((u) => [u.unit, u]));
    const b = new Map(usable(byCondition.get(reference) ?? []).map((u) => [u.unit, u]));
    const common = [...a.keys()].filter((k) => b.has(k)).sort();
    comparisons.push({
      condition,
      reference,
      design,
      unit,
      measure,
      paired: within ? common : null,
      onlyInCondition: [...a.keys()].filter((k) => !b.has(k)).sort(),
      onlyInReference: [...b.keys()].filter((k) => !a.has(k)).sort(),
      emptyUnits,
      nCondition: within ? common.length : a.size,
      nReference: within ? common.length : b.size,
    });
    const family: TestResult[] = [];
    for (const code of labels) {
      const x = within ? common.map((k) => value(a.get(k)!, code)) : [...a.values()].map((u) => value(u, code));
      const y = within ? common.map((k) => value(b.get(k)!, code)) : [...b.values()].map((u) => value(u, code));
      const base = { condition, reference, unit, measure, code, n: within ? x.length : x.length + y.length } as const;
      if (x.every((v) => v === 0) && y.every((v) => v === 0)) {
        // Nothing to test; it stays out of the family. Acts of units that could not be paired
        // still count in what the note says, so "none" is never said of 1 vs 3 acts.
        const actsIn = (c: string) => (byCondition.get(c) ?? []).reduce((sum, u) => sum + u.counts[code], 0);
        const [inCondition, inReference] = [actsIn(condition), actsIn(reference)];
        const note =
          inCondition + inReference === 0
            ? "no acts with this code in either condition: not tested"
            : `the ${x.length} paired units have no acts with this code (${condition} has ${inCondition}, ${reference} ${inReference}, all from units present in only one condition): not tested`;
        tests.push({ ...base, family: row.test, test: row.name, statisticName: row.statisticName, statistic: null, p: null, note });
        continue;
      }
      const t = guard(base, row, () =>
        testTwoGroups(design, x, y, { unit, test: inference.test, resamples: inference.resamples, seed: inference.seed, draws }),
      );
      family.push(t);
      tests.push(t);
    }
    adjustFamily(family, inference.adjust);
  }
  tests.push(chiSquareAcross("conditions", input.byCondition, labels));
  tests.push(chiSquareAcross("roles", input.byRole, labels));
  for (const t of tests) explainMissing(t);
  return { comparisons, tests };
}

/** The group test as a line of the compare file. */
function fromGroupTest(base: Omit<TestResult, "family" | "test" | "statisticName" | "statistic" | "p">, g: GroupTest): TestResult {
  return {
    ...base,
    family: g.test,
    test: g.testName,
    statisticName: g.statisticName,
    statistic: num(g.statistic),
    ...(g.df !== undefined ? { df: g.df } : {}),
    p: g.p,
    effectSizeName: g.effectSizeName,
    effectSize: g.effectSize,
    effectCi95: g.effectCi95,
    effectCiMethod: g.effectCiMethod,
    smallestP: g.smallestP,
    mde80: g.mde80,
    ...(g.method ? { method: g.method } : {}),
    details: { nCondition: g.nA, nReference: g.nB, meanDifference: g.meanDifference },
    ...(g.note ? { note: g.note } : {}),
  };
}

/** Adjust the p of one family (one comparison's codes) and record the adjusted p, the method and the family's size. */
function adjustFamily(family: TestResult[], adjust: Adjustment): void {
  const tested = family.filter((t) => t.p !== null);
  const adjusted = adjustPValues(
    tested.map((t) => t.p!),
    adjust,
  );
  tested.forEach((t, i) => Object.assign(t, { pAdjusted: num(adjusted[i]), adjust, familySize: tested.length }));
  for (const t of family) if (t.p === null) Object.assign(t, { pAdjusted: null, adjust, familySize: tested.length });
}

/**
 * Every line says its statistic, p and effect size, or why one is missing.
 */
function explainMissing(t: TestResult): void {
  const add = (text: string) => (t.note = t.note ? `${t.note}; ${text}` : text);
  if (t.statistic === null && !t.note) add("statistic undefined for these values");
  if (t.statistic !== null && t.family !== "chi-square" && (t.effectSize === undefined || t.effectSize === null) && !t.note)
    add("effect size undefined: the values have no spread");
}

/** The family's adjustment in words ("Holm-adjusted within each comparison's 12 codes"). */
export function adjustmentText(adjust: Adjustment): string {
  return adjust === "none" ? "unadjusted for multiple tests" : `${ADJUSTMENT_NAMES[adjust]}-adjusted within each comparison's codes`;
}

/** Run a group test; an error (too few observations, …) becomes a line with p null and the reason. */
function guard(base: Omit<TestResult, "family" | "test" | "statisticName" | "statistic" | "p">, row: DecisionRow, run: () => GroupTest): TestResult {
  try {
    return fromGroupTest(base, run());
  } catch (error) {
    return {
      ...base,
      family: row.test,
      test: row.name,
      statisticName: row.statisticName,
      statistic: null,
      p: null,
      note: `not computed: ${errorMessage(error).replace(/^\w+: /, "")}`,
    };
  }
}

/** Run a chi-square; an error becomes a line with p null and the reason. */
function guardChi(base: TestResult, run: () => Partial<TestResult>): TestResult {
  try {
    return { ...base, ...run() };
  } catch (error) {
    return { ...base, statistic: null, p: null, note: `not computed: ${errorMessage(error).replace(/^\w+: /, "")}` };
  }
}

/** Chi-square of act counts (rows: conditions or roles; columns: codes), empty rows and columns left out and listed. */
function chiSquareAcross(across: "conditions" | "roles", rows: readonly FrequencyRow[], labels: readonly string[]): TestResult {
  const usedRows = rows.filter((r) => r.total > 0);
  const usedCodes = labels.filter((code) => usedRows.some((r) => r.counts[code] > 0));
  const table = usedRows.map((r) => usedCodes.map((code) => r.counts[code]));
  const n = table.reduce((a, row) => a + row.reduce((x, y) => x + y, 0), 0);
  const details = {
    rows: usedRows.map((r) => r.key),
    columns: usedCodes,
    table,
    emptyRows: rows.filter((r) => r.total === 0).map((r) => r.key),
    emptyColumns: labels.filter((c) => !usedCodes.includes(c)),
  };
  const base: TestResult = {
    family: "chi-square",
    test: `chi-square test of independence (${across} × codes)`,
    across,
    unit: "act",
    n,
    statisticName: "chi2",
    statistic: null,
    p: null,
    details,
    descriptive: true,
  };
  if (usedRows.length < 2 || usedCodes.length < 2) {
    return { ...base, note: `needs at least 2 ${across} and 2 codes with acts (has ${usedRows.length} and ${usedCodes.length})` };
  }
  return guardChi(base, () => {
    const r = chiSquare(table);
    const cells = r.expected.flat();
    const below5 = cells.filter((e) => e < 5).length;
    const minExpected = Math.min(...cells);
    // Cochran's rule: the approximation is poor when over 20% of expected counts are below 5 or any is below 1.
    const poor = below5 / cells.length > 0.2 || minExpected < 1;
    const exact = table.length === 2 && table[0].length === 2 ? fisherExact(table) : null;
    const chiMethod = r.yates ? "Yates continuity correction (dof 1)" : "Pearson";
    const chiText = `χ²(${r.dof}, N = ${n}) = ${r.chi2.toFixed(2)}, ${Number.isFinite(r.p) ? pWithRelation(r.p) : "p = n/a"}${r.yates ? " with Yates' correction" : ""}`;
    const sparse = `${below5} of ${cells.length} cells have expected counts below 5 (smallest ${minExpected.toFixed(2)}; ${n} acts for df ${r.dof}): the chi-square approximation is unreliable`;
    const chiDetails = {
      ...details,
      expected: r.expected,
      minExpected,
      cellsBelow5: below5,
      cells: cells.length,
      ...(exact ? { fisherExact: { p: exact.p, oddsRatio: num(exact.oddsRatio) } } : {}),
    };
    if (poor && exact) {
      // A 2×2 table that fails Cochran's rule: Fisher's exact test is the reported test (its p is
      // the line's p, the APA text's and the Holm input); the chi-square stays in the details and the note.
      return {
        test: `Fisher's exact test (${across} × codes, 2 × 2, two-sided)`,
        statisticName: "odds ratio",
        statistic: num(exact.oddsRatio),
        df: null,
        p: num(exact.p),
        effectSizeName: "Cramér's V",
        effectSize: num(r.cramersV),
        method: "Fisher's exact (two-sided)",
        details: { ...chiDetails, chiSquare: { statistic: r.chi2, df: r.dof, p: num(r.p), method: chiMethod } },
        note:
          `${actsNote(across)}; ${sparse} (${chiText}), so Fisher's exact test is reported` +
          (Number.isFinite(exact.oddsRatio) ? "" : "; the odds ratio is infinite (a zero cell)"),
      };
    }
    const smallCounts = poor
      ? `${sparse}; collapse rare codes (--collapse / compare.collapse) or drop them (--drop) until at most 20% of cells have expected counts below 5 and none below 1`
      : below5 > 0
        ? `${below5} of ${cells.length} cells have expected counts below 5 (within Cochran's rule: at most 20%, none below 1)`
        : undefined;
    return {
      statistic: r.chi2,
      df: r.dof,
      p: num(r.p),
      effectSizeName: "Cramér's V",
      effectSize: num(r.cramersV),
      method: chiMethod,
      details: chiDetails,
      note: smallCounts ? `${actsNote(across)}; ${smallCounts}` : actsNote(across),
    };
  });
}
