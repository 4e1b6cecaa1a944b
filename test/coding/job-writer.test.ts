// A coding job whose appends fail (disk full): it stops asking the model, and the error says
// what happened and what to do. The append itself is replaced here; test/reliability/heal.test.ts
// fills a real file system.
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { join } from "node:path";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { modelFor } from "../llm/helpers.js";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import { runCodingJob } from "../../src/coding/job.js";
import { createWriter } from "../../src/coding/job-writer.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { loadSessions } from "../../src/study/study.js";
import { balesHandler, makeSession, makeStudy, TEXTS_A, TEXTS_B } from "./llm-fixtures.js";

const failing = vi.hoisted(() => ({ after: Infinity, calls: 0 }));
vi.mock("../../src/util/fs.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/util/fs.js")>();
  return {
    ...actual,
    appendJsonl: async (path: string, records: readonly unknown[]) => {
      if (++failing.calls > failing.after) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      return actual.appendJsonl(path, records);
    },
  };
});

let server: OpenAiServer;
let study: Awaited<ReturnType<typeof makeStudy>>;
beforeEach(async () => {
  server = await startOpenAiServer({ handler: balesHandler, latencyMs: 20 });
  study = await makeStudy([makeSession("a", TEXTS_A), makeSession("b", TEXTS_B)]);
  failing.calls = 0;
});
afterEach(async () => {
  failing.after = Infinity;
  await server.close();
  await study.cleanup();
});

it("a failed append stops the job at once with a clear error; no unhandled rejection", async () => {
  failing.after = 1;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const job = runCodingJob({
      study: study.dir,
      sessions: await loadSessions(study.dir),
      codebook: await loadCodebook("bales-ipa"),
      coder: "llm",
      model: modelFor(server, { cacheDir: join(study.dir, ".cache", "llm"), concurrency: 1 }),
      flushEvery: 1,
      flushMs: 5,
    });
    await expect(job).rejects.toThrow(
      `could not store code records in ${join(study.dir, "codes")}: no space to write (ENOSPC: the disk is full or a file size limit was reached). The codes files were left as they were before this write;`,
    );
    // Replies that cannot be stored are not asked for: it stopped long before the 10 turns.
    expect(server.chatRequests().length).toBeLessThan(6);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

it("reports as stored only the watched turns (earlier failures), once their records are on disk", async () => {
  const writer = createWriter(study.dir, { every: 100, everyMs: 1000, watch: new Set(["a\u0000t0001"]) });
  const record = (turn: string): CodeRecord => ({
    session: "a",
    turn,
    codebook: "bales-ipa",
    codebookVersion: "1",
    coder: "llm",
    codes: ["agrees"],
    provenance: {},
    createdAt: "2026-12-07T00:00:00.000Z",
  });
  writer.code(record("t0001"));
  writer.code(record("t0002"));
  expect([...writer.stored]).toEqual([]);
  await writer.flush();
  expect([...writer.stored]).toEqual(["a\u0000t0001"]);
});
