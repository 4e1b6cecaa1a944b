import { existsSync, linkSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { CliError, errorMessage } from "../util/errors.js";
import type { Reporter } from "../util/reporter.js";
import { ownerRunning, thisProcess } from "../util/process.js";
import { artifacts, studyLockSchema, type StudyLockFile } from "./artifacts.js";

/**
 * One writer per study: an advisory lock file, `<study>/.colloquy.lock`, holding
 * `{pid, host, boot, command, startedAt}` of the command writing to the study. Every command that
 * writes holds it for its whole run; readers (serve, export, sessions) never take it. Without it,
 * two `colloquy code` runs pay for every request twice and store two records per turn, and two
 * imports pick session ids from their own snapshots and lose sessions.
 *
 * - Created atomically: the content is written to a temp file that is then hard-linked to the
 *   lock's name (EEXIST = held), so nobody ever reads a half-written lock.
 * - Held by a live process: wait (poll every 100 ms) up to `waitMs` (default 10 s, or
 *   $COLLOQUY_LOCK_WAIT_MS), then a StudyLockedError naming the running command.
 * - Stale (same host, the pid is not running; or a file unreadable for more than 3 s): taken over,
 *   with a warning naming the command that left it.
 * - Another host: cannot be checked from here, so it counts as held (the message says so).
 * - Reentrant per process: the lock belongs to the process, not to one async task, so
 *   `colloquy study` and anything it calls can take it again (counted; the last release unlocks).
 * - Released in `finally`; an 'exit' handler and a SIGINT/SIGTERM handler (used only when no
 *   other listener handles the signal) remove it too. Only a lock that is still ours is removed.
 */

const DEFAULT_WAIT_MS = 10_000;
const POLL_MS = 100;
/** An unreadable lock younger than this may be mid-write on a filesystem without hard links. */
const UNREADABLE_GRACE_MS = 3_000;
/** The take-over guard is held for a few system calls; one older than this was left by a crash. */
const GUARD_STALE_MS = 5_000;
/** Errors of link() on filesystems without hard links (some network and FAT mounts). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);
const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

export type StudyLockHolder = StudyLockFile;

export interface StudyLockOptions {
  /** How long to wait for another writer to finish, ms (default $COLLOQUY_LOCK_WAIT_MS, else 10 000; 0 = do not wait). */
  waitMs?: number;
  /** Interval between checks while waiting, ms (default 100). */
  pollMs?: number;
  /** Create the study folder when missing (import, run). Otherwise a missing folder takes no lock: the command reports it. */
  create?: boolean;
  /** Where "waiting for …" and "taking over a stale lock" are said (default: nowhere). */
  effects?: Pick<Reporter, "log" | "warn">;
}

/** Gives the lock back (idempotent). Synchronous, so it also works in an 'exit' handler. */
export type ReleaseStudyLock = () => void;

/** The study is being written by another command (thrown after the wait ran out). */
export class StudyLockedError extends CliError {
  readonly study: string;
  /** Who holds it; null when the lock file could not be read. */
  readonly holder: StudyLockHolder | null;
  /** The first sentence of the message: "<study> is being written by `colloquy code` (pid …)". */
  readonly busy: string;
  constructor(study: string, holder: StudyLockHolder | null, busy: string, advice: string) {
    super(`${busy}${advice}`);
    this.name = "StudyLockedError";
    this.study = study;
    this.holder = holder;
    this.busy = busy;
  }
}

interface Held {
  file: string;
  holder: StudyLockHolder;
  count: number;
}

/** The locks this process holds (by the study's real path), and how to remove the exit handlers. */
const state: { held: Map<string, Held>; uninstall?: () => void } = { held: new Map() };

/**
 * Take the study's writer lock for `command` (e.g. "colloquy code"), waiting for another writer
 * up to `waitMs`. Returns the function that releases it. Throws StudyLockedError when the wait
 * runs out, naming the running command, its pid, host and start time.
 */
export async function acquireStudyLock(dir: string, command: string, options: StudyLockOptions = {}): Promise<ReleaseStudyLock> {
  const root = resolve(dir);
  if (options.create) mkdirSync(root, { recursive: true });
  else if (!existsSync(root)) return () => {};
  const key = realpathSync(root);
  const file = artifacts.lock.path(key);
  const waitMs = options.waitMs ?? waitFromEnv() ?? DEFAULT_WAIT_MS;
  const deadline = Date.now() + waitMs;
  const effects = options.effects;
  const holder: StudyLockHolder = { ...thisProcess(), command, startedAt: new Date().toISOString() };
  const text = JSON.stringify(holder) + "\n";
  let announced = false;
  for (;;) {
    // Checked on every round: another task of this process may have taken it while we slept.
    const mine = state.held.get(key);
    if (mine) {
      mine.count++;
      return releaser(key);
    }
    if (createLockFile(root, file, text)) break;
    const found = inspect(file);
    if (found.kind === "gone") continue;
    if (found.kind === "stale") {
      if (takeOver(file, found.text)) effects?.warn(`taking over the lock of ${root}: ${found.reason}`);
      else await sleep(options.pollMs ?? POLL_MS); // another process is taking it over
      continue;
    }
    if (Date.now() >= deadline) throw lockedError(root, file, found, waitMs);
    if (!announced && waitMs > 0) {
      announced = true;
      effects?.log(
        `${root} is being written by ${found.kind === "held" ? describe(found.holder) : "another command"}; waiting up to ${seconds(waitMs)} for it to finish…`,
      );
    }
    await sleep(Math.min(options.pollMs ?? POLL_MS, Math.max(1, deadline - Date.now())));
  }
  state.held.set(key, { file, holder, count: 1 });
  installHandlers();
  return releaser(key);
}

/** Whether this process holds the writer lock of the study at `dir` (a reader does not). */
export function holdsStudyLock(dir: string): boolean {
  try {
    return state.held.has(realpathSync(resolve(dir)));
  } catch {
    return false; // no such folder: nobody holds its lock
  }
}

/** Run `fn` holding the study's writer lock (see {@link acquireStudyLock}); released however `fn` ends. */
export async function withStudyLock<T>(dir: string, command: string, fn: () => Promise<T> | T, options: StudyLockOptions = {}): Promise<T> {
  const release = await acquireStudyLock(dir, command, options);
  try {
    return await fn();
  } finally {
    release();
  }
}

function waitFromEnv(): number | undefined {
  const value = process.env.COLLOQUY_LOCK_WAIT_MS;
  if (value === undefined || value.trim() === "") return undefined;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms < 0) throw new CliError(`COLLOQUY_LOCK_WAIT_MS must be a number of milliseconds (0 or more), got "${value}"`);
  return ms;
}

/** Write the lock's content to a temp file, then hard-link it into place: true when we now hold it. */
function createLockFile(root: string, file: string, text: string): boolean {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    writeFileSync(temp, text);
  } catch (error) {
    throw new CliError(`cannot lock ${root} for writing (${errorMessage(error)}); is the study folder writable?`, { cause: error });
  }
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code && NO_HARD_LINKS.has(code)) return createExclusive(file, text);
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Without hard links: create-if-absent. A reader may then see the file empty for a moment (hence UNREADABLE_GRACE_MS). */
function createExclusive(file: string, text: string): boolean {
  try {
    writeFileSync(file, text, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

type Found =
  | { kind: "gone" }
  | { kind: "stale"; text: string; reason: string }
  | { kind: "held"; holder: StudyLockHolder; elsewhere: boolean }
  | { kind: "unreadable"; problem: string };

/** Who holds the lock file now, and whether that holder can still be running. */
function inspect(file: string): Found {
  let text: string;
  let modified: number;
  try {
    text = readFileSync(file, "utf8");
    modified = statSync(file).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "gone" };
    throw error;
  }
  const holder = parseHolder(text);
  if (typeof holder === "string") {
    return Date.now() - modified > UNREADABLE_GRACE_MS
      ? { kind: "stale", text, reason: `its lock file was unreadable (${holder}) for more than ${seconds(UNREADABLE_GRACE_MS)}` }
      : { kind: "unreadable", problem: holder };
  }
  if (holder.host !== hostname()) return { kind: "held", holder, elsewhere: true };
  if (holder.pid === process.pid) return { kind: "stale", text, reason: `${describe(holder)} left it behind in this same process` };
  if (!ownerRunning(holder)) {
    return {
      kind: "stale",
      text,
      reason: `${describe(holder)} is no longer running (it was killed or crashed; if it was writing, run it again to finish its work)`,
    };
  }
  return { kind: "held", holder, elsewhere: false };
}

/** The holder, or what is wrong with the file. */
function parseHolder(text: string): StudyLockHolder | string {
  if (text.trim() === "") return "empty";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not JSON";
  }
  const parsed = studyLockSchema.safeParse(value);
  return parsed.success ? parsed.data : "not a lock: expected pid, host, command, startedAt";
}

/**
 * Remove a stale lock whose content is still exactly `seen`. A short guard file makes
 * "check it is the stale one, then unlink" one step among processes, so two processes taking over
 * the same stale lock never delete the fresh lock one of them just created.
 */
function takeOver(file: string, seen: string): boolean {
  const guard = `${file}.takeover`;
  try {
    writeFileSync(guard, `${process.pid}\n`, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    try {
      if (Date.now() - statSync(guard).mtimeMs > GUARD_STALE_MS) rmSync(guard, { force: true });
    } catch {
      // Gone already: the other process finished its take-over.
    }
    return false;
  }
  try {
    if (readFileSync(file, "utf8") !== seen) return false;
    unlinkSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  } finally {
    rmSync(guard, { force: true });
  }
}

function releaser(key: string): ReleaseStudyLock {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const held = state.held.get(key);
    if (!held || --held.count > 0) return;
    state.held.delete(key);
    removeIfOurs(held);
    if (state.held.size === 0) {
      state.uninstall?.();
      state.uninstall = undefined;
    }
  };
}

/** Unlink the lock file only if it still names us (pid and start time): never someone else's. */
function removeIfOurs(held: Held): void {
  try {
    const current = parseHolder(readFileSync(held.file, "utf8"));
    if (typeof current !== "string" && current.pid === held.holder.pid && current.startedAt === held.holder.startedAt && current.host === held.holder.host) {
      unlinkSync(held.file);
    }
  } catch {
    // Already gone (or the folder was removed): nothing of ours is left to remove.
  }
}

function releaseAll(): void {
  for (const held of state.held.values()) removeIfOurs(held);
  state.held.clear();
  state.uninstall?.();
  state.uninstall = undefined;
}

/**
 * While a lock is held: remove it on exit, and on SIGINT/SIGTERM when nobody else listens for
 * the signal (then re-raise it, so the process ends as the signal would have ended it). When a
 * command listens itself (`colloquy code` finishes its batch on Ctrl-C), it ends normally and
 * releases in its `finally`. Prepended, so it runs before (and sees) the other listeners.
 */
function installHandlers(): void {
  if (state.uninstall) return;
  const onExit = () => releaseAll();
  const onSignal = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) > 1) return;
    releaseAll();
    process.kill(process.pid, signal);
  };
  process.on("exit", onExit);
  for (const signal of SIGNALS) process.prependListener(signal, onSignal);
  state.uninstall = () => {
    process.off("exit", onExit);
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}

function lockedError(root: string, file: string, found: Extract<Found, { kind: "held" | "unreadable" }>, waitMs: number): StudyLockedError {
  const waited = waitMs > 0 ? `; waited ${seconds(waitMs)} for it to finish` : "";
  if (found.kind === "unreadable") {
    return new StudyLockedError(
      root,
      null,
      `${root} is locked by another command (its lock file ${file} is ${found.problem} and was written moments ago)`,
      `${waited}. Run this command again in a moment; if the file stays, delete it.`,
    );
  }
  const elsewhere = found.elsewhere
    ? ` It runs on another machine (${found.holder.host}), so colloquy cannot check from here whether it is still running.`
    : "";
  return new StudyLockedError(
    root,
    found.holder,
    `${root} is being written by ${describe(found.holder)}`,
    `${waited}. One command writes to a study at a time: run this command again when that one has finished.${elsewhere} ` +
      `If that process is certainly gone, delete ${file} and run again.`,
  );
}

/** "`colloquy code` (pid 4242 on lab-3, started 2026-03-01T10:00:00.000Z, 12 s ago)". */
function describe(holder: StudyLockHolder): string {
  const started = Date.parse(holder.startedAt);
  const ago = Number.isFinite(started) ? `, ${age(Date.now() - started)} ago` : "";
  return `\`${holder.command}\` (pid ${holder.pid} on ${holder.host}, started ${holder.startedAt}${ago})`;
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((ok) => setTimeout(ok, ms));
}
