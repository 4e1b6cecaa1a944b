import { chiSquare, fisherExact, hedgesG, holm, mannWhitneyU, pairedTTest, welchTTest, wilcoxonSignedRank } from "../inference/index.js";
import { cohensDz } from "../inference/effect.js";
import type { FrequencyRow, UnitRow } from "./compare.js";
import { errorMessage } from "../../util/errors.js";
import { pWithRelation } from "../../util/p-value.js";

/**
 * The inferential side of `colloquy compare`. For every pair (condition vs control, or every pair
 * of conditions without a control) and every code, the per-unit values are tested:
 *  - within-subject design: units present in both conditions are paired and tested with the
 *    Wilcoxon signed-rank test and the paired t-test; units present in only one are listed;
 *  - between-subject design: Mann-Whitney U and Welch's t-test on the two samples of units.
 * Then chi-square tests of the code distribution across conditions and across roles (act counts).
 * With holm, p-values are Holm-adjusted within each family (all Wilcoxon tests are one family,
 * all paired t-tests another, …), since a researcher reports one family, not all of them.
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
  family: "wilcoxon" | "paired-t" | "mann-whitney" | "welch" | "chi-square";
  /** Human-readable name, e.g. "Wilcoxon signed-rank (paired, two-sided)". */
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
  p: number | null;
  /** Holm-adjusted p within the family (only with holm). */
  pHolm?: number | null;
  effectSizeName?: string;
  effectSize?: number | null;
  /** How p was computed ("exact", "approx", "permutation", "yates"…). */
  method?: string;
  /** Test-specific numbers (W+, z, mean difference, the chi-square table…). */
  details?: Record<string, unknown>;
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
  options: { design: "within" | "between"; unit: "participant" | "session"; measure: "count" | "proportion"; holm: boolean };
}

const TEST_NAMES = {
  wilcoxon: "Wilcoxon signed-rank (paired, two-sided)",
  "paired-t": "paired t-test (two-sided)",
  "mann-whitney": "Mann-Whitney U (two-sided)",
  welch: "Welch's t-test (two-sided)",
} as const;
const STATISTIC = { wilcoxon: "W", "paired-t": "t", "mann-whitney": "U", welch: "t" } as const;

const num = (v: number | undefined): number | null => (v !== undefined && Number.isFinite(v) ? v : null);

/** Run every test of a comparison; see the module comment for what runs when. */
export function runTests(input: TestInput): { comparisons: Comparison[]; tests: TestResult[] } {
  const { labels, conditions, control, options } = input;
  const pairs: [string, string][] =
    control !== null
      ? conditions.filter((c) => c !== control).map((c) => [c, control])
      : conditions.flatMap((a, i) => conditions.slice(i + 1).map((b) => [b, a] as [string, string]));
  const byCondition = new Map<string, UnitRow[]>();
  for (const u of input.units) {
    const list = byCondition.get(u.condition);
    if (list) list.push(u);
    else byCondition.set(u.condition, [u]);
  }
  const comparisons: Comparison[] = [];
  const tests: TestResult[] = [];

  const value = (u: UnitRow, code: string) => (options.measure === "count" ? u.counts[code] : u.counts[code] / u.total);
  for (const [condition, reference] of pairs) {
    const usable = (list: UnitRow[]) => (options.measure === "proportion" ? list.filter((u) => u.total > 0) : list);
    const all = [...(byCondition.get(condition) ?? []), ...(byCondition.get(reference) ?? [])];
    const emptyUnits = options.measure === "proportion" ? all.filter((u) => u.total === 0).map((u) => `${u.condition}: ${u.unit}`) : [];
    const a = new Map(usable(byCondition.get(condition) ?? []).map((u) => [u.unit, u]));
    const b = new Map(usable(byCondition.get(reference) ?? []).map((u) => [u.unit, u]));
    const common = [...a.keys()].filter((k) => b.has(k)).sort();
    const within = options.design === "within";
    const comparison: Comparison = {
      condition,
      reference,
      design: options.design,
      unit: options.unit,
      measure: options.measure,
      paired: within ? common : null,
      onlyInCondition: [...a.keys()].filter((k) => !b.has(k)).sort(),
      onlyInReference: [...b.keys()].filter((k) => !a.has(k)).sort(),
      emptyUnits,
      nCondition: within ? common.length : a.size,
      nReference: within ? common.length : b.size,
    };
    comparisons.push(comparison);
    const base = { condition, reference, unit: options.unit, measure: options.measure } as const;
    for (const code of labels) {
      const x = within ? common.map((k) => value(a.get(k)!, code)) : [...a.values()].map((u) => value(u, code));
      const y = within ? common.map((k) => value(b.get(k)!, code)) : [...b.values()].map((u) => value(u, code));
      if (x.length + y.length > 0 && x.every((v) => v === 0) && y.every((v) => v === 0)) {
        // Nothing to test; it stays out of the Holm family. The acts of units that could not be
        // paired still count in what the note says, so "none" is never said of 1 vs 3 acts.
        const actsIn = (c: string) => (byCondition.get(c) ?? []).reduce((sum, u) => sum + u.counts[code], 0);
        const [inCondition, inReference] = [actsIn(condition), actsIn(reference)];
        const note =
          inCondition + inReference === 0
            ? "no acts with this code in either condition: not tested"
            : `the ${x.length} paired units have no acts with this code (${condition} has ${inCondition}, ${reference} ${inReference}, all from units present in only one condition): not tested`;
        for (const family of within ? (["wilcoxon", "paired-t"] as const) : (["mann-whitney", "welch"] as const)) {
          tests.push({
            ...base,
            family,
            test: TEST_NAMES[family],
            code,
            n: within ? x.length : x.length + y.length,
            statisticName: STATISTIC[family],
            statistic: null,
            p: null,
            note,
          });
        }
        continue;
      }
      if (within) {
        tests.push(
          guard({ ...base, family: "wilcoxon", test: TEST_NAMES.wilcoxon, code, n: x.length, statisticName: "W" }, () => {
            if (x.length === 0) throw new Error("no units are present in both conditions, so nothing can be paired");
            const r = wilcoxonSignedRank(x, y);
            return {
              statistic: r.W,
              p: num(r.p),
              effectSizeName: "r = |z| / sqrt(n)",
              effectSize: num(r.r),
              method: r.method,
              details: { Wplus: r.Wplus, Wminus: r.Wminus, z: num(r.z), nonZeroPairs: r.n, zeroDifferences: r.nZero },
              ...(r.n === 0 ? { note: "every pair has the same value: no non-zero differences to rank" } : {}),
            };
          }),
        );
        tests.push(
          guard({ ...base, family: "paired-t", test: TEST_NAMES["paired-t"], code, n: x.length, statisticName: "t" }, () => {
            const r = pairedTTest(x, y);
            return {
              statistic: num(r.t),
              df: r.df,
              p: num(r.p),
              effectSizeName: "Cohen's dz = mean difference / SD of differences",
              effectSize: cohensDz(x, y),
              details: { meanDifference: r.meanDiff, se: r.se },
              ...(r.se === 0 ? { note: "the differences have no variance, so t is undefined" } : {}),
            };
          }),
        );
      } else {
        const n = x.length + y.length;
        tests.push(
          guard(
            {
              ...base,
              family: "mann-whitney",
              test: TEST_NAMES["mann-whitney"],
              code,
              n,
              statisticName: "U",
              details: { nCondition: x.length, nReference: y.length },
            },
            () => {
              const r = mannWhitneyU(x, y);
              return {
                statistic: r.U,
                p: num(r.p),
                effectSizeName: "rank-biserial correlation",
                effectSize: num(r.rankBiserial),
                method: r.method,
                details: { nCondition: r.nX, nReference: r.nY, U2: r.U2, z: num(r.z) },
              };
            },
          ),
        );
        tests.push(
          guard(
            { ...base, family: "welch", test: TEST_NAMES.welch, code, n, statisticName: "t", details: { nCondition: x.length, nReference: y.length } },
            () => {
              const r = welchTTest(x, y);
              return {
                statistic: num(r.t),
                df: num(r.df),
                p: num(r.p),
                effectSizeName: "Hedges' g",
                effectSize: hedgesG(x, y),
                details: { nCondition: r.nX, nReference: r.nY, meanCondition: r.meanX, meanReference: r.meanY },
                ...(Number.isNaN(r.t) ? { note: "every unit has the same value in both conditions: t and the effect size are undefined" } : {}),
                ...(Math.abs(r.t) === Infinity
                  ? { note: "neither condition's values vary but their means differ: t is infinite and the effect size undefined" }
                  : {}),
              };
            },
          ),
        );
      }
    }
  }
  tests.push(chiSquareAcross("conditions", input.byCondition, labels));
  tests.push(chiSquareAcross("roles", input.byRole, labels));
  for (const t of tests) explainMissing(t);
  if (options.holm) applyHolm(tests);
  return { comparisons, tests };
}

/** Fewer pairs (or units per side) than this: the test's p is noted as descriptive. */
const SMALL_N = 6;

/**
 * Every line says its statistic, df, p and effect size, or why one is missing; and a test on
 * very few units says so, since a reviewer reads p differently with 4 pairs than with 40.
 */
function explainMissing(t: TestResult): void {
  const add = (text: string) => (t.note = t.note ? `${t.note}; ${text}` : text);
  if (t.statistic === null && !t.note) add("statistic undefined for these values");
  if (t.statistic !== null && t.family !== "chi-square" && (t.effectSize === undefined || t.effectSize === null) && !t.note)
    add("effect size undefined: the values have no spread");
  if (t.family === "chi-square" || t.p === null) return;
  const sizes = t.family === "wilcoxon" || t.family === "paired-t" ? [t.n] : [Number(t.details?.nCondition), Number(t.details?.nReference)];
  const smallest = Math.min(...sizes);
  if (smallest < SMALL_N)
    add(
      `small sample (${t.family === "wilcoxon" || t.family === "paired-t" ? `${t.n} pairs` : `${sizes.join(" and ")} units`}): read p as descriptive, not confirmatory`,
    );
}

/** Run a test; an error (too few observations, …) becomes a result with p null and the reason. */
function guard(base: Omit<TestResult, "p" | "statistic">, run: () => Partial<TestResult>): TestResult {
  try {
    return { ...base, p: null, statistic: null, ...run() };
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
  };
  if (usedRows.length < 2 || usedCodes.length < 2) {
    return { ...base, note: `needs at least 2 ${across} and 2 codes with acts (has ${usedRows.length} and ${usedCodes.length})` };
  }
  return guard(base, () => {
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
          `${sparse} (${chiText}), so Fisher's exact test is reported` + (Number.isFinite(exact.oddsRatio) ? "" : "; the odds ratio is infinite (a zero cell)"),
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
      ...(smallCounts ? { note: smallCounts } : {}),
    };
  });
}

function applyHolm(tests: TestResult[]): void {
  const families = new Map<string, TestResult[]>();
  for (const t of tests) {
    const list = families.get(t.family);
    if (list) list.push(t);
    else families.set(t.family, [t]);
  }
  for (const list of families.values()) {
    const withP = list.filter((t) => t.p !== null);
    const adjusted = holm(withP.map((t) => t.p!));
    withP.forEach((t, i) => (t.pHolm = num(adjusted[i])));
    for (const t of list) if (t.p === null) t.pHolm = null;
  }
}
