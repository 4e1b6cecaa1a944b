/** The LLM coder: prompt (with a same-session context window), structured output, strict parsing, samples. */
export { createLlmCoder, type LlmCoder, type LlmCoderOptions, type LlmCoderStats, type TurnOutcome } from "./coder.js";
export {
  buildSystemPrompt,
  buildUserPrompt,
  buildMessages,
  parseContext,
  windowRange,
  estimateTokens,
  PROMPT_TEMPLATE_HASH,
  PROMPT_TEMPLATE_VERSION,
  type ContextWindow,
} from "./prompt.js";
export { parseReply, parseBatchReply, parseJsonReply, validateItem, type CodeValue, type ParseOutcome } from "./parse.js";
export { aggregateSamples, type Aggregate } from "./aggregate.js";
export { codingResponseFormat } from "./schema.js";
