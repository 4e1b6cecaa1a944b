// Offline coding one session at a time stops reading the study as soon as a write of its records
// fails (a full disk): the job fails anyway, so reading the remaining sessions would be wasted.
import { expect, it, vi } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import { runCodingJob } from "../../src/coding/job.js";
import { loadSessions } from "../../src/study/study.js";
import type { Session } from "../../src/transcript/schema.js";
import { makeSession, makeStudy } from "./llm-fixtures.js";

vi.mock("../../src/coding/store.js", async (original) => {
  const store = await original<typeof import("../../src/coding/store.js")>();
  return { ...store, appendCodes: async () => Promise.reject(Object.assign(new Error("no space left on device"), { code: "ENOSPC" })) };
});

it("after a failed write of its records, offline coding reads no further session and fails", async () => {
  const texts = Array.from({ length: 60 }, (_, i) => (i % 2 ? "Yes, agreed." : `Shall we try plan ${i}?`));
  const study = await makeStudy(Array.from({ length: 6 }, (_, i) => makeSession(`s${i}`, texts)));
  try {
    const loaded: string[] = [];
    // A session's 60 records start a write in the background (every 50 records); it fails while the next session is read.
    const load = async (session: Session) => {
      loaded.push(session.id);
      await sleep(20);
      return session;
    };
    const sessions = await loadSessions(study.dir);
    await expect(runCodingJob({ study: study.dir, sessions, load, codebook: await loadCodebook("bales-ipa"), coder: "rules" })).rejects.toThrow(
      /could not store/,
    );
    expect(loaded.length).toBeLessThan(6);
  } finally {
    await study.cleanup();
  }
});
