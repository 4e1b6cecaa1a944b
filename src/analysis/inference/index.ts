// Inferential tests, each matching its SciPy reference (see test/analysis/inference/).
export * from "./distributions.js";
export { wilcoxonSignedRank, type WilcoxonResult } from "./wilcoxon.js";
export { pairedTTest, welchTTest, type PairedTTestResult, type WelchTTestResult } from "./ttest.js";
export { mannWhitneyU, type MannWhitneyResult } from "./mannwhitney.js";
export { kendallTau, spearman, pearsonR, type KendallResult, type SpearmanResult } from "./correlation.js";
export { chiSquare, type ChiSquareResult } from "./chisquare.js";
export { fisherExact, type FisherExactResult } from "./fisher.js";
export { hedgesG } from "./effect.js";
export { holm } from "./holm.js";
export { rankAverage } from "./ranks.js";
