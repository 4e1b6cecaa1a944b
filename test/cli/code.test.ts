import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli, clearModelEnv } from "../support/cli.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { balesHandler, makeSession, makeStudy, targetsOf, TEXTS_A, TEXTS_B } from "../coding/llm-fixtures.js";
import { readCodes, readFailures } from "../../src/coding/store.js";

let server: OpenAiServer;
let study: Awaited<ReturnType<typeof makeStudy>>;

beforeEach(async () => {
  clearModelEnv(vi.stubEnv);
  server = await startOpenAiServer({ handler: balesHandler });
  study = await makeStudy([makeSession("a", TEXTS_A, { system: [5] }), makeSession("b", TEXTS_B)]);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
  await study.cleanup();
});

const llm = () => ["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm", "--base-url", server.url, "--model", "test-model"];

describe("colloquy code", () => {
  it("codes with the rules coder offline by default and prints a one-line summary", async () => {
    const run = await runCli(["code", study.dir, "--codebook", "bales-ipa"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^bales-ipa\/rules: coded 9, failed 0, cached 0, skipped 1 \(system 1\), already coded 0, [\d.]+ s$/);
    expect(await readCodes(study.dir, "bales-ipa", "rules")).toHaveLength(9);
  });

  it("codes with an LLM at a local endpoint without a key, then re-runs for free", async () => {
    const first = await runCli([...llm(), "--json"]);
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout).jobs[0];
    expect(summary).toMatchObject({ coder: "llm", coded: 9, failed: 0, requests: 9, estimatedCost: 0 });
    expect(server.chatRequests()[0].headers.authorization).toBe("Bearer not-needed");
    const again = await runCli(llm());
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("coded 0");
    expect(again.stdout).toContain("already coded 9");
    expect(server.chatCount).toBe(9);
  });

  it("--sessions, --context, --coder-id and --batch reach the job", async () => {
    const run = await runCli([...llm(), "--sessions", "b", "--context", "0:1", "--coder-id", "llm:test", "--batch", "2"]);
    expect(run.code).toBe(0);
    const requests = server.chatRequests();
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => targetsOf(r).map((t) => t.turn))).toEqual([
      ["t0000", "t0001"],
      ["t0002", "t0003"],
    ]);
    const first = requests[0].body.messages[1].content.split("\n").filter((l: string) => /^(TARGET|context) \[/.test(l));
    expect(first).toHaveLength(3); // two targets + one after, none before
    const codes = await readCodes(study.dir, "bales-ipa", "llm:test");
    expect(codes.map((c) => c.session)).toEqual(["b", "b", "b", "b"]);
    expect(codes[0].provenance).toMatchObject({ context: "0:1", batch: 2 });
  });

  it("--dry-run prints the exact prompt and estimates, and calls nothing", async () => {
    const run = await runCli([...llm(), "--dry-run"]);
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(run.stdout).toContain("--- system ---");
    expect(run.stdout).toContain("TARGET [t0000] Ava: Welcome everyone, shall we start?");
    expect(run.stdout).toMatch(/Estimate for the whole job: 9 request\(s\), ~[\d,]+ prompt tokens/);
  });

  it("--dry-run works without a key and says the real run needs one", async () => {
    const run = await runCli(["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm", "--dry-run", "--json"]);
    expect(run.code).toBe(0);
    const [plan] = JSON.parse(run.stdout).dryRun;
    expect(plan).toMatchObject({ codebook: "bales-ipa", coder: "llm", toCode: 9, requests: 9 });
    expect(plan.estimatedCost).toBeGreaterThan(0); // gpt-4o-mini has a price
    expect(run.stderr).toContain("needs an API key");
  });

  it("exits non-zero after writing everything when turns fail", async () => {
    server.setHandler((req) => (targetsOf(req)[0]?.text.startsWith("Thanks") ? { content: '{"code":"thanks"}' } : balesHandler(req)));
    const run = await runCli(llm());
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("coded 8, failed 1");
    expect(run.stderr).toContain("1 turn(s) could not be coded");
    expect(run.stderr).toContain("codes/bales-ipa/llm.failures.jsonl");
    expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(8);
    expect(await readFailures(study.dir, "bales-ipa", "llm")).toHaveLength(1);
  });

  it("stops at once when the endpoint refuses every request (unknown model), instead of failing each turn", async () => {
    server.setHandler(() => ({ status: 404, message: "The model `nope` does not exist" }));
    const run = await runCli([...llm(), "--concurrency", "1"]);
    expect(run.code).toBe(1);
    expect(server.chatCount).toBeLessThanOrEqual(2);
    expect(run.stderr).toContain("stopped coding bales-ipa");
    expect(run.stderr).toContain("Check the model name");
    expect(run.stdout).toContain("stopped: the endpoint refused the request");
  });

  it("after a stop, sends none of the requests that were waiting for a slot (only those in flight are answered)", async () => {
    // Both slots' requests are in flight before either is refused; the job's other workers wait for a slot.
    server.setHandler(() => ({ status: 400, message: "Unsupported parameter: 'seed'" }));
    const run = await runCli([...llm(), "--concurrency", "2"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("stopped coding bales-ipa");
    expect(server.chatCount).toBe(2);
  });

  it("reports a missing key for the OpenAI API once, before any work", async () => {
    const run = await runCli(["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("export OPENAI_API_KEY=");
    expect(run.stderr).toContain("--base-url http://localhost:11434/v1");
    expect(run.stderr.split("\n").filter((l) => l.includes("OPENAI_API_KEY"))).toHaveLength(1);
    await expect(readdir(join(study.dir, "codes", "bales-ipa"))).rejects.toThrow();
  });

  it("reports an unreachable endpoint once, before any work", async () => {
    const url = server.url;
    await server.close();
    const run = await runCli(["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm", "--base-url", url]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach ${url}`);
  });

  it("names bad flags and unknown sessions", async () => {
    expect((await runCli([...llm(), "--context", "x"])).stderr).toContain("--context must look like 2:2");
    expect((await runCli([...llm(), "--sessions", "nope"])).stderr).toContain('no session "nope"');
    expect((await runCli([...llm(), "--concurrency", "0"])).stderr).toContain("--concurrency must be");
    expect((await runCli(["code", study.dir, "--codebook", "nonexistent"])).stderr).toContain('unknown codebook "nonexistent"');
    expect((await runCli(["code", study.dir, "--codebook", "ttct-creativity"])).stderr).toContain("--coder llm");
  });

  it("keeps a key from the environment out of output and study files", async () => {
    const sentinel = "sk-cli-SENTINEL-0000";
    vi.stubEnv("OPENAI_API_KEY", sentinel);
    server.setHandler((req) => (targetsOf(req)[0]?.turn === "t0001" ? { status: 401, message: `bad key ${sentinel}` } : balesHandler(req)));
    const run = await runCli([...llm(), "--json"]);
    expect(server.chatRequests().every((r) => r.headers.authorization === `Bearer ${sentinel}`)).toBe(true);
    expect(run.stdout + run.stderr).not.toContain(sentinel);
    for (const file of await readdir(study.dir, { recursive: true })) {
      const text = await readFile(join(study.dir, file), "utf8").catch(() => "");
      expect(text, file).not.toContain(sentinel);
    }
  });
});
