import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile } from "node:fs/promises";
import { readCodeHistory } from "../../src/coding/store.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import { schemaInstance, startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";

let server: OpenAiServer;
beforeEach(async () => {
  server = await startOpenAiServer({
    handler: (req) => ({ content: JSON.stringify(schemaInstance(req.body.response_format?.json_schema?.schema ?? { type: "string" })) }),
  });
});
afterEach(() => server.close());

describe("colloquy study with the LLM coder", () => {
  it("codes through an OpenAI-compatible endpoint, then a second run skips everything and sends no request", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-study-llm-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const args = ["study", dir, "--coder", "llm", "--base-url", server.url, "--model", "test-model", "--only", "import,code,agree,compare", "--json"];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    const turns = 372;
    // One request per codeable turn and codebook (bales-ipa and pragmatic-style).
    expect(server.chatRequests().length).toBe(2 * turns);
    const [record] = await readCodeHistory(dir, "bales-ipa", "llm");
    expect(record).toMatchObject({ coder: "llm", codes: ["shows-solidarity"], provenance: { model: "test-model" } });
    const agreement = JSON.parse(await readFile(join(dir, "analysis", "agreement-bales-ipa.json"), "utf8"));
    expect(agreement.coders).toEqual(["llm", "human:coder-a", "human:coder-b"]);

    const before = server.chatRequests().length;
    const second = await runCli(args);
    expect(second.code, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout).stages as { status: string }[]).filter((s) => s.status === "ran")).toEqual([]);
    expect(server.chatRequests().length).toBe(before);
  }, 240_000);

  it("knows a pending batch: asks nothing online, goes on with the codes so far and says so", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-study-batch-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    await runCli(["study", dir, "--only", "import"]);
    const submit = await runCli([
      "code",
      dir,
      "--codebook",
      "bales-ipa",
      "--coder",
      "llm",
      "--via",
      "batch",
      "--base-url",
      server.url,
      "--model",
      "test-model",
    ]);
    expect(submit.code, submit.stderr).toBe(0);
    const run = await runCli(["study", dir, "--coder", "llm", "--base-url", server.url, "--model", "test-model", "--only", "code,agree", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const stages = JSON.parse(run.stdout).stages as { name: string; status: string; summary?: string; work?: string }[];
    const code = stages.find((s) => s.name === "code")!;
    expect(code.status).toBe("ran");
    expect(JSON.stringify(code)).toMatch(/LLM: waiting for 1 LLM batch \(bales-ipa\/llm, \d+ request\(s\), submitted /);
    expect(stages.find((s) => s.name === "agree")!.status).toBe("ran");
    expect(server.chatRequests()).toHaveLength(0);
    expect(server.batchCount).toBe(0);
    // The agreement of the coders there are (the two human coders) was computed.
    const agreement = JSON.parse(await readFile(join(dir, "analysis", "agreement-bales-ipa.json"), "utf8"));
    expect(agreement.coders).toEqual(["human:coder-a", "human:coder-b"]);
  }, 240_000);
});
