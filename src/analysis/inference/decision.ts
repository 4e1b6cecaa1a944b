import type { EffectSize } from "./effect-sizes.js";

/**
 * The decision table: which one test answers "does this measure differ between two conditions?",
 * chosen in advance from the design (docs/statistics.md prints this table with its sources; a
 * test keeps the two the same). Every row is one test with its effect size. The default of each
 * design is used unless the study names an alternative of the same design (`compare.test` in
 * colloquy.json, `--test`); a row never gets a second test.
 */

export type TestId = "permutation" | "mann-whitney" | "welch" | "paired-permutation" | "wilcoxon";

export interface DecisionRow {
  test: TestId;
  /** "between": independent units (sessions, or different people) per condition; "within": the same people in both, paired by person id. */
  design: "between" | "within";
  /** The default test of its design. */
  default: boolean;
  name: string;
  statisticName: string;
  effect: EffectSize;
  /** When to choose it, in one line. */
  when: string;
  /** Where the test and its conventions come from. */
  sources: string;
}

export const decisionTable: readonly DecisionRow[] = [
  {
    test: "permutation",
    design: "between",
    default: true,
    name: "permutation test of the difference in means (two-sided)",
    statisticName: "mean difference",
    effect: "hedges-g",
    when: "independent units (the default: each session is one observation); exact over all C(nA + nB, nA) splits when they are at most the resamples, else Monte Carlo with a seed",
    sources: "Ernst 2004 (Statistical Science 19:676); Phipson & Smyth 2010 (+1 Monte Carlo p); scipy.stats.permutation_test",
  },
  {
    test: "mann-whitney",
    design: "between",
    default: false,
    name: "Mann-Whitney U (two-sided)",
    statisticName: "U",
    effect: "cliffs-delta",
    when: "independent units, when the measure is ordinal or a few units dominate the means",
    sources: "Mann & Whitney 1947; Cliff 1993 (delta = 2U/(nA·nB) - 1); scipy.stats.mannwhitneyu",
  },
  {
    test: "welch",
    design: "between",
    default: false,
    name: "Welch's t-test (two-sided)",
    statisticName: "t",
    effect: "hedges-g",
    when: "independent units, many per condition (about 20 or more), means roughly normal",
    sources: "Welch 1947; Delacre, Lakens & Leys 2017; Hedges & Olkin 1985 (g); scipy.stats.ttest_ind(equal_var=False)",
  },
  {
    test: "paired-permutation",
    design: "within",
    default: true,
    name: "paired permutation test of the mean difference (sign-flip, two-sided)",
    statisticName: "mean difference",
    effect: "hedges-gz",
    when: "the same people in both conditions, paired by person id (declared: compare.unit participant); exact over all 2^n sign flips when they are at most the resamples",
    sources:
      'Good 2005 (Permutation, Parametric and Bootstrap Tests of Hypotheses, ch. 3); Lakens 2013 (g_z); scipy.stats.permutation_test(permutation_type="samples")',
  },
  {
    test: "wilcoxon",
    design: "within",
    default: false,
    name: "Wilcoxon signed-rank (paired, two-sided)",
    statisticName: "W",
    effect: "rank-biserial",
    when: "the same people in both conditions, when the measure is ordinal or a few people dominate the mean difference",
    sources: 'Wilcoxon 1945; Kerby 2014 (matched-pairs rank-biserial, zero differences split); scipy.stats.wilcoxon (zero_method "wilcox" for p)',
  },
];

/** The one test for a design: the named one (which must belong to the design) or the design's default. */
export function chooseTest(design: "between" | "within", requested?: TestId): DecisionRow {
  if (requested === undefined) return decisionTable.find((r) => r.design === design && r.default)!;
  const row = decisionTable.find((r) => r.test === requested)!;
  if (row.design !== design) {
    const fits = decisionTable.filter((r) => r.design === design).map((r) => r.test);
    throw new Error(`the ${requested} test is for a ${row.design}-subject design, but the design is ${design}-subject; choose one of ${fits.join(", ")}`);
  }
  return row;
}
