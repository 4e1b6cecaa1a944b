import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import OpenAI from "openai";
import { runCli, clearModelEnv } from "../support/cli.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { balesHandler, makeSession, makeStudy, TEXTS_A, TEXTS_B } from "../coding/llm-fixtures.js";
import { readCodes } from "../../src/coding/store.js";
import { ResponseCache } from "../../src/llm/cache.js";
import { openStudy, silentEffects } from "../../src/stages/context.js";
import { collectBatches } from "../../src/stages/batch-collect.js";

/**
 * The batch path pays once: faults of the provider's Batches API (a create whose reply is lost,
 * a process killed mid-upload, a cache that cannot be written while collecting), each against
 * the local OpenAI-protocol server through the real SDK and CLI. After each, exactly one batch
 * exists per request file and no request is answered twice.
 */

let server: OpenAiServer;
let study: Awaited<ReturnType<typeof makeStudy>>;

beforeEach(async () => {
  clearModelEnv(vi.stubEnv);
  vi.stubEnv("OPENAI_API_KEY", "sk-test");
  server = await startOpenAiServer({ handler: balesHandler });
  study = await makeStudy([makeSession("a", TEXTS_A, { system: [5] }), makeSession("b", TEXTS_B)]);
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  await server.close();
  await study.cleanup();
});

const endpoint = () => ["--base-url", server.url, "--model", "test-model"];
const submit = (...extra: string[]) => runCli(["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm", ...endpoint(), "--via", "batch", ...extra]);
const collect = () => runCli(["batch", "collect", study.dir, "--base-url", server.url]);
const ledger = async () =>
  JSON.parse(await readFile(join(study.dir, ".colloquy", "batches.json"), "utf8")).batches as Array<{
    id?: string;
    inputFileId: string;
    state: string;
    requestHash?: string;
    outputFileId?: string;
    requests: string[];
    spent?: { requests: number; promptTokens: number; completionTokens: number; cost?: number };
  }>;
const uploads = () => [...server.files().values()].filter((f) => f.purpose === "batch");
const sha256 = async (f: { path: string; start?: number; bytes: number }) =>
  createHash("sha256")
    .update((await readFile(f.path)).subarray(f.start ?? 0, (f.start ?? 0) + f.bytes))
    .digest("hex");

/** Each request file uploaded has exactly one batch, and the ledger names that batch. */
async function expectOneBatchPerFile() {
  const entries = await ledger();
  expect(uploads()).toHaveLength(entries.length);
  for (const file of uploads()) {
    const made = server.batches().filter((b) => b.inputFileId === file.id);
    expect(made, `batches for ${file.id}`).toHaveLength(1);
    const entry = entries.find((e) => e.inputFileId === file.id)!;
    expect(entry.id).toBe(made[0].id);
    expect(entry.requestHash).toBe(await sha256(file));
    expect(made[0].metadata).toMatchObject({ colloquy_request_hash: entry.requestHash, colloquy_study: basename(study.dir) });
  }
}

describe("creating a batch whose reply is lost", () => {
  it.each([["502"], ["drop"]] as const)("create-then-%s: the created batch is adopted, one per file, and collected once", async (fault) => {
    // Three files; the second create's reply is lost after the batch was made.
    server.batch = { ...server.batch, createFaults: ["ok", fault] };
    const run = await submit("--batch-size", "4");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("9 request(s) went to the batch");
    expect(server.batch.createFaults).toEqual([]); // the fault happened
    await expectOneBatchPerFile();
    expect(server.batches()).toHaveLength(3);
    expect((await ledger()).every((e) => e.state === "submitted")).toBe(true);
    await runCli(["batch", "status", study.dir, "--base-url", server.url]);
    const done = await collect();
    expect(done.code, done.stderr).toBe(0);
    expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(9);
    expect(server.batchCount).toBe(9);
    expect(server.chatCount).toBe(0);
  });

  it("a create that never reached the provider is asked again, once", async () => {
    server.batch = { ...server.batch, createFaults: ["unreached"] };
    expect((await submit()).code).toBe(0);
    expect(server.batch.createFaults).toEqual([]);
    await expectOneBatchPerFile();
  });

  it("every create lost: the command fails clearly, and the next command adopts or creates once", async () => {
    // Never reached: nothing to adopt, so the next command creates the batch (once).
    server.batch = { ...server.batch, createFaults: ["unreached", "unreached", "unreached", "unreached"] };
    const failed = await submit();
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain("creating the batch");
    expect(await ledger()).toMatchObject([{ state: "uploaded" }]);
    expect(server.batches()).toHaveLength(0);
    const status = await runCli(["batch", "status", study.dir, "--base-url", server.url]);
    expect(status.code, status.stderr).toBe(0);
    await expectOneBatchPerFile();
    expect(await ledger()).toMatchObject([{ state: "submitted" }]);
  });
});

describe("cancelling a batch whose creation was not recorded", () => {
  it("finds the batch at the provider and cancels it", async () => {
    expect((await submit()).code).toBe(0);
    // As if killed after the create was sent, before its reply was recorded.
    const path = join(study.dir, ".colloquy", "batches.json");
    const recorded = JSON.parse(await readFile(path, "utf8"));
    const { id: _id, status: _status, ...uploaded } = recorded.batches[0];
    await writeFile(path, JSON.stringify({ ...recorded, batches: [{ ...uploaded, state: "uploaded" }] }));
    const cancel = await runCli(["batch", "cancel", study.dir, "--base-url", server.url]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(server.batches()).toMatchObject([{ id: recorded.batches[0].id, status: "cancelling" }]);
    expect((await ledger())[0].id).toBe(recorded.batches[0].id);
  });
});

describe("a submission killed during upload", () => {
  it("leaves nothing behind: its request file and its upload are removed by the next submission", async () => {
    // As a kill -9 mid-submit leaves it: a request file, uploaded under its name, that no batch records.
    const folder = join(study.dir, ".colloquy", "requests");
    await mkdir(folder, { recursive: true });
    const left = join(folder, "2026-01-01T00-00-00-000Z-bales-ipa-1.jsonl");
    await writeFile(left, `{"custom_id":"x","method":"POST","url":"/v1/chat/completions","body":{}}\n`);
    const openai = new OpenAI({ baseURL: server.url, apiKey: "sk-test" });
    const orphan = await openai.files.create({ file: createReadStream(left), purpose: "batch" });
    expect(server.files().get(orphan.id)?.filename).toBe(basename(left));

    const run = await submit();
    expect(run.code, run.stderr).toBe(0);
    expect(server.files().has(orphan.id)).toBe(false);
    expect(await readdir(folder)).toEqual([]);
    await expectOneBatchPerFile();
  });
});

describe("collecting when the response cache cannot be written", () => {
  it("fails clearly, keeps the batch open, and the resume asks for nothing again", async () => {
    expect((await submit()).code).toBe(0);
    await runCli(["batch", "status", study.dir, "--base-url", server.url]);
    const full = vi
      .spyOn(ResponseCache.prototype, "putMany")
      .mockRejectedValueOnce(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }));
    const failed = await collect();
    expect(full).toHaveBeenCalledTimes(1);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain("ENOSPC");
    expect(failed.stderr).toContain("nothing is lost");
    const [entry] = await ledger();
    expect(entry.state).toBe("submitted");
    expect(entry.outputFileId).toBeDefined();
    expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(0);

    const resumed = await collect();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(9);
    // Every request was answered once, by the one batch; nothing was asked online.
    expect(server.batchCount).toBe(9);
    expect(server.chatCount).toBe(0);
    expect(server.batches()).toHaveLength(1);
  });
});

describe("Ctrl-C during a download", () => {
  it("stops the download at once; the batch stays open and the next collect codes every turn", async () => {
    expect((await submit()).code).toBe(0);
    await runCli(["batch", "status", study.dir, "--base-url", server.url]);
    // The provider holds the file's content until the test ends: only the signal can end the download.
    let reached!: () => void;
    const downloading = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.batch = { ...server.batch, hold: { download: () => (reached(), held) } };
    const controller = new AbortController();
    try {
      const run = collectBatches(await openStudy(study.dir), { baseURL: server.url }, { signal: controller.signal }, silentEffects);
      await downloading;
      controller.abort();
      await expect(run).rejects.toMatchObject({ exitCode: 130, message: expect.stringContaining("interrupted while downloading") });
    } finally {
      release();
    }
    expect((await ledger())[0].state).toBe("submitted");
    server.batch = { ...server.batch, hold: {} };
    const resumed = await collect();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(9);
    expect(server.batchCount).toBe(9);
  });
});

describe("what a collected batch cost", () => {
  it("prints requests, tokens and cost from the replies' usage, and keeps them in the ledger", async () => {
    server.setHandler((request) => ({ ...(balesHandler(request) as { content: string }), usage: { prompt_tokens: 100, completion_tokens: 7 } }));
    expect((await submit()).code).toBe(0);
    await runCli(["batch", "status", study.dir, "--base-url", server.url]);
    const done = await collect();
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("spent: 9 request(s) answered, 900 prompt + 63 completion tokens, $0.0000 at the batch price");
    expect((await ledger())[0].spent).toEqual({ requests: 9, promptTokens: 900, completionTokens: 63, cost: 0 });
  });
});
