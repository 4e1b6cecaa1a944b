import { afterEach, describe, expect, it } from "vitest";
import { resolveModelConfig, endpointHost, displayURL, isLoopbackEndpoint, needsApiKey } from "../../src/llm/config.js";
import { backoffDelay, retryAfterMs } from "../../src/llm/retry.js";
import { priceFor, estimateCost } from "../../src/llm/prices.js";
import { createChatModel } from "../../src/llm/client.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { modelFor } from "./helpers.js";

describe("resolveModelConfig", () => {
  it("never hands the key to an endpoint named only by the study file (a shared study could name any server)", () => {
    const env = { OPENAI_API_KEY: "sk-mine" };
    expect(resolveModelConfig({ env, study: { baseURL: "https://attacker.example/v1" } }).apiKey).toBeUndefined();
    expect(resolveModelConfig({ env, study: { baseURL: "https://api.openai.com/v1" } }).apiKey).toBe("sk-mine");
    expect(resolveModelConfig({ env, study: { baseURL: "https://attacker.example/v1" }, cli: { baseURL: "https://my-gateway.example/v1" } }).apiKey).toBe(
      "sk-mine",
    );
    expect(resolveModelConfig({ env: { ...env, OPENAI_BASE_URL: "https://my-gateway.example/v1" } }).apiKey).toBe("sk-mine");
    expect(resolveModelConfig({ env }).apiKey).toBe("sk-mine");
  });

  it("applies CLI > study > environment > default per field", () => {
    const env = { OPENAI_MODEL: "env-model", OPENAI_BASE_URL: "http://env:1/v1", OPENAI_API_KEY: "k" };
    expect(resolveModelConfig({ env }).model).toBe("env-model");
    expect(resolveModelConfig({ env: { ...env, COLLOQUY_MODEL: "colloquy-model" } }).model).toBe("colloquy-model");
    expect(resolveModelConfig({ env, study: { model: "study-model", concurrency: 3 } })).toMatchObject({
      model: "study-model",
      concurrency: 3,
      baseURL: "http://env:1/v1",
    });
    const all = resolveModelConfig({ env, study: { model: "study-model", baseURL: "http://study:2/v1" }, cli: { model: "cli-model", concurrency: 5 } });
    expect(all).toMatchObject({ model: "cli-model", baseURL: "http://study:2/v1", concurrency: 5, temperature: 0 });
    // The study file's own endpoint gets no key (see the next test).
    expect(all.apiKey).toBeUndefined();
    expect(resolveModelConfig({ env: {} })).toMatchObject({ model: "gpt-4o-mini", baseURL: undefined, concurrency: 8, cacheDir: null });
  });

  it("puts the cache in the study unless --no-cache", () => {
    expect(resolveModelConfig({ env: {}, studyDir: "/s" }).cacheDir).toBe("/s/.cache/llm");
    expect(resolveModelConfig({ env: {}, studyDir: "/s", cli: { noCache: true } }).cacheDir).toBeNull();
  });

  it("knows which endpoints need a key and prints hosts without credentials", () => {
    expect(needsApiKey(undefined)).toBe(true);
    expect(needsApiKey("https://api.openai.com/v1")).toBe(true);
    expect(needsApiKey("http://localhost:11434/v1")).toBe(false);
    expect(needsApiKey("http://127.0.0.5:8000/v1")).toBe(false);
    expect(needsApiKey("http://[::1]:8000/v1")).toBe(false);
    expect(needsApiKey("https://my-gateway.example.org/v1")).toBe(false);
    expect(isLoopbackEndpoint("http://[::1]:8000/v1")).toBe(true);
    expect(endpointHost("http://user:pw@host.example:8080/v1?key=abc")).toBe("host.example:8080");
    expect(displayURL("http://user:pw@host.example:8080/v1?key=abc")).toBe("http://host.example:8080/v1");
    expect(endpointHost(undefined)).toBe("api.openai.com");
  });
});

describe("retry timing", () => {
  it("uses full jitter under an exponential ceiling", () => {
    expect(backoffDelay(0, { baseMs: 100, maxMs: 1000, random: () => 1 })).toBe(100);
    expect(backoffDelay(3, { baseMs: 100, maxMs: 1000, random: () => 1 })).toBe(800);
    expect(backoffDelay(10, { baseMs: 100, maxMs: 1000, random: () => 1 })).toBe(1000);
    expect(backoffDelay(5, { baseMs: 100, maxMs: 1000, random: () => 0 })).toBe(0);
  });
  it("parses Retry-After seconds, dates and retry-after-ms", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs({ "retry-after": "2" }, now)).toBe(2000);
    expect(retryAfterMs({ "Retry-After": "Wed, 01 Jan 2025 00:00:05 GMT" }, now)).toBe(5000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe("prices", () => {
  it("looks up exact names, dated snapshots, overrides and local models", () => {
    expect(priceFor("gpt-4o-mini")).toEqual({ input: 0.15, output: 0.6 });
    expect(priceFor("gpt-4o-mini-2024-07-18")).toEqual({ input: 0.15, output: 0.6 });
    expect(priceFor("gpt-4o-2024-08-06")).toEqual({ input: 2.5, output: 10 });
    expect(priceFor("mystery")).toBeUndefined();
    expect(priceFor("llama3.1", { local: true })).toEqual({ input: 0, output: 0 });
    expect(priceFor("llama3.1", { local: true, overrides: { "llama3.1": { input: 1, output: 2 } } })).toEqual({ input: 1, output: 2 });
    expect(estimateCost({ input: 0.15, output: 0.6 }, 1_000_000, 500_000)).toBeCloseTo(0.45, 10);
  });
});

describe("preflight", () => {
  let server: OpenAiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("reports a missing key for the OpenAI API with the fix, without any request", async () => {
    const model = createChatModel(resolveModelConfig({ env: {} }));
    const error = await model.preflight();
    expect(error?.kind).toBe("auth");
    expect(error?.message).toContain("export OPENAI_API_KEY=");
    expect(error?.message).toContain("--base-url http://localhost:11434/v1");
  });

  it("reports an unreachable endpoint", async () => {
    server = await startOpenAiServer();
    const url = server.url;
    await server.close();
    const model = createChatModel(resolveModelConfig({ env: {}, cli: { baseURL: url } }));
    const error = await model.preflight({ timeoutMs: 2000 });
    expect(error?.kind).toBe("unreachable");
    expect(error?.message).toContain(url);
  });

  it("passes for a local server without a key, and sends the placeholder key", async () => {
    server = await startOpenAiServer();
    const model = modelFor(server);
    expect(await model.preflight()).toBeUndefined();
    expect(server.requests[0].headers.authorization).toBe("Bearer not-needed");
  });

  it("passes when /models is missing but reports a rejected key", async () => {
    server = await startOpenAiServer();
    server.modelsStatus = 404;
    expect(await modelFor(server).preflight()).toBeUndefined();
    server.modelsStatus = 401;
    expect((await modelFor(server, { apiKey: "sk-wrong" }).preflight())?.kind).toBe("auth");
  });
});
