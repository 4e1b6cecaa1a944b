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
export { permutationTest, pairedPermutationTest, smallestTwoSidedP, type PermutationResult } from "./permutation.js";
export { cliffsDelta, matchedPairsRankBiserial, hedgesGz, effectInterval, type EffectSize } from "./effect-sizes.js";
export { adjustPValues, benjaminiHochberg, type Adjustment } from "./multiplicity.js";
export { minimumDetectableEffect } from "./power.js";
export { decisionTable, chooseTest, type TestId, type DecisionRow } from "./decision.js";
export { testTwoGroups, cannotReach, type GroupTest } from "./two-groups.js";
