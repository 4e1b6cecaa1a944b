import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { spawn } from "node:child_process";
import { readdir, readFile, rename, utimes } from "node:fs/promises";
import { join } from "node:path";
import { runCli, clearModelEnv } from "../support/cli.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { balesHandler, makeSession, makeStudy, targetsOf, TEXTS_A, TEXTS_B } from "../coding/llm-fixtures.js";
import { readCodes, readFailures } from "../../src/coding/store.js";
import { loadSessions } from "../../src/study/study.js";

const SECRET = "sk-test-secret-never-written-42";
let server: OpenAiServer;
let study: Awaited<ReturnType<typeof makeStudy>>;

const sessions = () => [makeSession("a", TEXTS_A, { system: [5] }), makeSession("b", TEXTS_B)];

beforeEach(async () => {
  clearModelEnv(vi.stubEnv);
  vi.stubEnv("OPENAI_API_KEY", SECRET);
  server = await startOpenAiServer({ handler: balesHandler });
  study = await makeStudy(sessions());
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
  await study.cleanup();
});

const endpoint = () => ["--base-url", server.url, "--model", "test-model"];
const submit = (dir: string, ...extra: string[]) =>
  runCli(["code", dir, "--codebook", "bales-ipa", "--coder", "llm", ...endpoint(), "--via", "batch", ...extra]);
const ledger = async (dir: string) => JSON.parse(await readFile(join(dir, ".colloquy", "batches.json"), "utf8"));

/** `colloquy <args>` as its own process (a later process, as on the next day or another machine). */
function freshProcess(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = join(import.meta.dirname, "../support/colloquy-bin.ts");
  const child = spawn(process.execPath, ["--import", "tsx", bin, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "", OPENAI_MODEL: "", COLLOQUY_MODEL: "", CI: "true" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((ok) => child.on("close", (code) => ok({ code, stdout, stderr })));
}

/** Every file under `dir`, recursively, as text. */
async function allText(dir: string): Promise<string> {
  const names = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(names.filter((d) => d.isFile()).map((d) => readFile(join(d.parentPath, d.name), "utf8")));
  return texts.join("\n");
}

/** The request lines of every uploaded batch input file. */
async function uploadedLines(): Promise<string[]> {
  const files = [...server.files().values()].filter((f) => f.purpose === "batch");
  return (
    await Promise.all(
      files.map(async (f) =>
        (await readFile(f.path))
          .subarray(f.start ?? 0, (f.start ?? 0) + f.bytes)
          .toString("utf8")
          .split("\n")
          .filter(Boolean),
      ),
    )
  ).flat();
}

describe("colloquy code --via batch", () => {
  it("reads each session again from the file it was listed from, whatever the file is called", async () => {
    const folder = join(study.dir, "sessions");
    const hourAgo = new Date(Date.now() - 3_600_000);
    await rename(join(folder, "a.json"), join(folder, "renamed-a.json"));
    for (const name of await readdir(folder)) await utimes(join(folder, name), hourAgo, hourAgo);
    await loadSessions(study.dir); // remembered with their heads: their turns are read when needed
    const run = await submit(study.dir);
    expect(run.stderr).not.toMatch(/no session/);
    expect(run.code).toBe(0);
    expect(await uploadedLines()).toHaveLength(9);
  });

  it("writes byte for byte the requests the online coder sends", async () => {
    const online = await makeStudy(sessions());
    try {
      const run = await runCli(["code", online.dir, "--codebook", "bales-ipa", "--coder", "llm", ...endpoint()]);
      expect(run.code).toBe(0);
      const sent = server.chatRequests().map((r) => r.rawBody);
      expect(sent).toHaveLength(9);
      expect((await submit(study.dir)).code).toBe(0);
      const lines = await uploadedLines();
      const bodies = lines.map((line) => {
        const { custom_id } = JSON.parse(line);
        const prefix = `{"custom_id":${JSON.stringify(custom_id)},"method":"POST","url":"/v1/chat/completions","body":`;
        expect(line.startsWith(prefix) && line.endsWith("}")).toBe(true);
        return line.slice(prefix.length, -1);
      });
      expect(bodies.sort()).toEqual([...sent].sort());
      // custom_id is the response-cache key: the online run cached these very requests.
      const cached = await readdir(join(online.dir, ".cache", "llm"), { recursive: true });
      for (const line of lines) expect(cached).toContain(join(JSON.parse(line).custom_id.slice(0, 2), `${JSON.parse(line).custom_id}.json`));
    } finally {
      await online.cleanup();
    }
  });

  it("submits split batches, and a fresh process collects them: every turn coded once, no key written", async () => {
    const run = await submit(study.dir, "--batch-size", "4");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("9 request(s) went to the batch");
    expect(server.chatCount).toBe(0);
    const recorded = await ledger(study.dir);
    expect(recorded.batches.map((b: { requests: string[] }) => b.requests.length)).toEqual([4, 4, 1]);
    expect(recorded.batches.every((b: { state: string; id: string }) => b.state === "submitted" && b.id.startsWith("batch_test_"))).toBe(true);
    expect(server.requests.find((r) => r.path === "/v1/files")?.headers.authorization).toBe(`Bearer ${SECRET}`);

    // Submitting again asks nothing twice: everything is already in an open batch.
    const again = await submit(study.dir);
    expect(again.stdout).toContain("0 request(s) went to the batch");
    expect(again.stdout).toContain("9 already in an open batch");

    const status = await freshProcess(["batch", "status", study.dir, "--base-url", server.url]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("in_progress");

    const collect = await freshProcess(["batch", "collect", study.dir, "--base-url", server.url]);
    expect(collect.stderr).not.toContain("Error");
    expect(collect.code).toBe(0);
    expect(collect.stdout).toContain("coded 9, failed 0");
    expect(server.chatCount).toBe(0); // nothing asked online
    expect(server.batchCount).toBe(9);
    const codes = await readCodes(study.dir, "bales-ipa", "llm");
    expect(codes).toHaveLength(9);
    for (const code of codes) expect(code.provenance).toMatchObject({ coder: "llm", model: "test-model" });
    expect((await ledger(study.dir)).batches.every((b: { state: string }) => b.state === "collected")).toBe(true);

    // Collecting again, or coding online now, asks nothing: the replies are codes and cached.
    expect((await freshProcess(["batch", "collect", study.dir, "--base-url", server.url])).stdout).toContain("nothing to collect");
    const online = await runCli(["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm", ...endpoint()]);
    expect(online.stdout).toContain("already coded 9");
    expect(server.chatCount + server.batchCount).toBe(9);
    // The replies are in one pack file per batch, not a file each, and the online coder's cache
    // lookup finds them: coding the same turns under another coder id asks nothing.
    const cacheFiles = await readdir(join(study.dir, ".cache", "llm"), { recursive: true });
    expect(cacheFiles.filter((f) => f.endsWith(".jsonl"))).toHaveLength(3);
    expect(cacheFiles.filter((f) => f.endsWith(".json"))).toHaveLength(0);
    const fresh = await freshProcess(["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm", "--coder-id", "llm:again", ...endpoint()]);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain("coded 9, failed 0, cached 9");
    expect(server.chatCount).toBe(0);

    expect(await allText(study.dir)).not.toContain(SECRET);
    // Four fresh processes (each a tsx start-up): seconds each on a loaded machine.
  }, 120_000);

  it("re-asks an invalid batch reply online and lists what an expired batch never answered", async () => {
    let invalid = 0;
    server.setHandler((req) => {
      if (targetsOf(req)[0]?.text.startsWith("Thanks") && invalid++ === 0) return { content: '{"code":"not-a-bales-code"}' };
      return balesHandler(req);
    });
    server.batch = { outcome: "expired", expireAfter: 7, inProgressPolls: 0 };
    expect((await submit(study.dir)).code).toBe(0);
    await runCli(["batch", "status", study.dir, "--base-url", server.url]);
    const collect = await runCli(["batch", "collect", study.dir, "--base-url", server.url]);
    expect(collect.code).not.toBe(0);
    expect(collect.stderr).toContain("2 turn(s) could not be coded");
    expect(collect.stderr).toContain("--via batch");
    // The invalid reply was re-asked online (once), never stored as a code.
    expect(server.chatRequests()).toHaveLength(1);
    expect(server.chatRequests()[0].body.messages.length).toBeGreaterThan(2);
    const codes = await readCodes(study.dir, "bales-ipa", "llm");
    expect(codes).toHaveLength(7);
    expect(codes.every((c) => c.codes?.[0] !== "not-a-bales-code")).toBe(true);
    const failures = await readFailures(study.dir, "bales-ipa", "llm");
    expect(failures).toHaveLength(2);
    expect(failures[0].reason).toContain("batch_expired");

    // The next submission asks only the two failed turns.
    server.batch = { outcome: "completed", inProgressPolls: 0 };
    const resubmit = await submit(study.dir);
    expect(resubmit.stdout).toContain("2 request(s) went to the batch");
    await runCli(["batch", "status", study.dir, "--base-url", server.url]);
    const second = await runCli(["batch", "collect", study.dir, "--base-url", server.url]);
    expect(second.code).toBe(0);
    expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(9);
    expect(server.batchCount).toBe(7 + 2);
  });

  it("a batch that fails validation lists every turn as failed; cancel stops an open one", async () => {
    server.batch = { outcome: "failed", inProgressPolls: 0 };
    await submit(study.dir);
    const collect = await runCli(["batch", "collect", study.dir, "--base-url", server.url]);
    expect(collect.stderr).toContain("9 turn(s) could not be coded");
    expect((await readFailures(study.dir, "bales-ipa", "llm"))[0].reason).toContain("does not support batching");

    server.batch = { outcome: "completed", inProgressPolls: 5 };
    await submit(study.dir);
    const cancel = await runCli(["batch", "cancel", study.dir, "--base-url", server.url]);
    expect(cancel.stdout).toContain("cancelling");
    const after = await runCli(["batch", "collect", study.dir, "--base-url", server.url]);
    expect(after.stderr).toContain("could not be coded");
    expect(server.batchCount).toBe(0);
  });

  it("a process killed between batch creation and recording it: the next command adopts that batch, creating none", async () => {
    const { writeFile } = await import("node:fs/promises");
    expect((await submit(study.dir)).code).toBe(0);
    // As if killed right after the upload: the entry has its file id but no batch yet.
    const recorded = await ledger(study.dir);
    const { id: _id, status: _status, ...uploaded } = recorded.batches[0];
    await writeFile(join(study.dir, ".colloquy", "batches.json"), JSON.stringify({ ...recorded, batches: [{ ...uploaded, state: "uploaded" }] }));
    const status = await runCli(["batch", "status", study.dir, "--base-url", server.url]);
    expect(status.code, status.stderr).toBe(0);
    const resumed = (await ledger(study.dir)).batches[0];
    expect(resumed).toMatchObject({ state: "submitted", inputFileId: uploaded.inputFileId, id: recorded.batches[0].id });
    expect(server.batches()).toHaveLength(1);
    const collect = await runCli(["batch", "collect", study.dir, "--base-url", server.url]);
    expect(collect.code, collect.stderr).toBe(0);
    expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(9);
  });

  it("--dry-run prices the batch at half the online price and sends nothing", async () => {
    const run = await runCli(["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm", "--via", "batch", "--dry-run", "--json"]);
    expect(run.code).toBe(0);
    const [plan] = JSON.parse(run.stdout).batches;
    expect(plan.counts.requests).toBe(9);
    expect(plan.batchCost).toBeCloseTo(plan.onlineCost / 2, 10);
    expect(server.requests).toHaveLength(0);
  });
});
