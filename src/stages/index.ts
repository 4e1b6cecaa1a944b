/**
 * The pipeline's stages as library functions: `run<Stage>(context, options, effects)` returns a
 * typed summary. `colloquy <stage>` and `colloquy study` call exactly these.
 *
 * Stages do not lock the study. A caller that writes holds the study's writer lock around them,
 * as every command that writes does: `await withStudyLock(dir, "my script", () => runCode(...))`
 * (src/study/lock.ts; reentrant within one process). Otherwise two writers at once may pay for
 * the same LLM requests twice and store disagreeing records, or lose imported sessions.
 */
export { openStudy, defaultModelFactory, silentEffects, type StudyContext, type StageEffects, type ModelFactory } from "./context.js";
export { runImport, type ImportStageOptions, type ImportSummary, type FileReport } from "./import.js";
export { runCode, codingJobs, incompleteCoding, type CodeStageOptions, type CodeSummary, type CodingJobSpec } from "./code.js";
export { runAgree, type AgreeStageOptions, type AgreeSummary } from "./agree.js";
export { runCompare, type CompareStageOptions, type CompareSummary } from "./compare.js";
export { runStats, type StatsStageOptions, type StatsSummary } from "./stats.js";
export {
  runTopics,
  failedTopicRuns,
  exportTopicReview,
  importTopicReviews,
  type TopicsStageOptions,
  type TopicsSummary,
  type TopicReviewSummary,
} from "./topics.js";
export { conceptsLexiconPath } from "./concepts-lexicon.js";
export { runConcepts, type ConceptsStageOptions, type ConceptsSummary } from "./concepts.js";
export { runBuild, type BuildStageOptions } from "./build.js";
export { runReport, type ReportStageOptions, type ReportSummary } from "./report.js";
export { runRepair, type RepairStageOptions, type RepairSummary } from "./repair.js";
export { selectSessions, describeSelection, type SessionSelection } from "./selection.js";
export { runSample, parseSampleSize, parseStrata, type SampleStageOptions, type SampleSummary, type SampleSize } from "./sample.js";
export { runSheet, type SheetStageOptions, type SheetSummary, type SampleProblem } from "./sheet.js";
export { runCodesImport, rowProblemKinds, type CodesImportOptions, type CodesImportSummary, type RowProblem, type RowProblemKind } from "./codes-import.js";
