import { artifacts } from "../../study/artifacts.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { TopicsReport } from "./report.js";

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
  views: ["Topics & concepts"],
};
