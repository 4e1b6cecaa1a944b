import { resolve, sep } from "node:path";
import type { Stats } from "node:fs";
import { settled, settledStamp, stamp, type FileStamp } from "./file-stamp.js";

/**
 * What this process knows of files' bytes without reading them again: the hash (util/hash.ts
 * FileHash: a sha256 up to 1 MiB; `sha256` names it below) of a file's
 * first bytes at a stamp, and the stamps its own writes left. The fingerprints (pipeline/
 * fingerprint.ts) and the codes digests (study/code-digests.ts) share it, so a pipeline run that
 * appends one session's codes hashes each codes file once, not once per reader: at 100,000 turns,
 * 70 MB were hashed four times by a run that added one session.
 *
 * Own writes. A stamp read within a clock tick of the file's last write may be left as it is by
 * another write in the same tick (file-stamp.ts, `settled`), so a hash read then is normally not
 * trusted. A write this process makes into a study whose writer lock it holds (study/lock.ts says
 * which) can only be followed in its tick by another write of this process, which
 * is recorded here too (and forgets what was known of the file), or by another program writing
 * into the study while a colloquy command writes to it, which the lock's contract excludes (the
 * README says so). So while the lock is held, a file whose stamp is the one this process's latest
 * write left is trusted at once. Nothing of that outlives the lock: when it is released, the
 * study's own writes are forgotten with every hash not yet settled, and what is saved for later runs
 * (the pipeline state) holds only stamps settled when it is written, still under the lock.
 *
 * Appends. An append (util/fs.ts appendJsonl) that started from a file at stamp A and left it at
 * stamp B, having changed no byte before A's size, keeps what was known of the first bytes at A
 * for B: that is what lets the digests of a codes file check its kept bytes after the code stage
 * appended to it, without hashing them again.
 *
 * Every write this process makes to a study file goes through util/fs.ts, which notes it here
 * (noteOwnWrite): an atomic write also notes the hash of the bytes it wrote, which the fingerprints
 * take for the stamp it left instead of reading the file back. A write that skipped noteOwnWrite
 * could leave a stamp whose known hash is of other bytes.
 */

const stampKey = (stamp: FileStamp) => stamp.join(" ");

interface Known {
  /** The stamp this process's latest write left, and, back from it, each append's stamp before (a rewrite ends the chain). */
  latest?: FileStamp;
  appendedFrom: Map<string, FileStamp>;
  /** How many own writes the process had made when this file's latest was. */
  written: number;
  /** Per stamp: the hash (FileHash) of the file's first `size` bytes. */
  hashes: Map<string, { stamp: FileStamp; sums: { size: number; sha256: string }[] }>;
}

/**
 * Per process, on globalThis so that two copies of this module (src and dist, as study/lock.ts's
 * state is) share it: a write made through one copy is known to the other.
 */
interface State {
  files: Map<string, Known>;
  /** The studies whose writer lock this process holds (their folders, resolved): own writes in them are trusted. */
  roots: readonly string[];
  writes: number;
}
const STATE_KEY = Symbol.for("colloquy.knownBytes");
const state: State = ((globalThis as Record<symbol, unknown>)[STATE_KEY] ??= { files: new Map(), roots: [], writes: 0 }) as State;

function known(path: string): Known {
  const key = resolve(path);
  let entry = state.files.get(key);
  if (!entry) state.files.set(key, (entry = { appendedFrom: new Map(), written: 0, hashes: new Map() }));
  return entry;
}

const inside = (path: string, roots: readonly string[]) => roots.some((root) => path.startsWith(root + sep));

/**
 * Own writes are trusted inside the studies whose writer lock this process holds (study/lock.ts
 * calls this with their folders whenever it takes or releases one). A study left forgets its own
 * writes, and every hash of its files whose stamp has not settled yet.
 */
export function trustOwnWritesIn(roots: readonly string[]): void {
  const now = roots.map((root) => resolve(root));
  for (const [path, entry] of state.files) {
    if (!inside(path, state.roots) || inside(path, now)) continue;
    entry.latest = undefined;
    entry.appendedFrom.clear();
    for (const [k, h] of entry.hashes) if (!settledStamp(h.stamp)) entry.hashes.delete(k);
  }
  state.roots = now;
}

/**
 * This process wrote `path`, leaving it at `after`. `appendedFrom`: it only appended, every byte of
 * the file as it was at that stamp left as it was. Anything else (a rewrite, a file replaced)
 * forgets what was known of the file: a stamp can come back (an inode is reused, two writes of the
 * same size fall in one clock tick), and must then not bring back the hash of other bytes.
 */
export function noteOwnWrite(path: string, after: FileStamp, appendedFrom?: FileStamp): void {
  const entry = known(path);
  entry.written = ++state.writes;
  const append = appendedFrom !== undefined && after[0] > appendedFrom[0] && after[3] === appendedFrom[3];
  if (!append) {
    entry.appendedFrom.clear();
    entry.hashes.clear();
  } else entry.hashes.delete(stampKey(after));
  if (!inside(resolve(path), state.roots)) {
    entry.latest = undefined;
    entry.appendedFrom.clear();
    return;
  }
  if (append) entry.appendedFrom.set(stampKey(after), appendedFrom);
  entry.latest = after;
}

/** Whether this process's writes to `path` are trusted now (it holds the lock of a study that holds it). */
export function trustsOwnWrites(path: string): boolean {
  return inside(resolve(path), state.roots);
}

/** `path` relative to the study whose lock this process holds and that holds it, or undefined. */
export function inTrustedStudy(path: string): string | undefined {
  const full = resolve(path);
  const root = state.roots.find((r) => full.startsWith(r + sep));
  return root === undefined ? undefined : full.slice(root.length + 1);
}

/** Whether `stamp` is the one this process's latest write left `path` at, while own writes are trusted. */
export function isOwnWrite(path: string, stamp: FileStamp): boolean {
  const key = resolve(path);
  const latest = state.files.get(key)?.latest;
  return latest !== undefined && inside(key, state.roots) && stampKey(latest) === stampKey(stamp);
}

/**
 * Whether a hash of `path` read with this stat may be trusted under its stamp: the file has
 * settled (file-stamp.ts), or its stamp is the one this process's own write left it at.
 */
export function trustworthy(path: string, info: Stats): boolean {
  return settled(info) || isOwnWrite(path, stamp(info));
}

/** How many own writes this process has made so far: a point to ask {@link writtenSince} about. */
export function ownWrites(): number {
  return state.writes;
}

/** Whether this process wrote `path` after it had made `count` own writes. */
export function writtenSince(path: string, count: number): boolean {
  return (state.files.get(resolve(path))?.written ?? 0) > count;
}

/** The first `size` bytes of `path`, at `stamp`, hash to `sha256` (only for a hash that may be trusted: settled, or an own write). */
export function noteHash(path: string, stamp: FileStamp, size: number, sha256: string): void {
  const entry = known(path);
  const key = stampKey(stamp);
  let at = entry.hashes.get(key);
  if (!at) entry.hashes.set(key, (at = { stamp, sums: [] }));
  at.sums = [...at.sums.filter((h) => h.size !== size), { size, sha256 }];
}

/**
 * The hashes (FileHash) this process knows of first bytes of `path` at `stamp`: hashed at that
 * stamp, or at a stamp this process's appends started from on the way to it (each step goes back
 * one append, to a smaller file: noteOwnWrite keeps only appends that grew it, so the walk ends).
 */
function* knownSums(path: string, stamp: FileStamp): Generator<{ size: number; sha256: string }> {
  const entry = state.files.get(resolve(path));
  for (let at: FileStamp | undefined = stamp; entry && at; at = entry.appendedFrom.get(stampKey(at))) yield* entry.hashes.get(stampKey(at))?.sums ?? [];
}

/** The hash (FileHash) of the first `size` bytes of `path` at `stamp`, when this process knows it (knownSums). */
export function knownHash(path: string, stamp: FileStamp, size: number): string | undefined {
  for (const sum of knownSums(path, stamp)) if (sum.size === size) return sum.sha256;
  return undefined;
}

/**
 * The longest first bytes of `path` at `stamp` whose hash this process knows (knownSums) and
 * `usable` takes: what a hash of the whole file can go on from (util/hash.ts FileHash.resume).
 */
export function knownPrefix(
  path: string,
  stamp: FileStamp,
  usable: (sum: { size: number; sha256: string }) => boolean,
): { size: number; sha256: string } | undefined {
  let best: { size: number; sha256: string } | undefined;
  for (const sum of knownSums(path, stamp)) if ((!best || sum.size > best.size) && usable(sum)) best = sum;
  return best;
}
