import { describe, expect, it, vi } from "vitest";
import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPipeline } from "../../src/pipeline/run.js";
import { studyStages } from "../../src/pipeline/stages.js";
import { loadedOpenaiSdk } from "../../src/llm/sdk.js";
import { silentReporter } from "../../src/util/reporter.js";
import { startOpenAiServer } from "../support/openai-server.js";
import { modelFor } from "./helpers.js";

/**
 * The openai SDK loads when a model is first asked something (src/llm/sdk.ts): a study run with
 * the offline coders never pays for importing it. Each test file has its own module registry,
 * so nothing else here has loaded it; the mock notes any import of it, static or dynamic, from
 * any module.
 */
const sdk = vi.hoisted(() => ({ imported: false }));
vi.mock("openai", async (importOriginal) => {
  sdk.imported = true;
  return importOriginal();
});
describe("the openai SDK, loaded on first use", () => {
  it("is not loaded by an offline study run; is by the first request, whose errors are then classified as the SDK's", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-sdk-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const run = await runPipeline(dir, studyStages, {}, silentReporter);
    expect(run.stages.map((s) => s.status)).toEqual(studyStages.map(() => "ran"));
    expect(sdk.imported).toBe(false);
    expect(loadedOpenaiSdk()).toBeUndefined();

    const server = await startOpenAiServer();
    try {
      server.enqueue({ status: 401 });
      const model = modelFor(server, { maxRetries: 0 });
      const result = await model.complete({ messages: [{ role: "user", content: "hi" }] });
      expect(sdk.imported).toBe(true);
      expect(loadedOpenaiSdk()).toBeDefined();
      // Classified from the SDK's APIError (status 401), loaded by this very request.
      expect(result).toMatchObject({ ok: false, error: { kind: "auth", status: 401 } });
    } finally {
      await server.close();
    }
  });
});
