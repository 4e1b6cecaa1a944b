import { join } from "node:path";
import type { ModelSettings } from "../study/config.js";
import type { ModelConfig } from "./types.js";

/** Defaults when neither CLI, study config nor environment say otherwise. */
export const MODEL_DEFAULTS = {
  model: "gpt-4o-mini",
  temperature: 0,
  concurrency: 8,
  /** Per request, in ms; a slow local model on a laptop can need a minute for a long prompt. */
  timeoutMs: 120_000,
  /** Retries after the first attempt (429, 5xx, timeouts, connection errors). */
  maxRetries: 4,
} as const;

/** Settings given on the command line (all optional). */
export interface ModelCliOptions {
  model?: string;
  baseURL?: string;
  temperature?: number;
  seed?: number;
  concurrency?: number;
  timeoutMs?: number;
  maxRetries?: number;
  /** --no-cache: no cache folder at all for this run. */
  noCache?: boolean;
}

/** The environment variables we read (a subset of process.env, injectable for tests). */
export interface ModelEnv {
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_MODEL?: string;
  COLLOQUY_MODEL?: string;
}

/**
 * Merge model settings: CLI > study config (colloquy.json `model`) > environment > default,
 * one `??` chain per field. `studyDir` places the response cache at `<study>/.cache/llm`.
 * The API key only ever comes from the environment (never a flag: shell history, ps output).
 */
export function resolveModelConfig(input: { cli?: ModelCliOptions; study?: ModelSettings; env?: ModelEnv; studyDir?: string }): ModelConfig {
  const cli = input.cli ?? {};
  const study = input.study ?? {};
  const env = input.env ?? (process.env as ModelEnv);
  const blank = (value: string | undefined) => (value && value.trim() !== "" ? value.trim() : undefined);
  return {
    model: cli.model ?? study.model ?? blank(env.COLLOQUY_MODEL) ?? blank(env.OPENAI_MODEL) ?? MODEL_DEFAULTS.model,
    baseURL: cli.baseURL ?? study.baseURL ?? blank(env.OPENAI_BASE_URL) ?? undefined,
    apiKey: keyFor(cli.baseURL, study.baseURL, blank(env.OPENAI_API_KEY)),
    temperature: cli.temperature ?? study.temperature ?? MODEL_DEFAULTS.temperature,
    seed: cli.seed ?? study.seed ?? undefined,
    concurrency: cli.concurrency ?? study.concurrency ?? MODEL_DEFAULTS.concurrency,
    timeoutMs: cli.timeoutMs ?? study.timeoutMs ?? MODEL_DEFAULTS.timeoutMs,
    maxRetries: cli.maxRetries ?? study.maxRetries ?? MODEL_DEFAULTS.maxRetries,
    cacheDir: cli.noCache ? null : input.studyDir ? join(input.studyDir, ".cache", "llm") : null,
    prices: study.prices,
  };
}

/**
 * The key is the researcher's, but colloquy.json travels with a shared study: a base URL that
 * only the study file names (not the command line, not OPENAI_BASE_URL) could send the key to
 * anyone's server. So such an endpoint gets no key unless it is the OpenAI API itself; pass
 * `--base-url` (or set OPENAI_BASE_URL) to send your key to another endpoint on purpose.
 */
function keyFor(cliBaseURL: string | undefined, studyBaseURL: string | undefined, key: string | undefined): string | undefined {
  if (!key) return undefined;
  const fromStudyFile = cliBaseURL === undefined && studyBaseURL !== undefined;
  return fromStudyFile && !isOpenAiApi(studyBaseURL) ? undefined : key;
}

function isOpenAiApi(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

/** The OpenAI API's own base URL (the SDK's default). */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Host (and port) of the endpoint, for provenance and messages: never path, user info or query. */
export function endpointHost(baseURL: string | undefined): string {
  try {
    return new URL(baseURL ?? OPENAI_BASE_URL).host;
  } catch {
    return "invalid-url";
  }
}

/** The base URL with any user:password@ part removed, safe to print. */
export function displayURL(baseURL: string | undefined): string {
  try {
    const url = new URL(baseURL ?? OPENAI_BASE_URL);
    url.username = "";
    url.password = "";
    url.search = "";
    return url.toString().replace(/\/$/, "");
  } catch {
    return "(invalid URL)";
  }
}

/** True for localhost, 127.x.x.x and ::1: a model on this machine. */
export function isLoopbackEndpoint(baseURL: string | undefined): boolean {
  if (!baseURL) return false;
  try {
    const host = new URL(baseURL).hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "::1" || host === "0.0.0.0";
  } catch {
    return false;
  }
}

/**
 * Whether the endpoint needs an API key from us: only the OpenAI API itself. Local servers
 * (Ollama, LM Studio, vLLM, llama.cpp) and other gateways get a placeholder unless a key is set.
 */
export function needsApiKey(baseURL: string | undefined): boolean {
  if (isLoopbackEndpoint(baseURL)) return false;
  try {
    return new URL(baseURL ?? OPENAI_BASE_URL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

/** What the SDK gets when no key is needed (it refuses to start without one). */
export const PLACEHOLDER_API_KEY = "not-needed";
