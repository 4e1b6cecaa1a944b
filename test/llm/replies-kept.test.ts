// A reply that was received is kept before anything else can fail, so a resume never asks for it
// again: when the response cache cannot be written (disk full), the reply goes into the room the
// cache set aside before the first request, the run stops asking, and the next run answers from
// it. Requests are counted at the local OpenAI-protocol server. The cache's entry writes are made
// to fail here; test/reliability/full-disk.test.ts fills a real (tmpfs) file system.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli, clearModelEnv } from "../support/cli.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { balesHandler, makeSession, makeStudy, TEXTS_A, TEXTS_B } from "../coding/llm-fixtures.js";
import { readCodes } from "../../src/coding/store.js";
import { ResponseCache } from "../../src/llm/cache.js";

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

const noSpace = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
const endpoint = () => ["--base-url", server.url, "--model", "test-model"];
const code = (...extra: string[]) => runCli(["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm", ...endpoint(), ...extra]);
/** The cache's loose entry writes fail from the `after`+1-th on. */
function failEntriesAfter(after: number) {
  let calls = 0;
  const original = (ResponseCache.prototype as unknown as { writeLoose: (key: string, body: string) => void }).writeLoose;
  return vi.spyOn(ResponseCache.prototype as unknown as { writeLoose: (key: string, body: string) => void }, "writeLoose").mockImplementation(function (
    this: ResponseCache,
    key,
    body,
  ) {
    if (++calls > after) throw noSpace();
    return original.call(this, key, body);
  });
}
/** Each chat request's TARGET turn, as "session/turn". */
const asked = () => server.chatRequests().map((r) => JSON.stringify(r.body.messages));

describe("online coding when the response cache cannot be written", () => {
  it("keeps the reply in the reserved journal, stops asking, and the resume asks for nothing twice", async () => {
    failEntriesAfter(3);
    const first = await code("--concurrency", "1");
    expect(first.code).toBe(1);
    expect(first.stderr).toContain("cannot be written (ENOSPC: no space left on device, write; replies received since are kept in ");
    expect(first.stderr).toContain("stopped asking the model");
    // Three replies became entries, the fourth went into the journal, nothing more was asked.
    expect(server.chatCount).toBe(4);
    const firstAsked = asked();
    const packs = await readdir(join(study.dir, ".cache", "llm", "packs"));
    expect(packs.filter((name) => name.includes("-journal-"))).toHaveLength(1);
    const journal = await readFile(
      join(
        study.dir,
        ".cache",
        "llm",
        "packs",
        packs.find((n) => n.includes("-journal-"))!,
      ),
      "utf8",
    );
    expect(journal.split("\n").filter((line) => line.startsWith('{"key":"'))).toHaveLength(1);

    vi.restoreAllMocks();
    // A new process: the cache is read from disk (journal included), not from this one's memory.
    vi.spyOn(ResponseCache, "for").mockImplementation((dir) => new ResponseCache(dir));
    const resumed = await code();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(9);
    const again = asked().slice(firstAsked.length);
    expect(again.filter((request) => firstAsked.includes(request))).toEqual([]);
    expect(server.chatCount).toBe(9);
  });

  it("refuses to ask when no room can be set aside (the disk is already full)", async () => {
    vi.spyOn(ResponseCache.prototype, "reserve").mockImplementation(() => {
      throw noSpace();
    });
    const run = await code();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("stopped asking the model");
    expect(server.chatCount).toBe(0);
    expect(await readCodes(study.dir, "bales-ipa", "llm")).toHaveLength(0);
  });
});
