import { agreementAnalysis } from "./agreement/descriptor.js";
import { compareAnalysis } from "./compare/descriptor.js";
import { statsAnalysis } from "./stats/descriptor.js";
import { topicsAnalysis } from "./topics/descriptor.js";
import { conceptsAnalysis } from "./concepts/descriptor.js";

/**
 * Every analysis that writes a file, in the order `colloquy study` runs them and the dashboard
 * lists them. Adding an analysis means adding its descriptor here; nothing else switches on ids.
 */
export const analyses = [agreementAnalysis, compareAnalysis, statsAnalysis, topicsAnalysis, conceptsAnalysis] as const;

export type { AnalysisDescriptor, AnalysisStage, StudyFacts } from "./descriptor.js";
export { agreementAnalysis, compareAnalysis, statsAnalysis, topicsAnalysis, conceptsAnalysis };
