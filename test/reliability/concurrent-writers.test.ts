// Two real `colloquy` processes writing to one study at once: the study lock lets one write at a
// time. Without it, two `code` runs paid for every request twice and stored two records per turn,
// and two imports picked session ids from their own snapshots and lost a session.
import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { balesHandler, makeSession, makeStudy, sessionOf, targetsOf, TEXTS_A, TEXTS_B } from "../coding/llm-fixtures.js";
import { artifacts } from "../../src/study/artifacts.js";
import { readCodeHistory } from "../../src/coding/store.js";
import { acquireStudyLock } from "../../src/study/lock.js";
import { loadSessions } from "../../src/study/study.js";

const bin = join(import.meta.dirname, "../support/colloquy-bin.ts");

interface Run {
  pid: number;
  /** Resolves once stderr contains `text`. */
  saw(text: string): Promise<void>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Start `colloquy <args>` as its own process (from source, like test/orchestrator's run test). */
function colloquy(args: string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, ["--import", "tsx", bin, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", OPENAI_MODEL: "", COLLOQUY_MODEL: "", CI: "true", ...env },
  });
  let stdout = "";
  let stderr = "";
  const waiters: Array<{ text: string; ok: () => void }> = [];
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => {
    stderr += d;
    for (const w of waiters.filter((w) => stderr.includes(w.text))) w.ok();
  });
  return {
    pid: child.pid!,
    saw: (text) => (stderr.includes(text) ? Promise.resolve() : new Promise((ok) => waiters.push({ text, ok }))),
    done: new Promise((ok) => child.on("close", (code) => ok({ code, stdout, stderr }))),
  };
}

let server: OpenAiServer | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("one writer per study", () => {
  it("two `colloquy code --coder llm` at once: one codes, the other stops naming it; each request is paid once, one record per turn", async () => {
    // Slow replies, one at a time: the first run holds the study for ~4.5 s, far longer than
    // the second waits (0.5 s) and than the two processes' start-up differs.
    server = await startOpenAiServer({ handler: balesHandler, latencyMs: 500 });
    const study = await makeStudy([makeSession("a", TEXTS_A, { system: [5] }), makeSession("b", TEXTS_B)]);
    cleanups.push(study.cleanup);
    const args = ["code", study.dir, "--codebook", "bales-ipa", "--coder", "llm", "--base-url", server.url, "--model", "test-model", "--concurrency", "1"];
    const env = { COLLOQUY_LOCK_WAIT_MS: "500" };
    const runs = [colloquy(args, env), colloquy(args, env)];
    const results = await Promise.all(runs.map((r) => r.done));

    const winners = results.filter((r) => r.code === 0);
    expect(winners, results.map((r) => r.stderr).join("\n---\n")).toHaveLength(1);
    const winner = runs[results.indexOf(winners[0])];
    const loser = results.find((r) => r.code !== 0)!;
    expect(loser.code).toBe(1);
    expect(winners[0].stdout).toMatch(/bales-ipa\/llm: coded 9, failed 0/);
    expect(loser.stderr).toContain(`colloquy: ${resolve(study.dir)} is being written by \`colloquy code\` (pid ${winner.pid} on ${hostname()}, started `);
    expect(loser.stderr).toContain(
      "waited 0.5 s for it to finish. One command writes to a study at a time: run this command again when that one has finished.",
    );
    expect(loser.stdout).toBe("");

    const asked = server.chatRequests().flatMap((r) => targetsOf(r).map((t) => `${sessionOf(r)}/${t.turn}`));
    expect(asked).toHaveLength(9);
    expect(new Set(asked).size).toBe(9); // every turn asked once: nothing paid twice
    const turns = (await readCodeHistory(study.dir, "bales-ipa", "llm")).map((r) => `${r.session}/${r.turn}`);
    expect(turns).toHaveLength(9);
    expect(new Set(turns).size).toBe(9); // one record per turn
    expect(existsSync(artifacts.lock.path(study.dir))).toBe(false);
  }, 90_000);

  it("two concurrent imports of different files: both succeed, one after the other; no session is lost", async () => {
    const root = await mkdtemp(join(tmpdir(), "colloquy-imports-"));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    // Same file name in two folders: both sessions want the id "chat"; only one may have it.
    const files = [join(root, "a", "chat.txt"), join(root, "b", "chat.txt")];
    await mkdir(join(root, "a"));
    await mkdir(join(root, "b"));
    await writeFile(files[0], "Alice: Shall we start with the budget?\nBob: Yes, the budget first.\n");
    await writeFile(files[1], "Carol: What about the timeline?\nDan: It looks tight to me.\nCarol: Then we move it.\nDan: Fine by me.\n");
    const study = join(root, "study");

    // Hold the study while both start, so both are certainly waiting at once, then let go:
    // they race for the lock and must take turns.
    const release = await acquireStudyLock(study, "test holder", { create: true });
    const env = { COLLOQUY_LOCK_WAIT_MS: "60000" };
    const runs = files.map((file) => colloquy(["import", file, "--study", study], env));
    await Promise.all(runs.map((r) => r.saw("is being written by `test holder`")));
    release();
    const results = await Promise.all(runs.map((r) => r.done));

    for (const r of results) expect(r.code, r.stderr).toBe(0);
    for (const r of results) expect(r.stderr).toContain("waiting up to 60 s for it to finish");
    const sessions = await loadSessions(study);
    expect(sessions.map((s) => s.turns.length).sort()).toEqual([2, 4]);
    expect(new Set(sessions.map((s) => s.id)).size).toBe(2);
    const map = JSON.parse(await readFile(artifacts.importMap.path(study), "utf8")).sessions as Record<string, string>;
    expect(
      Object.keys(map)
        .map((key) => key.split("#")[0])
        .sort(),
    ).toEqual(files);
    expect(new Set(Object.values(map))).toEqual(new Set(sessions.map((s) => s.id)));
    expect(existsSync(artifacts.lock.path(study))).toBe(false);
  }, 90_000);
});
