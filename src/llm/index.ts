/**
 * The LLM layer: the one place that talks to language models. Everything else depends on the
 * `ChatModel` interface; build one with `createChatModel(resolveModelConfig({...}))`.
 */
export * from "./types.js";
export { createChatModel, type LlmClient, type ChatModelOptions, type FormatSupport } from "./client.js";
export {
  resolveModelConfig,
  MODEL_DEFAULTS,
  endpointHost,
  displayURL,
  isLoopbackEndpoint,
  needsApiKey,
  type ModelCliOptions,
  type ModelEnv,
} from "./config.js";
export { ResponseCache, cacheKey, type CacheKeyInput, type CachedReply } from "./cache.js";
export { createLimiter, type Limiter } from "./limiter.js";
export { backoffDelay, retryAfterMs, DEFAULT_BACKOFF, type BackoffOptions } from "./retry.js";
export { DEFAULT_PRICES, priceFor, estimateCost, type ModelPrice, type PriceTable } from "./prices.js";
