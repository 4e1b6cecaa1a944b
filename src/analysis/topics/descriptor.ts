import { defineArtifact, fixed, STUDY_FOLDERS } from "../../util/artifact.js";
import { topicsReportSchema } from "./schema.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { TopicsReport } from "./report.js";

/** The files its stage writes (registry entries: name, place, schema). */
export const topicsFiles = {
  topics: defineArtifact<[], TopicsReport>({
    name: "topics",
    description: "topic trees and branching ratios per tree, session and condition",
    writtenBy: "colloquy topics",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: topicsReportSchema,
    lineArrays: ["trees"],
    ...fixed("topics.json"),
  }),
  topicsReview: defineArtifact<[], string>({
    name: "topicsReview",
    description: "review sheet of the sub-topics (default place of `colloquy topics export`)",
    writtenBy: "colloquy topics export",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...fixed("topics-review.csv"),
  }),
} as const;

/**
 * Topic trees and branching ratios: `topics.json`, computed by {@link buildTopicsReport}
 * (src/analysis/topics/report.ts). The review sheet (`colloquy topics export`) is an export, not one of its results.
 */
export const topicsAnalysis: AnalysisDescriptor<TopicsReport> = {
  id: "topics",
  title: "topic trees",
  stage: "topics",
  result: topicsFiles.topics,
  artifacts: [topicsFiles.topics],
  views: ["Topics & concepts"],
};
