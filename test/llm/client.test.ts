import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { modelFor, tempDir } from "./helpers.js";

const ask = (text: string) => ({ messages: [{ role: "user" as const, content: text }] });

describe("ChatModel against a real OpenAI-compatible server", () => {
  let server: OpenAiServer;
  beforeEach(async () => {
    server = await startOpenAiServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("returns text, usage and the request hash", async () => {
    server.enqueue({ content: "hello", usage: { prompt_tokens: 11, completion_tokens: 2 } });
    const model = modelFor(server);
    const result = await model.complete(ask("hi"));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.response.text).toBe("hello");
    expect(result.response.usage).toEqual({ promptTokens: 11, completionTokens: 2 });
    expect(result.response.cached).toBe(false);
    expect(result.response.requestHash).toMatch(/^[0-9a-f]{64}$/);
    expect(server.chatRequests()[0].body).toMatchObject({ model: "test-model", temperature: 0, messages: [{ role: "user", content: "hi" }] });
    expect(model.usage()).toMatchObject({ requests: 1, promptTokens: 11, completionTokens: 2, failures: 0, estimatedCost: 0 });
  });

  it("a stop decided on a result (onResult) is seen by every request waiting for a slot, whatever its caller's timing", async () => {
    server.setHandler(() => ({ status: 400, message: "Unsupported parameter: 'seed'" }));
    const model = modelFor(server, { concurrency: 1 });
    const halting = new AbortController();
    const onResult = (result: { ok: boolean; error?: { kind: string } }) => {
      if (!result.ok && result.error?.kind === "bad_request") halting.abort();
    };
    // Three requests for one slot; their callers do nothing on the results (no promise chain to wait for).
    const results = await Promise.all(["a", "b", "c"].map((text) => model.complete({ ...ask(text), stopStarting: halting.signal, onResult })));
    expect(server.chatCount).toBe(1);
    expect(results.map((r) => (r.ok ? "ok" : r.error.kind))).toEqual(["bad_request", "aborted", "aborted"]);
  });

  it("honours Retry-After in seconds on 429 (measured wait)", async () => {
    server.enqueue({ status: 429, headers: { "retry-after": "1" } }, { content: "done" });
    const model = modelFor(server);
    const started = Date.now();
    const result = await model.complete(ask("x"));
    const waited = server.chatRequests()[1].receivedAt - server.chatRequests()[0].receivedAt;
    expect(result.ok).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(990);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("honours retry-after-ms and an HTTP-date Retry-After", async () => {
    server.enqueue({ status: 429, headers: { "retry-after-ms": "300" } }, { content: "a" });
    const model = modelFor(server);
    expect((await model.complete(ask("a"))).ok).toBe(true);
    const [first, second] = server.chatRequests();
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(290);

    server.reset();
    server.enqueue({ status: 503, headers: { "retry-after": new Date(Date.now() + 1500).toUTCString() } }, { content: "b" });
    expect((await model.complete(ask("b"))).ok).toBe(true);
    const [third, fourth] = server.chatRequests();
    // HTTP dates have 1 s resolution: at least ~0.5 s must have passed.
    expect(fourth.receivedAt - third.receivedAt).toBeGreaterThanOrEqual(450);
  });

  it("retries a 500 and then succeeds; gives up after maxRetries with kind server", async () => {
    server.enqueue({ status: 500 }, { content: "ok" });
    const model = modelFor(server, { maxRetries: 2 });
    const ok = await model.complete(ask("1"));
    expect(ok.ok).toBe(true);
    expect(server.chatRequests()).toHaveLength(2);

    server.enqueue({ status: 500 }, { status: 502 }, { status: 500 });
    const bad = await model.complete(ask("2"));
    expect(bad).toMatchObject({ ok: false, error: { kind: "server", status: 500, attempts: 3 } });
    expect(model.usage().failures).toBe(1);
  });

  it("times out a hanging request and retries it", async () => {
    server.enqueue({ hang: true }, { content: "late but fine" });
    const model = modelFor(server, { timeoutMs: 300 });
    const started = Date.now();
    const result = await model.complete(ask("t"));
    expect(result).toMatchObject({ ok: true, response: { text: "late but fine" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("reports timeout after all retries as kind timeout", async () => {
    server.setHandler(() => ({ content: "slow", delayMs: 1_000 }));
    const model = modelFor(server, { timeoutMs: 100, maxRetries: 1 });
    const result = await model.complete(ask("t"));
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout", attempts: 2 } });
  });

  it("treats a malformed HTTP body as a transient server error", async () => {
    server.enqueue({ rawBody: '{"choices": [ {"mess' }, { content: "recovered" });
    const model = modelFor(server);
    const result = await model.complete(ask("m"));
    expect(result).toMatchObject({ ok: true, response: { text: "recovered" } });
  });

  it("does not retry 400 and 401, and says how to fix a 401", async () => {
    server.enqueue({ status: 401, message: "invalid key" });
    const model = modelFor(server);
    const result = await model.complete(ask("a"));
    expect(result).toMatchObject({ ok: false, error: { kind: "auth", status: 401, attempts: 1 } });
    if (!result.ok) expect(result.error.message).toContain("OPENAI_API_KEY");
    server.enqueue({ status: 400, message: "bad model" });
    expect(await model.complete(ask("b"))).toMatchObject({ ok: false, error: { kind: "bad_request", attempts: 1 } });
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("returns an aborted error without retrying when the signal fires", async () => {
    server.enqueue({ hang: true });
    const model = modelFor(server);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await model.complete({ ...ask("a"), signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: { kind: "aborted" } });
    expect(model.usage().failures).toBe(0);
  });

  it("bounds concurrency across all callers", async () => {
    let active = 0;
    let peak = 0;
    server.setHandler(async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 30));
      active--;
      return { content: "x" };
    });
    const model = modelFor(server, { concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => model.complete(ask(`q${i}`))));
    expect(peak).toBe(3);
    expect(server.chatRequests()).toHaveLength(12);
  });

  it("falls back from json_schema to json_object to text when the endpoint rejects them, once per model", async () => {
    server.rejectFormats = ["json_schema", "json_object"];
    const model = modelFor(server);
    const format = { type: "json_schema" as const, name: "answer", schema: { type: "object", properties: {}, additionalProperties: false } };
    const first = await model.complete({ ...ask("one"), responseFormat: format });
    expect(first.ok).toBe(true);
    expect(server.chatRequests().map((r) => r.body.response_format?.type)).toEqual(["json_schema", "json_object", undefined]);
    expect(model.formatSupport()).toBe("text");
    await model.complete({ ...ask("two"), responseFormat: format });
    // Remembered: no further rejected attempts.
    expect(server.chatRequests()).toHaveLength(4);
    expect(server.chatRequests()[3].body.response_format).toBeUndefined();
  });

  it("sends a strict json_schema response_format when supported", async () => {
    const model = modelFor(server);
    const schema = { type: "object", properties: { code: { type: "string" } }, required: ["code"], additionalProperties: false };
    await model.complete({ ...ask("s"), responseFormat: { type: "json_schema", name: "code", schema } });
    expect(server.chatRequests()[0].body.response_format).toEqual({ type: "json_schema", json_schema: { name: "code", schema, strict: true } });
  });
});

describe("response cache and in-flight dedup", () => {
  let server: OpenAiServer;
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    server = await startOpenAiServer({ latencyMs: 20 });
    tmp = await tempDir();
  });
  afterEach(async () => {
    await server.close();
    await tmp.cleanup();
  });

  it("answers a repeated request from the cache with zero requests, across model instances", async () => {
    server.setHandler((req) => ({ content: `echo ${req.body.messages[0].content}` }));
    const cacheDir = join(tmp.dir, ".cache", "llm");
    const first = modelFor(server, { cacheDir });
    const a = await first.complete(ask("same"));
    const second = modelFor(server, { cacheDir });
    const b = await second.complete(ask("same"));
    expect(server.chatRequests()).toHaveLength(1);
    expect(a.ok && b.ok && b.response.cached && b.response.text === a.response.text).toBe(true);
    expect(second.usage()).toMatchObject({ requests: 0, cachedResponses: 1 });
    // A different seed, temperature or max tokens is a different request.
    await second.complete({ ...ask("same"), seed: 7 });
    await second.complete({ ...ask("same"), maxTokens: 10 });
    expect(server.chatRequests()).toHaveLength(3);
    // noCache skips the lookup.
    await second.complete({ ...ask("same"), noCache: true });
    expect(server.chatRequests()).toHaveLength(4);
  });

  it("does not cache failures or truncated replies", async () => {
    const cacheDir = join(tmp.dir, "cache");
    const model = modelFor(server, { cacheDir, maxRetries: 0 });
    server.enqueue({ status: 500 });
    expect((await model.complete(ask("f"))).ok).toBe(false);
    server.enqueue({ content: '{"co', finishReason: "length" });
    const truncated = await model.complete(ask("g"));
    expect(truncated).toMatchObject({ ok: true, response: { finishReason: "length" } });
    let files: string[] = [];
    try {
      files = await readdir(cacheDir, { recursive: true });
    } catch {
      files = [];
    }
    expect(files.filter((f) => f.endsWith(".json"))).toEqual([]);
  });

  it("keeps working when the cache folder is deleted during a run", async () => {
    const cacheDir = join(tmp.dir, "gone");
    const model = modelFor(server, { cacheDir });
    await model.complete(ask("one"));
    await rm(cacheDir, { recursive: true, force: true });
    expect((await model.complete(ask("two"))).ok).toBe(true);
    expect((await model.complete(ask("two"))).ok && server.chatRequests().length).toBe(2);
    const fresh = modelFor(server, { cacheDir });
    const again = await fresh.complete(ask("two"));
    expect(again.ok && again.response.cached).toBe(true);
  });

  it("deduplicates identical in-flight requests into one HTTP request", async () => {
    const model = modelFor(server, { cacheDir: join(tmp.dir, "c") });
    const results = await Promise.all(Array.from({ length: 5 }, () => model.complete(ask("dup"))));
    expect(server.chatRequests()).toHaveLength(1);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.filter((r) => r.ok && !r.response.cached)).toHaveLength(1);
    expect(model.usage()).toMatchObject({ requests: 1, cachedResponses: 4 });
  });

  it("writes cache files that hold the reply but never the key or headers", async () => {
    const sentinel = "sk-test-SENTINEL-KEY-0123456789";
    const cacheDir = join(tmp.dir, "c");
    const model = modelFor(server, { cacheDir, apiKey: sentinel });
    server.enqueue({ status: 401, message: `Incorrect API key provided: ${sentinel}` });
    const denied = await model.complete(ask("k0"));
    expect(denied.ok).toBe(false);
    if (!denied.ok) expect(denied.error.message).not.toContain(sentinel);
    await model.complete(ask("k1"));
    expect(server.chatRequests()[1].headers.authorization).toBe(`Bearer ${sentinel}`);
    const files = (await readdir(cacheDir, { recursive: true })).filter((f) => f.endsWith(".json"));
    expect(files).toHaveLength(1);
    const text = await readFile(join(cacheDir, files[0]), "utf8");
    expect(text).toContain('"text"');
    expect(text).not.toContain(sentinel);
    expect(text.toLowerCase()).not.toContain("authorization");
  });
});
