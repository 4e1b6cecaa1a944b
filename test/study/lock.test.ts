import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { acquireStudyLock, StudyLockedError, withStudyLock } from "../../src/study/lock.js";
import { artifacts } from "../../src/study/artifacts.js";
import { memoryReporter } from "../../src/util/reporter.js";
import { bootId } from "../../src/util/process.js";

let study: string;
let lockFile: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  study = await mkdtemp(join(tmpdir(), "colloquy-lock-"));
  lockFile = artifacts.lock.path(study);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await rm(study, { recursive: true, force: true });
});

/** A process that stays alive until killed: a live holder that is not us. */
function liveProcess(): number {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  children.push(child);
  return child.pid!;
}

/** The pid of a process that has exited (a holder that died without unlocking). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((ok) => child.on("exit", ok));
  return child.pid!;
}

async function writeLock(holder: { pid: number; host?: string; command?: string; startedAt?: string }): Promise<string> {
  const text = JSON.stringify({ host: hostname(), command: "colloquy code", startedAt: new Date().toISOString(), ...holder }) + "\n";
  await writeFile(lockFile, text);
  return text;
}

const readLock = async () => JSON.parse(await readFile(lockFile, "utf8"));

describe("acquireStudyLock", () => {
  it("writes {pid, host, boot, command, startedAt} and removes it on release", async () => {
    const release = await acquireStudyLock(study, "colloquy stats");
    const boot = bootId();
    expect(await readLock()).toEqual({
      pid: process.pid,
      host: hostname(),
      ...(boot ? { boot } : {}),
      command: "colloquy stats",
      startedAt: expect.any(String),
    });
    release();
    expect(existsSync(lockFile)).toBe(false);
    release(); // idempotent
  });

  it("a second writer waits, then fails naming the running command, its pid, host and start time", async () => {
    const pid = liveProcess();
    const startedAt = new Date(Date.now() - 42_000).toISOString();
    await writeLock({ pid, startedAt });
    const effects = memoryReporter();
    const began = Date.now();
    const error = await acquireStudyLock(study, "colloquy code", { waitMs: 400, effects }).catch((e: unknown) => e);
    expect(Date.now() - began).toBeGreaterThanOrEqual(390);
    expect(error).toBeInstanceOf(StudyLockedError);
    const message = (error as StudyLockedError).message;
    expect(message).toContain(`is being written by \`colloquy code\` (pid ${pid} on ${hostname()}, started ${startedAt}, `);
    // 42 s before the lock was tried, plus the 0.4 s wait (and a loaded machine's delay) before the message.
    expect(message).toMatch(/, 4[23] s ago\); waited 0\.[4-9] s for it to finish\./);
    expect(message).toContain("run this command again when that one has finished");
    expect(message).toContain(`If that process is certainly gone, delete ${lockFile} and run again.`);
    expect((error as StudyLockedError).holder).toMatchObject({ pid, command: "colloquy code" });
    expect(effects.lines).toEqual([expect.stringMatching(/is being written by `colloquy code` .*; waiting up to 0\.4 s for it to finish…$/)]);
    expect((await readLock()).pid).toBe(pid); // untouched
  });

  it("waits and succeeds when the first writer releases in time", async () => {
    await writeLock({ pid: liveProcess() });
    setTimeout(() => void rm(lockFile), 300);
    const release = await acquireStudyLock(study, "colloquy import", { waitMs: 5_000 });
    expect(await readLock()).toMatchObject({ pid: process.pid, command: "colloquy import" });
    release();
  });

  it("takes over the stale lock of a dead process and says which command left it", async () => {
    const pid = await deadPid();
    await writeLock({ pid, command: "colloquy import" });
    const effects = memoryReporter();
    const release = await acquireStudyLock(study, "colloquy code", { waitMs: 0, effects });
    expect(effects.warnings).toEqual([expect.stringContaining(`taking over the lock of ${study}: \`colloquy import\` (pid ${pid} on ${hostname()}`)]);
    expect(effects.warnings[0]).toContain("is no longer running");
    expect(await readLock()).toMatchObject({ pid: process.pid, command: "colloquy code" });
    release();
  });

  it("takes over an unreadable lock file older than a few seconds; waits on a fresh one", async () => {
    await writeFile(lockFile, "{ half");
    const fresh = await acquireStudyLock(study, "colloquy code", { waitMs: 200 }).catch((e: unknown) => e);
    expect(fresh).toBeInstanceOf(StudyLockedError);
    expect((fresh as Error).message).toMatch(
      /is locked by another command \(its lock file .*\.colloquy\.lock is not JSON and was written moments ago\); waited 0\.2 s/,
    );

    const old = new Date(Date.now() - 60_000);
    await utimes(lockFile, old, old);
    const effects = memoryReporter();
    const release = await acquireStudyLock(study, "colloquy code", { waitMs: 0, effects });
    expect(effects.warnings).toEqual([expect.stringMatching(/taking over the lock of .*: its lock file was unreadable \(not JSON\) for more than 3 s/)]);
    release();

    await writeFile(lockFile, "");
    await utimes(lockFile, old, old);
    const empty = memoryReporter();
    (await acquireStudyLock(study, "colloquy code", { waitMs: 0, effects: empty }))();
    expect(empty.warnings[0]).toContain("unreadable (empty)");
  });

  it("counts a lock held on another host as held, and says it cannot check", async () => {
    await writeLock({ pid: 1, host: "lab-server-7" });
    const error = await acquireStudyLock(study, "colloquy code", { waitMs: 0 }).catch((e: unknown) => e);
    expect((error as Error).message).toContain("(pid 1 on lab-server-7");
    expect((error as Error).message).toContain("It runs on another machine (lab-server-7), so colloquy cannot check from here whether it is still running.");
    expect((error as Error).message).not.toContain("waited");
  });

  it.runIf(bootId() !== undefined)("takes over a lock of this host's earlier boot, even when a process has its pid now", async () => {
    await writeLock({ pid: liveProcess(), boot: "an-earlier-boot" } as { pid: number });
    const effects = memoryReporter();
    const release = await acquireStudyLock(study, "colloquy code", { waitMs: 0, effects });
    expect(effects.warnings[0]).toContain("is no longer running");
    expect(await readLock()).toMatchObject({ pid: process.pid, host: hostname(), boot: bootId() });
    release();
  });

  it("COLLOQUY_LOCK_WAIT_MS sets the default wait", async () => {
    vi.stubEnv("COLLOQUY_LOCK_WAIT_MS", "150");
    await writeLock({ pid: liveProcess() });
    await expect(acquireStudyLock(study, "colloquy code")).rejects.toThrow(/waited 0\.15 s/);
    vi.stubEnv("COLLOQUY_LOCK_WAIT_MS", "soon");
    await expect(acquireStudyLock(study, "colloquy code")).rejects.toThrow(/COLLOQUY_LOCK_WAIT_MS must be a number of milliseconds/);
  });

  it("is reentrant within one process (also through another spelling of the path)", async () => {
    const alias = join(await mkdtemp(join(tmpdir(), "colloquy-lock-alias-")), "study");
    await symlink(study, alias);
    try {
      const outer = await acquireStudyLock(study, "colloquy study");
      const inner = await acquireStudyLock(alias + "/", "colloquy code", { waitMs: 0 });
      expect((await readLock()).command).toBe("colloquy study");
      inner();
      inner();
      expect(existsSync(lockFile)).toBe(true); // the outer holder still holds it
      expect(await withStudyLock(study, "colloquy stats", async () => "nested", { waitMs: 0 })).toBe("nested");
      outer();
      expect(existsSync(lockFile)).toBe(false);
    } finally {
      await rm(join(alias, ".."), { recursive: true, force: true });
    }
  });

  it("release removes only a lock that is still ours", async () => {
    const release = await acquireStudyLock(study, "colloquy code");
    const other = await writeLock({ pid: liveProcess(), command: "colloquy import" }); // e.g. someone deleted ours and took it
    release();
    expect(await readFile(lockFile, "utf8")).toBe(other);
  });

  it("withStudyLock releases when the function throws", async () => {
    await expect(withStudyLock(study, "colloquy stats", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(existsSync(lockFile)).toBe(false);
  });

  it("takes no lock on a missing study folder unless asked to create it", async () => {
    const missing = join(study, "not-yet");
    (await acquireStudyLock(missing, "colloquy stats"))();
    expect(existsSync(missing)).toBe(false);
    const release = await acquireStudyLock(missing, "colloquy import", { create: true });
    expect(existsSync(artifacts.lock.path(missing))).toBe(true);
    release();
  });
});

describe("a process that exits or is interrupted while holding the lock", () => {
  /** Run a script that takes the lock, prints "locked", then does `then`. */
  async function holder(then: string): Promise<{ child: ChildProcess; exit: Promise<{ code: number | null; signal: string | null }> }> {
    const script = join(study, "..", `${study.split("/").pop()}-holder.mts`);
    const lockModule = pathToFileURL(join(import.meta.dirname, "../../src/study/lock.ts")).href;
    await writeFile(
      script,
      `import { acquireStudyLock } from ${JSON.stringify(lockModule)};\nawait acquireStudyLock(${JSON.stringify(study)}, "colloquy code");\nconsole.log("locked");\n${then}\n`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    const exit = new Promise<{ code: number | null; signal: string | null }>((ok) => child.on("exit", (code, signal) => ok({ code, signal })));
    exit.finally(() => rm(script, { force: true }));
    await new Promise<void>((ok, fail) => {
      let out = "";
      child.stdout!.on("data", (d) => ((out += d), out.includes("locked") && ok()));
      exit.then(() => fail(new Error(`holder exited before locking: ${out}`)));
    });
    return { child, exit };
  }

  it("removes the lock on process.exit", async () => {
    const { exit } = await holder("process.exit(3);");
    expect((await exit).code).toBe(3);
    expect(existsSync(lockFile)).toBe(false);
  }, 30_000);

  it("removes the lock on Ctrl-C when no command handles it, and still dies of the signal", async () => {
    const { child, exit } = await holder("setInterval(() => {}, 1000);");
    expect(existsSync(lockFile)).toBe(true);
    child.kill("SIGINT");
    expect((await exit).signal).toBe("SIGINT");
    expect(existsSync(lockFile)).toBe(false);
  }, 30_000);

  it("leaves Ctrl-C to a command that handles it (it finishes and releases)", async () => {
    const { child, exit } = await holder(
      `import { existsSync } from "node:fs";\nconst timer = setInterval(() => {}, 1000);\n` +
        `process.once("SIGINT", () => { console.log(existsSync(${JSON.stringify(lockFile)}) ? "still locked" : "unlocked"); clearInterval(timer); });`,
    );
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    child.kill("SIGINT");
    const { code } = await exit;
    expect(code).toBe(0);
    expect(out).toContain("still locked"); // the command's own handler ran with the lock held
    expect(existsSync(lockFile)).toBe(false); // and the exit handler removed it
  }, 30_000);
});
