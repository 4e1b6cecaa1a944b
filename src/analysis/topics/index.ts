// Public API of the topics analysis.
export { branchingRatio, treeCounts, topicTreeSchema, type TopicTree, type MainTopic, type Subtopic } from "./tree.js";
export { rulesTopicTree, RULES_THRESHOLD } from "./rules.js";
export { llmTopicRun, parseTopicReply, topicPrompt, TOPIC_PROMPT_HASH, type LlmTopicRun, type LlmTopicOptions } from "./llm.js";
export { mergeTrees, topicSimilarity, MERGE_THRESHOLD } from "./merge.js";
export { topicUnits, type TopicUnit } from "./units.js";
export {
  buildTopicsReport,
  summariseTopics,
  topicsReport,
  rulesSessionTrees,
  type TopicsReport,
  type TopicsOptions,
  type TreeResult,
  type TopicRunResult,
  type BranchingSpread,
  type ReviewedTree,
} from "./report.js";
export { reviewCsv, parseReviewSheets, applyReviews, REVIEW_CODEBOOK, JUDGEMENTS, type Judgement } from "./review.js";
