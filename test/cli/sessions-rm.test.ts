import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { appendCodes, readCodeHistory } from "../../src/coding/store.js";
import { artifacts, loadArtifact } from "../../src/study/artifacts.js";
import { listSessionIds, loadSessions } from "../../src/study/study.js";
import { turnFingerprint } from "../../src/transcript/fingerprint.js";
import { runCli } from "../support/cli.js";

const fixtures = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));

/** An imported study with a human code on every turn of every session. */
async function codedStudy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-sessions-rm-"));
  expect((await runCli(["import", join(fixtures, "slack-paste/dataset"), "--study", dir, "--path-pattern", "{condition}/{run}/*"])).code).toBe(0);
  const records = (await loadSessions(dir)).flatMap((s) =>
    s.turns.map((t) => ({
      session: s.id,
      turn: t.id,
      fingerprint: turnFingerprint(t),
      codebook: "cb",
      codebookVersion: "1",
      coder: "human:alice",
      codes: ["x"],
      provenance: {},
      createdAt: "2026-01-01T00:00:00.000Z",
    })),
  );
  await appendCodes(dir, records);
  return dir;
}

describe("colloquy sessions rm", () => {
  it("removes a session, its codes and its import-map entry, and keeps the files as they were in backups/", async () => {
    const dir = await codedStudy();
    const codesBefore = await readFile(artifacts.codes.path(dir, "cb", "human:alice"), "utf8");
    const sessionBefore = await readFile(join(dir, "sessions", "flat-1-run-1.json"), "utf8");
    const run = await runCli(["sessions", "rm", dir, "flat-1-run-1"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Removed 1 session\(s\) \(flat-1-run-1\) and 5 code record\(s\)\. The files as they were are in .*backups\/removed-/);
    expect(await listSessionIds(dir)).not.toContain("flat-1-run-1");
    const codes = await readCodeHistory(dir, "cb", "human:alice");
    expect(codes.length).toBe(13);
    expect(codes.some((c) => c.session === "flat-1-run-1")).toBe(false);
    const map = await loadArtifact(artifacts.importMap, dir);
    expect(Object.values(map.status === "ok" ? map.value.sessions : {})).not.toContain("flat-1-run-1");
    // The backup holds the files exactly as they were.
    const [backup] = await readdir(join(dir, "backups"));
    expect(await readFile(join(dir, "backups", backup, "sessions", "flat-1-run-1.json"), "utf8")).toBe(sessionBefore);
    expect(await readFile(join(dir, "backups", backup, "codes", "cb", "human%3Aalice.jsonl"), "utf8")).toBe(codesBefore);
    // The session no longer counts anywhere.
    expect((await runCli(["sessions", dir])).stdout).toMatch(/3 session\(s\), 13 turns/);
  });

  it("refuses an unknown id and changes nothing", async () => {
    const dir = await codedStudy();
    const run = await runCli(["sessions", "rm", dir, "flat-1-run-1", "nope"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/"nope": no such session/);
    expect(await listSessionIds(dir)).toContain("flat-1-run-1");
    expect(await readdir(dir)).not.toContain("backups");
  });
});
