import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Whether a process with this id runs now on this machine. Signal 0 checks existence only; only
 * ESRCH means it is gone (EPERM: it runs, as another user), so a doubt keeps what it owns.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** The process that owns a file (a lock, a journal, a temp file): its id, and the machine and boot it ran in. */
export interface ProcessOwner {
  pid: number;
  host: string;
  /** The machine's boot id then; absent where the system does not give one (only Linux does, see `bootId`). */
  boot?: string;
}

/** This boot of this machine: Linux's random boot id, or undefined elsewhere (then an owner's boot is not compared). */
export function bootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

export const thisProcess = (): ProcessOwner => ({ pid: process.pid, host: hostname(), boot: bootId() });

/**
 * Whether the owner may still be running, so that what it owns must be left alone. A study folder
 * may be shared between machines (a network drive): a process of another host cannot be asked,
 * and is taken as running (nothing another machine may be writing is removed). On this host, one
 * of an earlier boot is gone (its pid may name another process now); else its pid is asked.
 */
export function ownerRunning(owner: ProcessOwner): boolean {
  const boot = bootId();
  return decide(owner.host === hostname(), owner.boot !== undefined && boot !== undefined ? owner.boot === boot : undefined, owner.pid);
}

/** The one rule of `ownerRunning` and `taggedOwnerRunning`; `sameBoot` undefined when either boot is unknown. */
function decide(sameHost: boolean, sameBoot: boolean | undefined, pid: number): boolean {
  if (!sameHost) return true;
  if (sameBoot === false) return false;
  return processRunning(pid);
}

/** Host and boot in a file name: 8 hex of their hash each (a name holds no host name). */
const short = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 8);

/**
 * This process as a part of a file name: `<pid>~<host>~<boot>` (the last two hashed, see
 * `short`); `OWNER_TAG` matches it, and also a bare pid (names written before hosts were).
 */
export function ownerTag(): string {
  // The same for the process's whole life; asked for every temp file written.
  return (tag ??= `${process.pid}~${short(hostname())}~${short(bootId() ?? "")}`);
}
let tag: string | undefined;

/** The source of a RegExp matching an owner tag (or a bare pid). */
export const OWNER_TAG = String.raw`\d+(?:~[0-9a-f]{8}~[0-9a-f]{8})?`;

/** Whether the owner a tag names may still be running (see `ownerRunning`); a bare pid is taken as this host's. */
export function taggedOwnerRunning(tag: string): boolean {
  const [pid, host, boot] = tag.split("~");
  const current = bootId();
  // A boot hash of "" (written where no boot id could be read) is no boot to compare.
  const bootKnown = boot !== undefined && boot !== short("") && current !== undefined;
  return decide(host === undefined || host === short(hostname()), bootKnown ? boot === short(current) : undefined, Number(pid));
}

/** Whether a tag names this very process. */
export const isThisProcess = (tag: string) => tag === ownerTag() || tag === String(process.pid);
