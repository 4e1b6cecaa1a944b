import { resolve } from "node:path";
import type OpenAI from "openai";
import { sleep } from "../util/concurrency.js";
import { errorMessage } from "../util/errors.js";
import { ResponseCache, cacheKey, type CachedReply } from "./cache.js";
import { createBatchApi, type BatchApi } from "./batch/api.js";
import { PLACEHOLDER_API_KEY, displayURL, endpointHost, isLoopbackEndpoint, needsApiKey } from "./config.js";
import { classifyError, redact, type Classified } from "./errors.js";
import { openaiSdk } from "./sdk.js";
import { createLimiter } from "./limiter.js";
import { nodeFetch } from "./transport.js";
import { estimateCost, priceFor } from "./prices.js";
import { DEFAULT_BACKOFF, MAX_RETRY_AFTER_MS, backoffDelay, retryAfterMs, type BackoffOptions } from "./retry.js";
import type { ChatModel, ChatRequest, ChatResponse, ChatResult, LlmError, ModelConfig, ResponseFormat, UsageTotals } from "./types.js";

/**
 * Room the response cache sets aside for replies it cannot write as entries (a full disk): at most
 * one reply per slot arrives once the run stops asking. A one-turn coding reply's entry is 300-600
 * bytes, but a `--batch` reply or an agent's turn runs to thousands of tokens (JSON-escaped), so
 * each slot gets 64 KiB and the room at least 1 MiB: cheap, and cut back to what it holds at exit.
 * A disk (or a file size limit) that cannot give that much gets the last 4 kB asked of it: room
 * for a few one-turn replies beats asking for nothing.
 */
const JOURNAL_BYTES_PER_SLOT = 64 * 1024;
const JOURNAL_MIN_BYTES = 1024 * 1024;
const JOURNAL_LAST_RESORT_BYTES = 4096;

const STOPPED_BEFORE_SENT = "the run stopped before this request was sent";

/** How much structured output the endpoint has accepted so far (only ever steps down). */
export type FormatSupport = "json_schema" | "json_object" | "text";

/** A ChatModel with the extras the CLI needs before and around a run. */
export interface LlmClient extends ChatModel {
  /** Check key and reachability once, before any work. Undefined when all is well. */
  preflight(options?: { timeoutMs?: number }): Promise<LlmError | undefined>;
  /** The cache key a request would have (also `ChatResponse.requestHash`). */
  requestHash(request: ChatRequest): string;
  /** Whether a request would be answered from the cache (for --dry-run estimates); pass its `requestHash` when known, to skip hashing again. */
  isCached(request: ChatRequest, requestHash?: string): Promise<boolean>;
  /**
   * Drop a cached reply by its request hash: callers use it for replies that turned out to be
   * unusable (invalid code), so the next run asks again instead of replaying the failure.
   */
  forget(requestHash: string): Promise<void>;
  /** Structured-output level in use after any fallbacks. */
  formatSupport(): FormatSupport;
  /** The chat-completions body this request would be sent with now (the batch files use it). */
  wireRequest(request: ChatRequest): Record<string, unknown>;
  /** The Files and Batches API of the same endpoint, key and headers (llm/batch). */
  batchApi(): BatchApi;
  /**
   * Keep replies obtained another way (a batch output) in the response cache, as `complete`
   * would have (cut-off replies are not kept), all in one pack file; returns how many were kept.
   */
  rememberMany(
    replies: AsyncIterable<readonly [string, Omit<CachedReply, "receivedAt">]> | Iterable<readonly [string, Omit<CachedReply, "receivedAt">]>,
  ): Promise<number>;
  /** A reply kept in the response cache, by request hash (a collected batch's reply); undefined when not there. */
  recall(requestHash: string): Promise<CachedReply | undefined>;
  /** The resolved configuration without the key. */
  readonly config: Readonly<Omit<ModelConfig, "apiKey">>;
}

export interface ChatModelOptions {
  backoff?: BackoffOptions;
  /** Called before each retry wait (for a "retrying in 2.0 s" line). */
  onRetry?: (info: { attempt: number; delayMs: number; error: LlmError }) => void;
  /** Called when a reply could not be written to the cache (disk full, permissions). */
  onCacheError?: (error: unknown) => void;
}

/**
 * Build the ChatModel for a resolved config. This is the only place in Colloquy that
 * constructs the OpenAI client. The SDK's own retries are off (`maxRetries: 0`) so that
 * backoff, Retry-After, accounting and error messages are ours and consistent.
 */
export function createChatModel(config: ModelConfig, options: ChatModelOptions = {}): LlmClient {
  const apiKey = config.apiKey ?? PLACEHOLDER_API_KEY;
  // Made on first use (the SDK loads then: llm/sdk.ts), once for every request of this model. A
  // failure to load or construct it is thrown to the caller (not a failed request), and tried again.
  let made: Promise<OpenAI> | undefined;
  const client = async (): Promise<OpenAI> => {
    made ??= openaiSdk().then(
      ({ default: OpenAI }) =>
        new OpenAI({ baseURL: config.baseURL, apiKey, timeout: config.timeoutMs, maxRetries: 0, defaultHeaders: config.headers, fetch: nodeFetch }),
    );
    try {
      return await made;
    } catch (error) {
      made = undefined;
      throw error;
    }
  };
  const limiter = createLimiter(config.concurrency);
  const cache = config.cacheDir ? ResponseCache.for(resolve(config.cacheDir)) : undefined;
  const inFlight = new Map<string, Promise<ChatResult>>();
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const local = isLoopbackEndpoint(config.baseURL);
  // The OpenAI API wants max_completion_tokens (reasoning models reject max_tokens); most
  // other servers only know max_tokens.
  const tokenField = needsApiKey(config.baseURL) ? "max_completion_tokens" : "max_tokens";
  let support: FormatSupport = "json_schema";
  const totals = { requests: 0, failedRequests: 0, retries: 0, cachedResponses: 0, failures: 0, promptTokens: 0, completionTokens: 0 } satisfies UsageTotals;
  const { apiKey: _omit, ...publicConfig } = config;
  /** Why replies can no longer be kept (the cache cannot be written): then nothing more is asked. */
  let unkept: string | undefined;
  const unkeptMessage = (error: unknown, kept = "") =>
    `the response cache in ${cache?.dir} cannot be written (${errorMessage(error)}${kept}): stopped asking the model, so that no reply is paid for that could not be kept; ` +
    `free some space and run the same command again (replies already received are kept)`;

  const keyOf = (request: ChatRequest) =>
    cacheKey({
      model: request.model ?? config.model,
      messages: request.messages,
      temperature: request.temperature ?? config.temperature,
      seed: request.seed ?? config.seed,
      responseFormat: request.responseFormat,
      maxTokens: request.maxTokens,
    });

  const fail = (classified: Pick<Classified, "kind" | "message" | "status">, attempts: number, httpRequests?: number): ChatResult => ({
    ok: false,
    error: {
      kind: classified.kind,
      message: redact(classified.message, config.apiKey),
      status: classified.status,
      attempts,
      ...(httpRequests !== undefined ? { httpRequests } : {}),
    },
  });

  /** response_format as sent, after fallbacks; undefined sends none. */
  const wireFormat = (format: ResponseFormat | undefined) => {
    if (!format || format.type === "text") return undefined;
    if (format.type === "json_schema" && support === "json_schema") {
      return { type: "json_schema" as const, json_schema: { name: format.name, schema: format.schema, strict: true } };
    }
    return support === "text" ? undefined : { type: "json_object" as const };
  };

  /**
   * The chat-completions body exactly as sent: the online path and the batch request files
   * (llm/batch) both build it here, so a batched request is byte for byte the online one.
   */
  const wireBody = (request: ChatRequest, format = wireFormat(request.responseFormat)) => ({
    model: request.model ?? config.model,
    messages: request.messages.map((m) => (m.name ? { role: m.role, content: m.content, name: m.name } : { role: m.role, content: m.content })),
    temperature: request.temperature ?? config.temperature,
    ...((request.seed ?? config.seed) !== undefined ? { seed: request.seed ?? config.seed } : {}),
    ...(request.maxTokens !== undefined ? { [tokenField]: request.maxTokens } : {}),
    ...(format ? { response_format: format } : {}),
  });

  async function send(request: ChatRequest, hash: string): Promise<ChatResult> {
    const model = request.model ?? config.model;
    // Every request that leaves the process, whatever became of it (accounting: UsageTotals).
    let sent = 0;
    for (let attempt = 0; ; attempt++) {
      if (request.signal?.aborted) return fail({ kind: "aborted", message: "request aborted" }, attempt, sent);
      if (request.stopStarting?.aborted) return fail({ kind: "aborted", message: STOPPED_BEFORE_SENT }, attempt, sent);
      const format = wireFormat(request.responseFormat);
      const openai = await client();
      const started = performance.now();
      sent++;
      try {
        const completion = await openai.chat.completions.create(wireBody(request, format), {
          signal: request.signal,
          timeout: config.timeoutMs,
          maxRetries: 0,
        });
        const choice = completion.choices?.[0];
        if (!choice || typeof choice.message?.content !== "string") {
          throw new SyntaxError("the reply has no choices[0].message.content");
        }
        const response: ChatResponse = {
          text: choice.message.content,
          model: completion.model ?? model,
          usage: { promptTokens: completion.usage?.prompt_tokens ?? 0, completionTokens: completion.usage?.completion_tokens ?? 0 },
          latencyMs: Math.round(performance.now() - started),
          cached: false,
          finishReason: choice.finish_reason ?? undefined,
          requestHash: hash,
          httpRequests: sent,
        };
        return { ok: true, response };
      } catch (error) {
        const classified = classifyError(error, { baseURL: config.baseURL, model });
        if (classified.unsupportedFormat && format) {
          // Remember for this ChatModel and resend at once; callers parse strictly anyway.
          support = format.type === "json_schema" ? "json_object" : "text";
          attempt--;
          continue;
        }
        if (!classified.retryable || attempt >= config.maxRetries) return fail(classified, attempt + 1, sent);
        const delayMs = retryAfterMs(classified.headers) ?? backoffDelay(attempt, backoff);
        if (delayMs > MAX_RETRY_AFTER_MS) {
          return fail(
            { ...classified, message: `${classified.message}; the server asks to wait ${Math.round(delayMs / 1000)} s, giving up` },
            attempt + 1,
            sent,
          );
        }
        options.onRetry?.({ attempt: attempt + 1, delayMs, error: (fail(classified, attempt + 1) as { error: LlmError }).error });
        try {
          await sleep(delayMs, request.signal);
        } catch {
          return fail({ kind: "aborted", message: "request aborted" }, attempt + 1, sent);
        }
      }
    }
  }

  /** A refusal when replies can no longer be kept; sets room aside for them first (ResponseCache.reserve). */
  function unkeepable(): ChatResult | undefined {
    if (!unkept) {
      try {
        cache?.reserve(Math.max(JOURNAL_MIN_BYTES, config.concurrency * JOURNAL_BYTES_PER_SLOT));
      } catch {
        try {
          cache?.reserve(JOURNAL_LAST_RESORT_BYTES);
        } catch (error) {
          unkept = unkeptMessage(error);
        }
      }
    }
    return unkept ? fail({ kind: "storage", message: unkept }, 0, 0) : undefined;
  }

  async function completeOnce(request: ChatRequest, hash: string): Promise<ChatResult> {
    if (cache && !request.noCache) {
      const hit = await cache.get(hash);
      if (hit) {
        totals.cachedResponses++;
        return {
          ok: true,
          response: {
            text: hit.text,
            model: hit.model,
            usage: hit.usage,
            latencyMs: 0,
            cached: true,
            finishReason: hit.finishReason,
            requestHash: hash,
            httpRequests: 0,
          },
        };
      }
    }
    // Refused when its turn to be sent comes, and kept before its slot is given to the next:
    // nothing is asked whose reply could not be kept (a resume would pay for it again).
    const result = await limiter.run(async () => {
      // The request that held this slot before told its caller its result (onResult) before freeing it.
      if (request.stopStarting?.aborted) return fail({ kind: "aborted", message: STOPPED_BEFORE_SENT }, 0, 0);
      const refused = cache && unkeepable();
      if (refused) return refused;
      const sent = await send(request, hash);
      if (sent.ok) await keep(sent.response, hash);
      request.onResult?.(sent);
      return sent;
    });
    const sent = (result.ok ? result.response.httpRequests : result.error.httpRequests) ?? 0;
    totals.requests += sent;
    totals.retries += Math.max(0, sent - 1);
    totals.failedRequests += result.ok ? Math.max(0, sent - 1) : sent;
    if (!result.ok) {
      if (result.error.kind !== "aborted") totals.failures++;
      return result;
    }
    totals.promptTokens += result.response.usage.promptTokens;
    totals.completionTokens += result.response.usage.completionTokens;
    return result;
  }

  /** Keep a reply in the cache, or in the room it set aside; when neither can take it, nothing more is asked. */
  async function keep(response: ChatResponse, hash: string): Promise<void> {
    // A reply cut off at max tokens is not a usable answer: do not make it permanent.
    if (!cache || response.finishReason === "length") return;
    try {
      const kept = await cache.put(hash, {
        text: response.text,
        model: response.model,
        usage: response.usage,
        finishReason: response.finishReason,
        receivedAt: new Date().toISOString(),
      });
      // Kept in the room set aside: the cache cannot be written, so stop asking while there is room.
      if (kept.journaled) unkept ??= unkeptMessage(kept.journaled, `; replies received since are kept in ${cache.journalPath}`);
    } catch (error) {
      // The reply itself is good (the caller uses it); asking for more would pay for replies nothing keeps.
      unkept ??= unkeptMessage(error);
      options.onCacheError?.(error);
    }
  }

  return {
    info: { model: config.model, endpointHost: endpointHost(config.baseURL), temperature: config.temperature },
    config: publicConfig,
    formatSupport: () => support,
    forget: async (hash) => {
      await cache?.delete(hash);
    },
    requestHash: keyOf,
    wireRequest: (request) => wireBody(request),
    batchApi: () => createBatchApi(client, { baseURL: config.baseURL, model: config.model, apiKey: config.apiKey }),
    async rememberMany(replies) {
      if (!cache) return 0;
      const receivedAt = new Date().toISOString();
      return cache.putMany(
        (async function* () {
          // Same rule as completeOnce: a reply cut off at max tokens is not made permanent.
          for await (const [hash, reply] of replies) if (reply.finishReason !== "length") yield [hash, { ...reply, receivedAt }] as const;
        })(),
      );
    },
    recall: async (hash) => cache?.get(hash),
    async isCached(request, hash) {
      return Boolean(cache && !request.noCache && (await cache.get(hash ?? keyOf(request))));
    },
    usage() {
      const price = priceFor(config.model, { overrides: config.prices, local });
      return { ...totals, estimatedCost: estimateCost(price, totals.promptTokens, totals.completionTokens) };
    },
    complete(request) {
      const hash = keyOf(request);
      const pending = request.noCache ? undefined : inFlight.get(hash);
      if (pending) {
        // Same request already on its way: share its answer, count it as not paid for. Another
        // caller's abort is not ours: then ask on our own.
        // The requests were sent (and counted) once, by the first caller: httpRequests 0 here.
        return pending.then((result) => {
          if (!result.ok)
            return result.error.kind === "aborted" && !request.signal?.aborted
              ? completeOnce(request, hash)
              : { ok: false, error: { ...result.error, httpRequests: 0 } };
          totals.cachedResponses++;
          return { ok: true, response: { ...result.response, cached: true, latencyMs: 0, httpRequests: 0 } };
        });
      }
      const promise = completeOnce(request, hash).finally(() => inFlight.delete(hash));
      inFlight.set(hash, promise);
      return promise;
    },
    async preflight({ timeoutMs = 10_000 } = {}) {
      if (needsApiKey(config.baseURL) && !config.apiKey) {
        return {
          kind: "auth",
          attempts: 0,
          message:
            `no API key for ${displayURL(config.baseURL)}: export OPENAI_API_KEY=sk-... ` +
            `(or use a local model: --base-url http://localhost:11434/v1 --model llama3.1)`,
        };
      }
      const openai = await client();
      try {
        await openai.models.list({ timeout: timeoutMs, maxRetries: 0 });
        return undefined;
      } catch (error) {
        const classified = classifyError(error, { baseURL: config.baseURL, model: config.model });
        // A server without GET /models (404, 405, 501…) is still up; only these stop a run.
        if (classified.kind === "unreachable" || classified.kind === "timeout" || classified.kind === "auth") {
          return { kind: classified.kind, status: classified.status, attempts: 1, message: redact(classified.message, config.apiKey) };
        }
        return undefined;
      }
    },
  };
}
