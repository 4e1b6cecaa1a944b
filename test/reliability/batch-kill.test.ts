// kill -9 of the real CLI on the batch path, at the moments the provider has something the
// client does not know yet: during the upload (the file is at the provider), after the create
// (the batch exists, its reply is lost) and during the collect. After running the command again:
// exactly one batch per request file, every request answered once (none asked again, in a batch
// or online), no request file left locally, no uploaded file that nothing points to.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { balesHandler, makeSession, makeStudy, TEXTS_A, TEXTS_B } from "../coding/llm-fixtures.js";
import { readCodes } from "../../src/coding/store.js";
import { bundleCli, startCli } from "./support.js";

let cli: Awaited<ReturnType<typeof bundleCli>>;
beforeAll(async () => {
  cli = await bundleCli();
});
afterAll(() => cli?.remove());

let server: OpenAiServer;
let study: Awaited<ReturnType<typeof makeStudy>>;
beforeEach(async () => {
  server = await startOpenAiServer({ handler: balesHandler });
  study = await makeStudy([makeSession("a", TEXTS_A, { system: [5] }), makeSession("b", TEXTS_B)]);
});
afterEach(async () => {
  await server.close();
  await study.cleanup();
});

/** 9 coding requests, in request files of at most 4. */
const REQUESTS = 9;
const submit = () => [
  "code",
  study.dir,
  "--codebook",
  "bales-ipa",
  "--coder",
  "llm",
  "--base-url",
  server.url,
  "--model",
  "test-model",
  "--via",
  "batch",
  "--batch-size",
  "4",
];
const batchCommand = (what: "status" | "collect") => ["batch", what, study.dir, "--base-url", server.url];

async function run(args: string[]) {
  const done = await startCli(cli.file, args).done;
  expect(done.code, `colloquy ${args.slice(0, 2).join(" ")}: ${done.stderr}`).toBe(0);
  return done;
}

/** Start `colloquy <args>`, kill -9 it while the server holds its `point` request, then let the server go on. */
async function killAt(point: "upload" | "create" | "download", args: string[]) {
  let reached!: () => void;
  const held = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.batch = {
    ...server.batch,
    hold: {
      [point]: () => {
        reached();
        return gate;
      },
    },
  };
  const child = startCli(cli.file, args);
  const ended = await Promise.race([held.then(() => false), child.done.then(() => true)]);
  expect(ended, `the command ended before the ${point}: ${(await Promise.race([child.done, Promise.resolve(undefined)]))?.stderr}`).toBe(false);
  child.process.kill("SIGKILL");
  expect((await child.done).signal).toBe("SIGKILL");
  server.batch = { ...server.batch, hold: undefined };
  release();
}

interface LedgerEntry {
  id?: string;
  inputFileId: string;
  state: string;
}
const ledger = async () => JSON.parse(await readFile(join(study.dir, ".colloquy", "batches.json"), "utf8")).batches as LedgerEntry[];

/** What must hold once everything is collected, whatever was killed on the way. */
async function expectPaidOnce() {
  const entries = await ledger();
  const uploads = [...server.files().values()].filter((f) => f.purpose === "batch");
  // Every uploaded file is a batch's, exactly one, and the ledger names it.
  expect(uploads.map((f) => f.id).sort()).toEqual(entries.map((e) => e.inputFileId).sort());
  for (const file of uploads) {
    const made = server.batches().filter((b) => b.inputFileId === file.id);
    expect(made, `batches for ${file.id}`).toHaveLength(1);
    expect(entries.find((e) => e.inputFileId === file.id)?.id).toBe(made[0].id);
  }
  expect(entries.every((e) => e.state === "collected")).toBe(true);
  // Each request answered once by the provider, none online.
  expect(server.batchCount).toBe(REQUESTS);
  expect(server.chatCount).toBe(0);
  expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(REQUESTS);
  expect(await readdir(join(study.dir, ".colloquy", "requests")).catch(() => [])).toEqual([]);
}

describe("kill -9 on the batch path, then the command again", () => {
  it.each([["a submission"], ["batch status"]])(
    "during an upload: %s then removes the request files and the upload; one submission each",
    async (next) => {
      await killAt("upload", submit());
      expect(await readdir(join(study.dir, ".colloquy", "requests"))).not.toEqual([]);
      expect([...server.files().values()].filter((f) => f.purpose === "batch")).toHaveLength(1);
      if (next === "batch status") {
        await run(batchCommand("status"));
        expect(await readdir(join(study.dir, ".colloquy", "requests"))).toEqual([]);
        expect([...server.files().values()].filter((f) => f.purpose === "batch")).toHaveLength(0);
      }
      await run(submit());
      await run(batchCommand("status"));
      await run(batchCommand("collect"));
      await expectPaidOnce();
    },
    60_000,
  );

  it("after a create: the next command adopts the batch the lost reply named", async () => {
    await killAt("create", submit());
    expect(server.batches()).toHaveLength(1);
    expect(await ledger()).toMatchObject([{ state: "uploaded" }]);
    await run(batchCommand("status"));
    expect(await readdir(join(study.dir, ".colloquy", "requests"))).toEqual([]);
    // The submission goes on from where it was killed: the rest of the requests, in their own files.
    await run(submit());
    await run(batchCommand("status"));
    await run(batchCommand("collect"));
    await expectPaidOnce();
  }, 60_000);

  it("during a collect: the next collect downloads the replies again, asks for nothing", async () => {
    await run(submit());
    await run(batchCommand("status"));
    await killAt("download", batchCommand("collect"));
    await run(batchCommand("collect"));
    await expectPaidOnce();
  }, 60_000);
});
