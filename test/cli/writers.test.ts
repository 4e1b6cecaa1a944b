// Which commands take the study's writer lock: every command that writes to a study does, and
// stops at once (naming the running command) while another process holds it; readers do not.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import { makeSession, makeStudy, TEXTS_A, TEXTS_B } from "../coding/llm-fixtures.js";
import { artifacts } from "../../src/study/artifacts.js";

let study: Awaited<ReturnType<typeof makeStudy>>;
let holder: ChildProcess;
let lock: string;

beforeAll(async () => {
  study = await makeStudy([makeSession("a", TEXTS_A), makeSession("b", TEXTS_B)]);
  await writeFile(join(study.dir, "..", `${study.dir.split("/").pop()}.txt`), "Alice: Hello?\nBob: Hi.\nAlice: Bye.\nBob: Bye.\n");
  // Another live process "is coding" this study.
  holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  lock = JSON.stringify({ pid: holder.pid, host: hostname(), command: "colloquy code", startedAt: new Date().toISOString() }) + "\n";
  await writeFile(artifacts.lock.path(study.dir), lock);
  vi.stubEnv("COLLOQUY_LOCK_WAIT_MS", "0");
});
afterAll(async () => {
  vi.unstubAllEnvs();
  holder.kill("SIGKILL");
  await study.cleanup();
});

const writers: Array<[string, () => string[]]> = [
  ["import", () => ["import", `${study.dir}.txt`, "--study", study.dir]],
  ["code", () => ["code", study.dir]],
  ["codes import", () => ["codes", "import", `${study.dir}.txt`, "--study", study.dir, "--codebook", "bales-ipa", "--coder", "human:alice"]],
  ["repair", () => ["repair", study.dir]],
  ["agree", () => ["agree", study.dir, "--codebook", "bales-ipa", "--coders", "rules,llm"]],
  ["compare", () => ["compare", study.dir]],
  ["stats", () => ["stats", study.dir]],
  ["topics", () => ["topics", study.dir]],
  ["topics export", () => ["topics", "export", study.dir]],
  ["topics import", () => ["topics", "import", study.dir, `${study.dir}.txt`]],
  ["concepts", () => ["concepts", study.dir]],
  ["build", () => ["build", study.dir]],
  ["study", () => ["study", study.dir]],
  ["run", () => ["run", "scenario.yaml", "--study", study.dir]],
  ["demo", () => ["demo", "--dir", study.dir]],
  // Serving reads; it only rebuilds a stale site under the lock, and never waits for it.
  ["serve (site to build)", () => ["serve", study.dir, "--port", "0"]],
];

describe("commands that write take the study lock", () => {
  it.each(writers)("%s stops while another command writes", async (_name, args) => {
    const run = await runCli(args());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`is being written by \`colloquy code\` (pid ${holder.pid} on ${hostname()}, started `);
    expect(run.stdout).toBe("");
    expect(await readFile(artifacts.lock.path(study.dir), "utf8")).toBe(lock);
  });

  it.each([
    ["sessions", () => ["sessions", study.dir]],
    ["export", () => ["export", study.dir]],
    ["code --dry-run", () => ["code", study.dir, "--dry-run"]],
    ["repair --dry-run", () => ["repair", study.dir, "--dry-run"]],
  ])("%s reads without the lock", async (_name, args) => {
    const run = await runCli(args());
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });
});
