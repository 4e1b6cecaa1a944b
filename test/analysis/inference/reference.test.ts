// Reference values computed with SciPy 1.17.1 (python3 with scipy installed) by
// test/analysis/inference/reference.py; each case names the exact SciPy call, applied to its own x / y / table.
// Regenerate: python3 test/analysis/inference/reference.py (prints the JSON these literals came from).
import { describe, expect, it } from "vitest";
import {
  chiSquareSf,
  gammaP,
  incompleteBeta,
  normalCdf,
  tTwoSided,
  wilcoxonSignedRank,
  pairedTTest,
  welchTTest,
  mannWhitneyU,
  kendallTau,
  spearman,
  chiSquare,
} from "../../../src/analysis/inference/index.js";

/** |actual - expected| <= 1e-9 + 1e-7·|expected|: well inside the required 1e-6, and relative for tiny p-values. */
function close(actual: number, expected: number, rel = 1e-7): void {
  expect(Math.abs(actual - expected), `actual ${actual} expected ${expected}`).toBeLessThanOrEqual(1e-9 + rel * Math.abs(expected));
}

describe("wilcoxonSignedRank vs scipy.stats.wilcoxon", () => {
  // python: stats.wilcoxon(x, y) ; z from stats.wilcoxon(x, y, method='asymptotic').zstatistic
  it("wilcoxon exact n=9 (scipy docs data)", () => {
    const c = {
      name: "wilcoxon exact n=9 (scipy docs data)",
      x: [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3],
      y: [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29],
      W: 5.0,
      p: 0.0390625,
      z: -2.073221072156823,
    };
    const r = c.y ? wilcoxonSignedRank(c.x, c.y) : wilcoxonSignedRank(c.x);
    close(r.W, c.W);
    close(r.p, c.p);
    close(r.z, c.z);
    close(r.r, Math.abs(c.z) / Math.sqrt(r.n));
  });
  // python: stats.wilcoxon(x, y) ; z from stats.wilcoxon(x, y, method='asymptotic').zstatistic
  it("wilcoxon exact n=20", () => {
    const c = {
      name: "wilcoxon exact n=20",
      x: [10.004, 10.896, 9.178, 7.328, 8.636, 7.025, 10.18, 14.021, 8.523, 8.139, 11.47, 11.071, 10.316, 7.209, 9.912, 12.086, 5.967, 8.627, 4.296, 6.131],
      y: [5.475, 10.295, 7.198, 11.814, 11.47, 10.439, 3.45, 9.384, 10.854, 11.34, 6.41, 9.567, 8.064, 8.573, 14.183, 8.577, 10.902, 13.653, 9.249, 10.665],
      W: 90.0,
      p: 0.5958194732666016,
      z: -0.559990044709918,
    };
    const r = c.y ? wilcoxonSignedRank(c.x, c.y) : wilcoxonSignedRank(c.x);
    close(r.W, c.W);
    close(r.p, c.p);
    close(r.z, c.z);
    close(r.r, Math.abs(c.z) / Math.sqrt(r.n));
  });
  // python: stats.wilcoxon(x) ; z from stats.wilcoxon(x, method='asymptotic').zstatistic
  it("wilcoxon ties+zero n=9 -> permutation", () => {
    const c = { name: "wilcoxon ties+zero n=9 -> permutation", x: [1, 2, 2, 3, -1, 4, 5, 0, 6], y: null, W: 1.5, p: 0.0234375, z: -2.3161459409338683 };
    const r = c.y ? wilcoxonSignedRank(c.x, c.y) : wilcoxonSignedRank(c.x);
    close(r.W, c.W);
    close(r.p, c.p);
    close(r.z, c.z);
    close(r.r, Math.abs(c.z) / Math.sqrt(r.n));
  });
  // python: stats.wilcoxon(x, y) ; z from stats.wilcoxon(x, y, method='asymptotic').zstatistic
  it("wilcoxon ties n=60 -> approx", () => {
    const c = {
      name: "wilcoxon ties n=60 -> approx",
      x: [
        3.0, 3.0, 2.0, 3.0, 4.0, 1.0, 4.0, 3.0, 2.0, 5.0, 4.0, 2.0, 3.0, 4.0, 3.0, 4.0, 3.0, 4.0, 4.0, 2.0, 3.0, 3.0, 3.0, 2.0, 2.0, 3.0, 4.0, 4.0, 2.0, 2.0,
        4.0, 1.0, 3.0, 3.0, 4.0, 4.0, 3.0, 3.0, 3.0, 5.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 3.0, 3.0, 4.0, 4.0, 3.0, 4.0, 3.0, 4.0, 3.0, 4.0, 2.0, 3.0, 1.0, 1.0,
      ],
      y: [
        3.0, 3.0, 4.0, 6.0, 3.0, 3.0, 4.0, 4.0, 3.0, 3.0, 4.0, 4.0, 2.0, 3.0, 3.0, 2.0, 4.0, 3.0, 4.0, 4.0, 3.0, 3.0, 3.0, 1.0, 2.0, 4.0, 1.0, 4.0, 2.0, 4.0,
        3.0, 4.0, 4.0, 2.0, 5.0, 5.0, 3.0, 3.0, 3.0, 2.0, 4.0, 3.0, 3.0, 3.0, 3.0, 2.0, 5.0, 3.0, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 3.0, 5.0, 3.0,
      ],
      W: 219.0,
      p: 0.2593944614241934,
      z: -1.1278235124482947,
    };
    const r = c.y ? wilcoxonSignedRank(c.x, c.y) : wilcoxonSignedRank(c.x);
    close(r.W, c.W);
    close(r.p, c.p);
    close(r.z, c.z);
    close(r.r, Math.abs(c.z) / Math.sqrt(r.n));
  });
  // python: stats.wilcoxon(x) ; z from stats.wilcoxon(x, method='asymptotic').zstatistic
  it("wilcoxon n=51 no ties -> approx", () => {
    const c = {
      name: "wilcoxon n=51 no ties -> approx",
      x: [
        -1.0541, 0.3373, 1.4073, -1.454, -0.2085, -0.6321, -1.761, 0.7349, -0.0234, 0.0714, -0.7523, 0.4548, -0.5393, -0.1429, -1.1083, -1.2161, 1.3355,
        -0.5071, 0.2917, -0.0338, -0.4411, -0.508, 0.6301, -0.3019, -0.1514, 0.0222, 1.1765, 0.6805, 0.3826, -0.5636, -1.382, 0.9495, 0.9664, -0.1407, 0.5419,
        0.7814, 0.8312, 0.9214, -0.4556, 1.515, -1.2466, 0.8617, 0.4939, 0.8736, 1.879, 1.4844, -1.1452, -1.6887, 0.8169, -1.015, -0.0124,
      ],
      y: null,
      W: 631.0,
      p: 0.764214577844195,
      z: -0.2999509397715297,
    };
    const r = c.y ? wilcoxonSignedRank(c.x, c.y) : wilcoxonSignedRank(c.x);
    close(r.W, c.W);
    close(r.p, c.p);
    close(r.z, c.z);
    close(r.r, Math.abs(c.z) / Math.sqrt(r.n));
  });
});

describe("pairedTTest vs scipy.stats.ttest_rel", () => {
  // python: stats.ttest_rel(x, y)
  it("ttest_rel n=9", () => {
    const c = {
      name: "ttest_rel n=9",
      x: [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3],
      y: [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29],
      t: 3.0353754156485917,
      df: 8.0,
      p: 0.016176627434908088,
    };
    const r = pairedTTest(c.x, c.y);
    close(r.t, c.t);
    close(r.df, c.df);
    close(r.p, c.p);
  });
  // python: stats.ttest_rel(x, y)
  it("ttest_rel n=20", () => {
    const c = {
      name: "ttest_rel n=20",
      x: [10.004, 10.896, 9.178, 7.328, 8.636, 7.025, 10.18, 14.021, 8.523, 8.139, 11.47, 11.071, 10.316, 7.209, 9.912, 12.086, 5.967, 8.627, 4.296, 6.131],
      y: [5.475, 10.295, 7.198, 11.814, 11.47, 10.439, 3.45, 9.384, 10.854, 11.34, 6.41, 9.567, 8.064, 8.573, 14.183, 8.577, 10.902, 13.653, 9.249, 10.665],
      t: -0.5919622905665456,
      df: 19.0,
      p: 0.5608545682355932,
    };
    const r = pairedTTest(c.x, c.y);
    close(r.t, c.t);
    close(r.df, c.df);
    close(r.p, c.p);
  });
});

describe("welchTTest vs scipy.stats.ttest_ind(equal_var=False)", () => {
  // python: stats.ttest_ind(x, y, equal_var=False)
  it("welch 12 vs 30", () => {
    const c = {
      name: "welch 12 vs 30",
      x: [5.84, 3.356, 2.89, 5.259, 5.044, 4.754, 5.039, 4.139, 3.487, 4.833, 4.028, 3.357],
      y: [
        7.517, 5.816, 7.22, 3.032, 4.026, 3.003, 3.34, 6.586, 3.651, 7.068, 7.019, 12.075, 1.822, 8.664, 5.732, 5.958, 1.65, 4.619, 8.23, 5.753, 6.243, 5.128,
        9.464, 5.936, -0.601, 3.924, 0.094, -3.754, 4.41, 10.001,
      ],
      t: -1.1946057711108993,
      df: 37.69880191980032,
      p: 0.23970310720497792,
    };
    const r = welchTTest(c.x, c.y);
    close(r.t, c.t);
    close(r.df, c.df);
    close(r.p, c.p);
  });
  // python: stats.ttest_ind(x, y, equal_var=False)
  it("welch n=9 each", () => {
    const c = {
      name: "welch n=9 each",
      x: [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3],
      y: [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29],
      t: 1.2051727991066508,
      df: 15.795035582541257,
      p: 0.24588283853317094,
    };
    const r = welchTTest(c.x, c.y);
    close(r.t, c.t);
    close(r.df, c.df);
    close(r.p, c.p);
  });
});

describe("mannWhitneyU vs scipy.stats.mannwhitneyu", () => {
  // python: stats.mannwhitneyu(x, y)
  it("mwu exact 5 vs 7", () => {
    const c = { name: "mwu exact 5 vs 7", x: [19.1, 22.3, 17.8, 25.0, 21.6], y: [24.4, 26.1, 23.2, 28.9, 20.5, 27.7, 29.3], U: 5.0, p: 0.04797979797979798 };
    const r = mannWhitneyU(c.x, c.y);
    close(r.U, c.U);
    close(r.p, c.p);
  });
  // python: stats.mannwhitneyu(x, y)
  it("mwu ties 25 vs 18 -> approx", () => {
    const c = {
      name: "mwu ties 25 vs 18 -> approx",
      x: [3.0, 2.0, 2.0, 4.0, 3.0, 3.0, 3.0, 3.0, 4.0, 4.0, 3.0, 2.0, 4.0, 2.0, 4.0, 2.0, 3.0, 3.0, 2.0, 5.0, 4.0, 3.0, 4.0, 3.0, 0.0],
      y: [4.0, 3.0, 4.0, 2.0, 3.0, 3.0, 5.0, 4.0, 3.0, 5.0, 3.0, 3.0, 2.0, 5.0, 4.0, 4.0, 4.0, 4.0],
      U: 153.0,
      p: 0.06459630962664112,
    };
    const r = mannWhitneyU(c.x, c.y);
    close(r.U, c.U);
    close(r.p, c.p);
  });
  // python: stats.mannwhitneyu(x, y)
  it("mwu exact 6 vs 30", () => {
    const c = {
      name: "mwu exact 6 vs 30",
      x: [0.215, -0.252, -0.204, 0.054, 1.512, 0.556],
      y: [
        0.442, -0.079, -0.135, 2.103, 1.007, 0.568, 0.154, -0.609, 0.433, 1.374, 0.107, 0.273, 0.279, 0.61, -1.093, 0.265, -0.354, 1.385, -0.271, 1.077, 2.024,
        0.186, -0.102, 0.691, 0.498, -0.494, 0.961, 2.516, 0.242, 0.297,
      ],
      U: 75.0,
      p: 0.5476909238768822,
    };
    const r = mannWhitneyU(c.x, c.y);
    close(r.U, c.U);
    close(r.p, c.p);
  });
  // python: stats.mannwhitneyu(x, y)
  it("mwu 10 vs 12 no ties -> approx", () => {
    const c = {
      name: "mwu 10 vs 12 no ties -> approx",
      x: [10.004, 10.896, 9.178, 7.328, 8.636, 7.025, 10.18, 14.021, 8.523, 8.139],
      y: [5.475, 10.295, 7.198, 11.814, 11.47, 10.439, 3.45, 9.384, 10.854, 11.34, 6.41, 9.567],
      U: 56.0,
      p: 0.8174832600706254,
    };
    const r = mannWhitneyU(c.x, c.y);
    close(r.U, c.U);
    close(r.p, c.p);
  });
});

describe("kendallTau vs scipy.stats.kendalltau", () => {
  // python: stats.kendalltau(x, y)
  it("kendall exact n=9", () => {
    const c = {
      name: "kendall exact n=9",
      x: [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3],
      y: [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29],
      tau: 0.5144957554275265,
      p: 0.057779571123597245,
    };
    const r = kendallTau(c.x, c.y);
    close(r.tau, c.tau);
    close(r.p, c.p);
  });
  // python: stats.kendalltau(x, y)
  it("kendall exact n=20", () => {
    const c = {
      name: "kendall exact n=20",
      x: [10.004, 10.896, 9.178, 7.328, 8.636, 7.025, 10.18, 14.021, 8.523, 8.139, 11.47, 11.071, 10.316, 7.209, 9.912, 12.086, 5.967, 8.627, 4.296, 6.131],
      y: [5.475, 10.295, 7.198, 11.814, 11.47, 10.439, 3.45, 9.384, 10.854, 11.34, 6.41, 9.567, 8.064, 8.573, 14.183, 8.577, 10.902, 13.653, 9.249, 10.665],
      tau: -0.22105263157894736,
      p: 0.18588304288709082,
    };
    const r = kendallTau(c.x, c.y);
    close(r.tau, c.tau);
    close(r.p, c.p);
  });
  // python: stats.kendalltau(x, y)
  it("kendall ties n=40 -> approx", () => {
    const c = {
      name: "kendall ties n=40 -> approx",
      x: [
        -1.0, 0.0, -1.0, -1.0, 1.0, -1.0, 1.0, 2.0, 0.0, 1.0, 2.0, -0.0, -1.0, -1.0, 0.0, 1.0, 1.0, -1.0, -1.0, -1.0, 0.0, -0.0, 0.0, 0.0, -0.0, -0.0, 0.0,
        -0.0, 1.0, 2.0, 1.0, 0.0, -2.0, 0.0, -2.0, -1.0, 1.0, 1.0, -0.0, -2.0,
      ],
      y: [
        -1.0, -1.0, -0.0, 1.0, 1.0, -2.0, -0.0, 2.0, -0.0, -0.0, 2.0, -1.0, 0.0, 0.0, 1.0, 1.0, 2.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0, -0.0, 0.0, 1.0, -2.0,
        -1.0, 1.0, 2.0, 1.0, 1.0, -2.0, -1.0, -3.0, -0.0, 1.0, -1.0, 1.0, -1.0,
      ],
      tau: 0.5625276207576957,
      p: 2.1029036621618022e-5,
    };
    const r = kendallTau(c.x, c.y);
    close(r.tau, c.tau);
    close(r.p, c.p);
  });
  // python: stats.kendalltau(x, y)
  it("kendall n=40 no ties -> approx", () => {
    const c = {
      name: "kendall n=40 no ties -> approx",
      x: [
        -1.0541, 0.3373, 1.4073, -1.454, -0.2085, -0.6321, -1.761, 0.7349, -0.0234, 0.0714, -0.7523, 0.4548, -0.5393, -0.1429, -1.1083, -1.2161, 1.3355,
        -0.5071, 0.2917, -0.0338, -0.4411, -0.508, 0.6301, -0.3019, -0.1514, 0.0222, 1.1765, 0.6805, 0.3826, -0.5636, -1.382, 0.9495, 0.9664, -0.1407, 0.5419,
        0.7814, 0.8312, 0.9214, -0.4556, 1.515,
      ],
      y: [
        1.3433, -0.3837, -0.2957, -1.1265, 2.5369, -0.1755, 1.5875, -0.6473, 0.1638, -1.6714, -0.3829, 0.9838, -1.2517, 1.0722, 0.3372, -1.044, -0.5016,
        -0.4591, -0.0495, -0.5361, -0.8273, -0.3046, -1.0269, -1.2895, -0.0482, 0.8829, -1.5294, 0.0035, -0.65, -0.9771, 0.8534, -0.5182, 1.4983, -0.7798,
        0.3865, -0.2273, -0.754, 0.5877, -0.155, 0.6032,
      ],
      tau: 0.005128205128205129,
      p: 0.9628287337753054,
    };
    const r = kendallTau(c.x, c.y);
    close(r.tau, c.tau);
    close(r.p, c.p);
  });
});

describe("spearman vs scipy.stats.spearmanr", () => {
  // python: stats.spearmanr(x, y)
  it("spearman n=9", () => {
    const c = {
      name: "spearman n=9",
      x: [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3],
      y: [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29],
      rho: 0.6470816712483338,
      p: 0.05959221388500858,
    };
    const r = spearman(c.x, c.y);
    close(r.rho, c.rho);
    close(r.p, c.p);
  });
  // python: stats.spearmanr(x, y)
  it("spearman ties n=40", () => {
    const c = {
      name: "spearman ties n=40",
      x: [
        -1.0, 0.0, -1.0, -1.0, 1.0, -1.0, 1.0, 2.0, 0.0, 1.0, 2.0, -0.0, -1.0, -1.0, 0.0, 1.0, 1.0, -1.0, -1.0, -1.0, 0.0, -0.0, 0.0, 0.0, -0.0, -0.0, 0.0,
        -0.0, 1.0, 2.0, 1.0, 0.0, -2.0, 0.0, -2.0, -1.0, 1.0, 1.0, -0.0, -2.0,
      ],
      y: [
        -1.0, -1.0, -0.0, 1.0, 1.0, -2.0, -0.0, 2.0, -0.0, -0.0, 2.0, -1.0, 0.0, 0.0, 1.0, 1.0, 2.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0, -0.0, 0.0, 1.0, -2.0,
        -1.0, 1.0, 2.0, 1.0, 1.0, -2.0, -1.0, -3.0, -0.0, 1.0, -1.0, 1.0, -1.0,
      ],
      rho: 0.6386609535940622,
      p: 9.225827245564184e-6,
    };
    const r = spearman(c.x, c.y);
    close(r.rho, c.rho);
    close(r.p, c.p);
  });
});

describe("chiSquare vs scipy.stats.chi2_contingency", () => {
  // python: stats.chi2_contingency(table); V = stats.contingency.association(table, method='cramer')
  it("2x2 with Yates", () => {
    const c = {
      name: "2x2 with Yates",
      table: [
        [12, 5],
        [7, 14],
      ],
      chi2: 3.831932773109244,
      dof: 1,
      p: 0.05028491606049412,
      cramersV: 0.3704792868174742,
      expected: [
        [8.5, 8.5],
        [10.5, 10.5],
      ],
    };
    const r = chiSquare(c.table);
    close(r.chi2, c.chi2);
    expect(r.dof).toBe(c.dof);
    close(r.p, c.p);
    if (c.cramersV !== null) close(r.cramersV, c.cramersV);
    r.expected.forEach((row, i) => row.forEach((e, j) => close(e, c.expected[i][j])));
  });
  // python: stats.chi2_contingency(table); V = stats.contingency.association(table, method='cramer')
  it("2x2 small diff (Yates capped)", () => {
    const c = {
      name: "2x2 small diff (Yates capped)",
      table: [
        [10, 10],
        [10, 11],
      ],
      chi2: 0.0,
      dof: 1,
      p: 1.0,
      cramersV: 0.02380952380952383,
      expected: [
        [9.75609756097561, 10.24390243902439],
        [10.24390243902439, 10.75609756097561],
      ],
    };
    const r = chiSquare(c.table);
    close(r.chi2, c.chi2);
    expect(r.dof).toBe(c.dof);
    close(r.p, c.p);
    if (c.cramersV !== null) close(r.cramersV, c.cramersV);
    r.expected.forEach((row, i) => row.forEach((e, j) => close(e, c.expected[i][j])));
  });
  // python: stats.chi2_contingency(table); V = stats.contingency.association(table, method='cramer')
  it("3x4", () => {
    const c = {
      name: "3x4",
      table: [
        [20, 15, 30, 5],
        [12, 18, 25, 9],
        [8, 22, 14, 16],
      ],
      chi2: 18.323526844532278,
      dof: 6,
      p: 0.005472558429142421,
      cramersV: 0.21731448329749303,
      expected: [
        [14.43298969072165, 19.84536082474227, 24.896907216494846, 10.824742268041238],
        [13.195876288659793, 18.144329896907216, 22.762886597938145, 9.896907216494846],
        [12.371134020618557, 17.010309278350515, 21.34020618556701, 9.278350515463918],
      ],
    };
    const r = chiSquare(c.table);
    close(r.chi2, c.chi2);
    expect(r.dof).toBe(c.dof);
    close(r.p, c.p);
    if (c.cramersV !== null) close(r.cramersV, c.cramersV);
    r.expected.forEach((row, i) => row.forEach((e, j) => close(e, c.expected[i][j])));
  });
  // python: stats.chi2_contingency(table); V = stats.contingency.association(table, method='cramer')
  it("1x3 dof 0", () => {
    const c = { name: "1x3 dof 0", table: [[3, 4, 5]], chi2: 0.0, dof: 0, p: 1.0, cramersV: null, expected: [[3.0, 4.0, 5.0]] };
    const r = chiSquare(c.table);
    close(r.chi2, c.chi2);
    expect(r.dof).toBe(c.dof);
    close(r.p, c.p);
    if (c.cramersV !== null) close(r.cramersV, c.cramersV);
    r.expected.forEach((row, i) => row.forEach((e, j) => close(e, c.expected[i][j])));
  });
});

describe("distribution functions vs scipy.special / scipy.stats (1e-10 relative)", () => {
  // python: special.ndtr(-8.5)
  it("normalCdf", () => {
    const c = { kind: "normalCdf", args: [-8.5], value: 9.47953482220325e-18 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.ndtr(-3.1)
  it("normalCdf", () => {
    const c = { kind: "normalCdf", args: [-3.1], value: 0.0009676032132183563 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.ndtr(-1.0)
  it("normalCdf", () => {
    const c = { kind: "normalCdf", args: [-1.0], value: 0.15865525393145707 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.ndtr(0.0)
  it("normalCdf", () => {
    const c = { kind: "normalCdf", args: [0.0], value: 0.5 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.ndtr(0.3)
  it("normalCdf", () => {
    const c = { kind: "normalCdf", args: [0.3], value: 0.6179114221889526 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.ndtr(1.959963984540054)
  it("normalCdf", () => {
    const c = { kind: "normalCdf", args: [1.959963984540054], value: 0.975 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.ndtr(5.0)
  it("normalCdf", () => {
    const c = { kind: "normalCdf", args: [5.0], value: 0.9999997133484281 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.ndtr(12.0)
  it("normalCdf", () => {
    const c = { kind: "normalCdf", args: [12.0], value: 1.0 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: 2*stats.t.sf(abs(2.1), 5)
  it("tTwoSided", () => {
    const c = { kind: "tTwoSided", args: [2.1, 5], value: 0.08975324988459879 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: 2*stats.t.sf(abs(0.5), 1)
  it("tTwoSided", () => {
    const c = { kind: "tTwoSided", args: [0.5, 1], value: 0.7048327646991335 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: 2*stats.t.sf(abs(-3.7), 12.4)
  it("tTwoSided", () => {
    const c = { kind: "tTwoSided", args: [-3.7, 12.4], value: 0.0028792256179962445 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: 2*stats.t.sf(abs(10.0), 30)
  it("tTwoSided", () => {
    const c = { kind: "tTwoSided", args: [10.0, 30], value: 4.575251408229618e-11 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: 2*stats.t.sf(abs(0.01), 200)
  it("tTwoSided", () => {
    const c = { kind: "tTwoSided", args: [0.01, 200], value: 0.992031255153281 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: 2*stats.t.sf(abs(25.0), 3)
  it("tTwoSided", () => {
    const c = { kind: "tTwoSided", args: [25.0, 3], value: 0.00014033138995754856 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: stats.chi2.sf(3.84, 1)
  it("chiSquareSf", () => {
    const c = { kind: "chiSquareSf", args: [3.84, 1], value: 0.05004352124870519 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: stats.chi2.sf(0.2, 1)
  it("chiSquareSf", () => {
    const c = { kind: "chiSquareSf", args: [0.2, 1], value: 0.6547208460185768 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: stats.chi2.sf(15.0, 4)
  it("chiSquareSf", () => {
    const c = { kind: "chiSquareSf", args: [15.0, 4], value: 0.004701217146256585 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: stats.chi2.sf(120.0, 80)
  it("chiSquareSf", () => {
    const c = { kind: "chiSquareSf", args: [120.0, 80], value: 0.0025481923036133444 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: stats.chi2.sf(0.001, 3)
  it("chiSquareSf", () => {
    const c = { kind: "chiSquareSf", args: [0.001, 3], value: 0.9999915920809419 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: stats.chi2.sf(60.0, 7)
  it("chiSquareSf", () => {
    const c = { kind: "chiSquareSf", args: [60.0, 7], value: 1.5095553022989154e-10 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: stats.chi2.sf(7.0, 9)
  it("chiSquareSf", () => {
    const c = { kind: "chiSquareSf", args: [7.0, 9], value: 0.6371194071693984 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.betainc(2.5, 4.0, 0.3)
  it("incompleteBeta", () => {
    const c = { kind: "incompleteBeta", args: [0.3, 2.5, 4.0], value: 0.3521975859067672 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.betainc(0.5, 12.0, 0.9)
  it("incompleteBeta", () => {
    const c = { kind: "incompleteBeta", args: [0.9, 0.5, 12.0], value: 0.9999999999998308 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.betainc(3.0, 0.5, 0.01)
  it("incompleteBeta", () => {
    const c = { kind: "incompleteBeta", args: [0.01, 3.0, 0.5], value: 3.1367895544724357e-7 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.betainc(50.0, 60.0, 0.5)
  it("incompleteBeta", () => {
    const c = { kind: "incompleteBeta", args: [0.5, 50.0, 60.0], value: 0.8309072939016693 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.gammainc(0.5, 0.1)
  it("gammaP", () => {
    const c = { kind: "gammaP", args: [0.5, 0.1], value: 0.34527915398142317 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.gammainc(3.0, 2.0)
  it("gammaP", () => {
    const c = { kind: "gammaP", args: [3.0, 2.0], value: 0.32332358381693654 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.gammainc(10.0, 15.0)
  it("gammaP", () => {
    const c = { kind: "gammaP", args: [10.0, 15.0], value: 0.9301463393005901 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
  // python: special.gammainc(100.0, 90.0)
  it("gammaP", () => {
    const c = { kind: "gammaP", args: [100.0, 90.0], value: 0.15822098918643007 };
    const f = { normalCdf, tTwoSided, chiSquareSf, incompleteBeta, gammaP }[c.kind as "normalCdf"] as (...a: number[]) => number;
    close(f(...c.args), c.value, 1e-10);
  });
});
