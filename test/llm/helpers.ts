import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChatModel, type ChatModelOptions, type LlmClient } from "../../src/llm/client.js";
import { resolveModelConfig } from "../../src/llm/config.js";
import type { ModelConfig } from "../../src/llm/types.js";
import type { OpenAiServer } from "../support/openai-server.js";

/** A ChatModel pointed at the test server, with fast backoff so retry tests stay quick. */
export function modelFor(server: OpenAiServer, overrides: Partial<ModelConfig> = {}, options: ChatModelOptions = {}): LlmClient {
  const config: ModelConfig = {
    ...resolveModelConfig({ env: {} }),
    baseURL: server.url,
    model: "test-model",
    timeoutMs: 2_000,
    maxRetries: 3,
    ...overrides,
  };
  return createChatModel(config, { backoff: { baseMs: 10, maxMs: 50 }, ...options });
}

export async function tempDir(prefix = "colloquy-llm-"): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
