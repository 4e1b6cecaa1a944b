// Public API of src/analysis (filled in as the module grows).
export {};
// Inferential tests (Wilcoxon, t, Mann-Whitney, Kendall, Spearman, chi-square, Holm) and distributions.
export * from "./inference/index.js";
// Inter-coder reliability (Cohen/Fleiss kappa, Krippendorff's alpha, Gwet's AC1, bootstrap CIs).
export * from "./reliability/index.js";
// `colloquy agree` as a library: agreeStudy / agreeCsv and the AgreementReport type (dashboard).
export * from "./agreement/index.js";
// `colloquy compare` / `colloquy stats` as a library: compareConditions, buildStats, metrics, Bales,
// sequences, and the CompareReport / StatsReport types of the JSON files (dashboard).
export * from "./compare/index.js";
// `colloquy concepts` / `colloquy topics` as a library: concept extraction, MTLD, uptake, topic
// trees and branching ratios, and the ConceptsReport / TopicsReport types (dashboard).
export * from "./concepts/index.js";
export * from "./topics/index.js";
