/**
 * Colloquy's library API, for researchers who script analyses in TypeScript or JavaScript.
 * Each area re-exports its own public surface; see the README for examples.
 */
export * from "./transcript/index.js";
export * from "./study/index.js";
export * from "./ingest/index.js";
export * from "./llm/index.js";
export * from "./coding/index.js";
export * from "./analysis/index.js";
export * from "./orchestrator/index.js";
export * from "./report/index.js";
export * from "./stages/index.js";
export { runPipeline, type PipelineResult, type StageOutcome } from "./pipeline/run.js";
export { studyStages } from "./pipeline/stages.js";
export { stageNames, type PipelineOptions, type StageName } from "./pipeline/types.js";
export { CliError } from "./util/errors.js";
export { provenance, toolVersion, type Provenance } from "./util/provenance.js";
export { consoleReporter, memoryReporter, silentReporter, type Reporter } from "./util/reporter.js";
