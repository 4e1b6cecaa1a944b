/** The LLM coder: prompt (with a same-session context window), structured output, strict parsing, samples. */
export { createLlmCoder, type LlmCoder, type LlmCoderOptions, type LlmCoderStats, type TurnOutcome } from "./coder.js";
export { buildSystemPrompt, buildUserPrompt, parseContext, PROMPT_TEMPLATE_HASH, PROMPT_TEMPLATE_VERSION, type ContextWindow } from "./prompt.js";
export { parseReply, type CodeValue } from "./parse.js";
export { aggregateSamples } from "./aggregate.js";
export { codingResponseFormat } from "./schema.js";
