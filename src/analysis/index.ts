// Public API of src/analysis: one folder per analysis, each with its descriptor (see ./analyses.ts).
// Every analysis that writes a file, with what the pipeline and the dashboard need to know of it.
export * from "./analyses.js";
// Inferential tests (Wilcoxon, t, Mann-Whitney, Kendall, Spearman, chi-square, Holm) and distributions.
export * from "./inference/index.js";
// Inter-coder reliability (Cohen/Fleiss kappa, Krippendorff's alpha, Gwet's AC1, bootstrap CIs).
export * from "./reliability/index.js";
// `colloquy agree` as a library: agreeStudy / agreeCsv and the AgreementReport type (dashboard).
export * from "./agreement/index.js";
// `colloquy compare` / `colloquy stats` as a library: compareConditions, buildStats, metrics, Bales,
// sequences, and the CompareReport / StatsReport types of the JSON files (dashboard).
export * from "./compare/index.js";
export * from "./stats/index.js";
// Helpers several analyses share: the one word rule, session thirds, coded-turn tables, ratings.
export * from "./shared/index.js";
// `colloquy concepts` / `colloquy topics` as a library: concept extraction, MTLD, uptake, topic
// trees and branching ratios, and the ConceptsReport / TopicsReport types (dashboard).
export * from "./concepts/index.js";
export * from "./topics/index.js";
