export * from "./records.js";
export * from "./store.js";
export * from "./codebook/index.js";
export {
  RULES_CODER_VERSION,
  RULE_SET_NAMES,
  rulesProblem,
  RULE_DESCRIPTIONS,
  rulesSupport,
  codeTurnWithRules,
  codeBales,
  codeStyle,
  type RulesResult,
  type BalesCode,
  type BalesDecision,
  type StyleDecision,
} from "./rules/index.js";
export {
  runCodingJob,
  dryRunCoding,
  planCoding,
  formatCodingSummary,
  skipReason,
  SKIPPED_TURN_TYPES,
  type CodingJobOptions,
  type CodingSummary,
  type CodingPlan,
  type CodingUnit,
  type DryRun,
} from "./job.js";
export {
  createLlmCoder,
  buildSystemPrompt as buildCodingSystemPrompt,
  buildUserPrompt as buildCodingUserPrompt,
  parseContext,
  parseReply as parseCodingReply,
  aggregateSamples,
  codingResponseFormat,
  PROMPT_TEMPLATE_HASH,
  PROMPT_TEMPLATE_VERSION,
  type LlmCoder,
  type LlmCoderOptions,
  type LlmCoderStats,
  type TurnOutcome,
  type ContextWindow,
  type CodeValue,
} from "./llm/index.js";
