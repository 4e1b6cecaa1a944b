/**
 * The one seam between Colloquy and language models. Coders, topic extraction and the
 * orchestrator depend only on `ChatModel`; `src/llm/` is the only place that constructs
 * the openai client. Errors are values here, never exceptions.
 */

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
  /** Optional speaker name (OpenAI `name` field). */
  name?: string;
}

export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  /** Structured output; falls back to json_object/text + strict parsing when unsupported. */
  | { type: "json_schema"; name: string; schema: Record<string, unknown> };

export interface ChatRequest {
  messages: ChatMessage[];
  /** Overrides the configured model for this request (e.g. a per-agent model). */
  model?: string;
  /** Default 0: coding should be as repeatable as the endpoint allows. */
  temperature?: number;
  seed?: number;
  maxTokens?: number;
  responseFormat?: ResponseFormat;
  /** Skip the cache for this request (still deduplicated while in flight). */
  noCache?: boolean;
  /** Accounting label: "code", "topics", "orchestrator", … */
  purpose?: string;
  signal?: AbortSignal;
  /**
   * Once aborted, the request is not sent if it has not been yet (waiting for a slot, or for a
   * retry): "aborted". Unlike `signal`, a request already sent is not cut off, so its reply,
   * which the provider bills anyway, is received and kept.
   */
  stopStarting?: AbortSignal;
  /**
   * Called with the result of a request that was sent, inside its slot: before a request waiting
   * for that slot can start. A caller that stops on this result (aborts `stopStarting`) is thus
   * seen by every request not sent yet, whatever the timing of its own promise chain.
   */
  onResult?: (result: ChatResult) => void;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatResponse {
  text: string;
  model: string;
  usage: TokenUsage;
  /** Wall time of the request that produced this text (0 for a cache hit). */
  latencyMs: number;
  cached: boolean;
  finishReason?: string;
  /** sha256 cache key of the request: also a provenance handle. */
  requestHash: string;
  /**
   * HTTP requests this reply took: 1, plus one per retry or structured-output fallback before
   * it; 0 when it came from the cache or from an identical request already in flight.
   */
  httpRequests?: number;
}

export type LlmErrorKind =
  | "auth" // 401/403: bad or missing key
  | "unreachable" // connection refused, DNS, TLS
  | "rate_limit" // 429 after all retries
  | "server" // 5xx after all retries
  | "timeout" // per-request timeout after all retries
  | "bad_request" // 400/404/422: wrong model name, unsupported parameter
  | "aborted"
  | "storage" // the response cache cannot be written (disk full): nothing more is asked
  | "unknown";

export interface LlmError {
  kind: LlmErrorKind;
  /** Says how to fix it where we can (export OPENAI_API_KEY=…, --base-url …). Never contains the key. */
  message: string;
  status?: number;
  attempts: number;
  /** HTTP requests actually sent for this call (0 when none left the process, or shared with another caller). */
  httpRequests?: number;
}

export type ChatResult = { ok: true; response: ChatResponse } | { ok: false; error: LlmError };

/** Resolved model settings: CLI > study config > environment > default, already merged. */
export interface ModelConfig {
  model: string;
  /** OpenAI-compatible base URL; undefined means the OpenAI API. */
  baseURL?: string;
  /** Never logged, cached or written anywhere. */
  apiKey?: string;
  temperature: number;
  seed?: number;
  concurrency: number;
  timeoutMs: number;
  maxRetries: number;
  /** Folder of the content-addressed response cache; null disables caching. */
  cacheDir: string | null;
  headers?: Record<string, string>;
  /** USD per 1M tokens by model name, overriding the built-in table (colloquy.json `model.prices`). */
  prices?: Record<string, { input: number; output: number }>;
}

export interface UsageTotals {
  /** HTTP requests sent: every attempt, retries and failed attempts included. */
  requests: number;
  /** Of `requests`, attempts that brought no usable reply (error status, timeout, lost connection, abort). */
  failedRequests?: number;
  /** Of `requests`, attempts that repeated an earlier one (retries and structured-output fallbacks). */
  retries?: number;
  cachedResponses: number;
  /** Calls that ended in an error (after their retries); aborted calls not counted. */
  failures: number;
  promptTokens: number;
  completionTokens: number;
  /** USD, when the model's price is known. */
  estimatedCost?: number;
}

export interface ChatModel {
  complete(request: ChatRequest): Promise<ChatResult>;
  /** Provenance-safe description (no key): model, endpoint host, temperature. */
  readonly info: { model: string; endpointHost: string; temperature: number };
  usage(): UsageTotals;
  /** Drop a cached reply (e.g. one that failed validation), so a later run asks again. */
  forget?(requestHash: string): Promise<void>;
}
