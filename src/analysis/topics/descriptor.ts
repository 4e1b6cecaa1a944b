import { artifacts } from "../../study/artifacts.js";
import type { ArtifactPart } from "../../study/artifact-part.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { TopicsReport } from "./report.js";

/** What the dashboard shows of topics.json (src/report/shape/analysis.ts, readTopics, takes this part's type). */
export const topicsShown = {
  members: ["provenance", "trees", "conditions"],
  fields: { trees: ["key", "scope", "session", "condition", "participant", "participantName", "merged"] },
} as const satisfies ArtifactPart;

/**
 * Topic trees and branching ratios: `topics.json`, computed by {@link buildTopicsReport}
 * (src/analysis/topics/report.ts). The review sheet (`colloquy topics export`) is an export, not one of its results.
 */
export const topicsAnalysis: AnalysisDescriptor<TopicsReport> = {
  id: "topics",
  title: "topic trees",
  stage: "topics",
  result: artifacts.topics,
  artifacts: [artifacts.topics],
  shown: topicsShown,
  views: ["Topics & concepts"],
};
