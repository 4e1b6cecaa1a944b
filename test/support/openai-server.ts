/**
 * A real OpenAI-compatible HTTP server for tests and benchmarks (node:http on 127.0.0.1,
 * random port). The real `openai` SDK talks to it exactly as it would to api.openai.com,
 * so retries, timeouts, headers and parsing are exercised end to end. No network needed.
 *
 * Usage:
 *   const server = await startOpenAiServer();           // or { latencyMs: 50, handler }
 *   const config = { ...resolveModelConfig({ env: {} }), baseURL: server.url };
 *   server.enqueue({ content: '{"code":"agrees"}' });    // next POST gets this reply
 *   server.enqueue({ status: 429, headers: { "retry-after": "1" } });
 *   server.setHandler((req) => ({ content: replyFor(req.body.messages) }));
 *   ...
 *   expect(server.chatRequests()).toHaveLength(2);
 *   await server.close();                                 // always, e.g. in afterEach
 *
 * Endpoints:
 *   POST /v1/chat/completions  answered from, in order: the reply queue (`enqueue`), then the
 *                              handler (`setHandler` / option `handler`), then a default
 *                              reply `{"ok":true}`.
 *   GET  /v1/models            lists `options.models` (default ["test-model"]); set
 *                              `modelsStatus` to answer it with an error status instead.
 *   /v1/files, /v1/batches     the Files and Batches API (openai-batches.ts), with faults to
 *                              inject (BatchBehaviour.createFaults).
 *   anything else              404 with an OpenAI-style error body.
 *
 * A scripted reply (`ScriptedReply`) is one of:
 *   { content, finishReason?, usage?, model?, delayMs? }   a normal completion. finishReason
 *                              "length" simulates a truncated reply. `usage` defaults to
 *                              ceil(chars/4) of the prompt messages and of the content.
 *   { status, message?, headers?, delayMs? }   an error: 429 with headers {"retry-after": "1"}
 *                              or {"retry-after-ms": "200"}, 500, 401, 400 ...
 *   { rawBody, status?, contentType?, delayMs? }   any bytes, e.g. malformed JSON.
 *   { hang: true }             never answer (the client's timeout must fire). The socket is
 *                              destroyed by close().
 * `delayMs` (per reply) adds to the server-wide `latencyMs` (option or property).
 *
 * Structured output: `rejectFormats: ["json_schema"]` makes the server answer 400
 * ("response_format json_schema is not supported") to any request carrying that
 * response_format type, like older local servers do; the rejected requests are recorded too.
 *
 * Every request is recorded in `requests` (method, path, lower-cased headers, parsed body,
 * time): assert counts, messages, seeds, response_format and the Authorization header.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createBatchRoutes, DEFAULT_BATCH_BEHAVIOUR, type BatchBehaviour, type StoredFile } from "./openai-batches.js";

export type { BatchBehaviour } from "./openai-batches.js";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body (undefined for GET or unparseable bodies). */
  body: any;
  rawBody: string;
  receivedAt: number;
  /** When the whole reply was handed to the OS (Date.now()); unset while unanswered or if the client went away. */
  answeredAt?: number;
}

export type ScriptedReply =
  | {
      content: string;
      finishReason?: string;
      usage?: { prompt_tokens: number; completion_tokens: number };
      model?: string;
      delayMs?: number;
    }
  | { status: number; message?: string; headers?: Record<string, string>; delayMs?: number }
  | { rawBody: string; status?: number; contentType?: string; delayMs?: number }
  | { hang: true };

export type ReplyHandler = (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface OpenAiServerOptions {
  /** Simulated latency for every chat reply, ms (default 0). */
  latencyMs?: number;
  handler?: ReplyHandler;
  /** response_format types answered with 400 (to exercise the SDK-side fallback). */
  rejectFormats?: Array<"json_schema" | "json_object">;
  models?: string[];
  /** How batches behave (see BatchBehaviour); mutable later as `server.batch`. */
  batch?: Partial<BatchBehaviour>;
  /** Keep request bodies in `requests` (default true; the benchmark turns it off to save memory). */
  record?: boolean;
}

export interface OpenAiServer {
  /** Base URL for the SDK, ending in /v1. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Only the POST /v1/chat/completions requests. */
  chatRequests(): RecordedRequest[];
  /** Count of chat requests (kept even when `record` is false). */
  readonly chatCount: number;
  /** Queue replies for the next chat requests, first in first out. */
  enqueue(...replies: ScriptedReply[]): void;
  setHandler(handler: ReplyHandler | undefined): void;
  latencyMs: number;
  rejectFormats: Array<"json_schema" | "json_object">;
  /** Status for GET /v1/models (default 200). */
  modelsStatus: number;
  /** Chat requests answered inside batches (in answering order), as if each were a POST. */
  readonly batchRequests: RecordedRequest[];
  /** Count of batched chat requests answered (kept even when `record` is false). */
  readonly batchCount: number;
  /** How batches behave from now on (mutable; see BatchBehaviour). */
  batch: BatchBehaviour;
  /** Uploaded and produced files: id -> {path on disk, purpose, bytes}. */
  files(): Map<string, StoredFile>;
  /** Every batch created, in creation order. */
  batches(): { id: string; inputFileId: string; metadata: Record<string, string> | null; status: string }[];
  /** Forget recorded requests (not the queue). */
  reset(): void;
  /** Stop listening and destroy open sockets (hanging requests included). Idempotent. */
  close(): Promise<void>;
}

/** Rough token count the server reports: ceil(chars / 4), like many local servers' estimates. */
/** A valid instance of a JSON schema (first enum value, minimum numbers): enough to answer any structured request. */
export function schemaInstance(schema: any): unknown {
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, schemaInstance(v)]));
    case "array":
      return Array.from({ length: schema.minItems ?? 1 }, () => schemaInstance(schema.items ?? {}));
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    default:
      return "because";
  }
}

export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export async function startOpenAiServer(options: OpenAiServerOptions = {}): Promise<OpenAiServer> {
  const queue: ScriptedReply[] = [];
  let handler = options.handler;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const record = options.record ?? true;
  let chatCount = 0;
  let batchCount = 0;
  let closed = false;

  const later = (ms: number, fn: () => void) => {
    if (ms <= 0) return fn();
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const sendJson = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    const body = JSON.stringify(value);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
    res.end(body);
  };

  const errorBody = (message: string, type = "invalid_request_error") => ({ error: { message, type, param: null, code: null } });

  /** The reply to one chat request: the queue, then the handler, then a default. */
  async function nextReply(recorded: RecordedRequest): Promise<ScriptedReply> {
    try {
      return queue.shift() ?? (handler ? await handler(recorded) : { content: '{"ok":true}' });
    } catch (error) {
      return { status: 500, message: `test handler threw: ${(error as Error).message}` };
    }
  }

  const formatRejection = (body: any): string | undefined => {
    const formatType: string | undefined = body?.response_format?.type;
    return formatType && server.rejectFormats.includes(formatType as "json_schema")
      ? `Invalid parameter: response_format of type '${formatType}' is not supported by this model.`
      : undefined;
  };

  /** The chat.completion object for a content reply. */
  function completion(body: any, reply: Extract<ScriptedReply, { content: string }>, n: number) {
    const messages: Array<{ content?: unknown }> = Array.isArray(body?.messages) ? body.messages : [];
    const promptChars = messages.reduce((sum, m) => sum + (typeof m.content === "string" ? m.content.length : 0), 0);
    const usage = reply.usage ?? { prompt_tokens: Math.ceil(promptChars / 4), completion_tokens: approxTokens(reply.content) };
    return {
      id: `chatcmpl-test-${n}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: reply.model ?? body?.model ?? "test-model",
      choices: [
        { index: 0, message: { role: "assistant", content: reply.content, refusal: null }, logprobs: null, finish_reason: reply.finishReason ?? "stop" },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    };
  }

  const errorType = (status: number) => (status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error");

  async function chat(recorded: RecordedRequest, res: ServerResponse) {
    const body = recorded.body ?? {};
    const rejection = formatRejection(body);
    if (rejection) return later(server.latencyMs, () => sendJson(res, 400, errorBody(rejection)));
    const reply = await nextReply(recorded);
    if ("hang" in reply) return; // never answer; close() destroys the socket
    const delay = server.latencyMs + (reply.delayMs ?? 0);
    later(delay, () => {
      if ("rawBody" in reply) {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "application/json" });
        return void res.end(reply.rawBody);
      }
      if ("status" in reply) return sendJson(res, reply.status, errorBody(reply.message ?? `scripted ${reply.status}`, errorType(reply.status)), reply.headers);
      sendJson(res, 200, completion(body, reply, chatCount));
    });
  }

  const batchApi = createBatchRoutes({
    sendJson,
    errorBody,
    answer: async (line) => {
      const recorded: RecordedRequest = {
        method: "POST",
        path: line.url,
        headers: {},
        body: line.body,
        rawBody: JSON.stringify(line.body),
        receivedAt: Date.now(),
      };
      if (record) server.batchRequests.push(recorded);
      batchCount++;
      const rejection = formatRejection(line.body);
      if (rejection) return { status: 400, body: errorBody(rejection) };
      const reply = await nextReply(recorded);
      if ("hang" in reply || "rawBody" in reply) return { status: 500, body: errorBody("the model server failed", "server_error") };
      if ("status" in reply) return { status: reply.status, body: errorBody(reply.message ?? `scripted ${reply.status}`, errorType(reply.status)) };
      return { status: 200, body: completion(line.body, reply, batchCount) };
    },
    options: () => server.batch,
  });

  const httpServer = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path.startsWith("/v1/files") || path.startsWith("/v1/batches")) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value ?? "");
      // Bodies are kept raw here (uploads can be hundreds of MB); only the route and headers are recorded.
      if (record) server.requests.push({ method: req.method ?? "GET", path, headers, body: undefined, rawBody: "", receivedAt: Date.now() });
      return void batchApi.route(req, res, path);
    }
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value ?? "");
      const recorded: RecordedRequest = { method: req.method ?? "GET", path, headers, body, rawBody, receivedAt: Date.now() };
      res.on("finish", () => (recorded.answeredAt = Date.now()));
      const isChat = req.method === "POST" && path === "/v1/chat/completions";
      if (isChat) chatCount++;
      if (record) server.requests.push(recorded);
      if (isChat) return void chat(recorded, res);
      if (req.method === "GET" && path === "/v1/models") {
        if (server.modelsStatus !== 200) return sendJson(res, server.modelsStatus, errorBody(`scripted ${server.modelsStatus}`));
        return sendJson(res, 200, {
          object: "list",
          data: (options.models ?? ["test-model"]).map((id) => ({ id, object: "model", created: 0, owned_by: "test" })),
        });
      }
      sendJson(res, 404, errorBody(`no route ${req.method} ${path}`));
    });
  });
  httpServer.keepAliveTimeout = 60_000;
  httpServer.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;

  const server: OpenAiServer = {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests: [],
    chatRequests: () => server.requests.filter((r) => r.method === "POST" && r.path === "/v1/chat/completions"),
    get chatCount() {
      return chatCount;
    },
    enqueue: (...replies) => void queue.push(...replies),
    setHandler: (next) => void (handler = next),
    latencyMs: options.latencyMs ?? 0,
    rejectFormats: [...(options.rejectFormats ?? [])],
    modelsStatus: 200,
    batchRequests: [],
    get batchCount() {
      return batchCount;
    },
    batch: { ...DEFAULT_BATCH_BEHAVIOUR, ...options.batch },
    files: () => batchApi.files(),
    batches: () => batchApi.batches(),
    reset() {
      server.requests.length = 0;
      chatCount = 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      await batchApi.dispose();
    },
  };
  return server;
}
