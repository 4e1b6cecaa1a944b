import { resolve } from "node:path";
import type { FileStamp } from "./file-stamp.js";

/**
 * What this process knows of files' bytes without reading them again: the sha256 of a file's
 * first bytes at a stamp, and the stamps its own writes left. The fingerprints (pipeline/
 * fingerprint.ts) and the codes digests (study/code-digests.ts) share it, so a pipeline run that
 * appends one session's codes hashes each codes file once, not once per reader: at 100,000 turns,
 * 70 MB were hashed four times by a run that added one session.
 *
 * Own writes. A stamp read within a clock tick of the file's last write may be left as it is by
 * another write in the same tick (file-stamp.ts, `settled`), so a hash read then is normally not
 * remembered. The writes this process makes are made under the study lock, which every colloquy
 * command that writes takes: the only write that could follow one of them within its tick is
 * another program's, writing into a study's data files during a run. That is outside the lock's
 * contract, as it is for every other file of the study, so a file whose stamp is the one this
 * process's own write left is remembered at once.
 *
 * Appends. An append (coding/codes-file.ts via util/fs.ts appendJsonl) that started from a file
 * at stamp A and left it at stamp B changed no byte before A's size: what is known of the first
 * bytes at A is known at B. That is what lets the digests of a codes file check its kept bytes
 * after the code stage appended to it, without hashing them again.
 */

const stampKey = (stamp: FileStamp) => stamp.join(" ");

/** Per file: the stamps this process's writes left, each with the stamp an append started from (null: not an append). */
const written = new Map<string, Map<string, FileStamp | null>>();
/** How many own writes this process has made, and the count at each file's latest. */
let writes = 0;
const latestWrite = new Map<string, number>();
/** Per file and stamp: sha256 of its first `size` bytes. */
const hashes = new Map<string, Map<string, { size: number; sha256: string }[]>>();

/** This process wrote `path`, leaving it at `after`; `appendedTo`: it only appended, to the file as it was at that stamp. */
export function noteOwnWrite(path: string, after: FileStamp, appendedTo?: FileStamp): void {
  const key = resolve(path);
  let stamps = written.get(key);
  if (!stamps) written.set(key, (stamps = new Map()));
  stamps.set(stampKey(after), appendedTo ?? null);
  latestWrite.set(key, ++writes);
}

/** How many own writes this process has made so far: a point to ask {@link writtenSince} about. */
export function ownWrites(): number {
  return writes;
}

/** Whether this process wrote `path` after it had made `count` own writes. */
export function writtenSince(path: string, count: number): boolean {
  return (latestWrite.get(resolve(path)) ?? 0) > count;
}

/** Whether `stamp` is the one this process's own write left `path` at. */
export function isOwnWrite(path: string, stamp: FileStamp): boolean {
  return written.get(resolve(path))?.has(stampKey(stamp)) === true;
}

/** The first `size` bytes of `path`, at `stamp`, hash to `sha256` (only for a hash that may be remembered: settled, or an own write). */
export function noteHash(path: string, stamp: FileStamp, size: number, sha256: string): void {
  const key = resolve(path);
  let byStamp = hashes.get(key);
  if (!byStamp) hashes.set(key, (byStamp = new Map()));
  const list = byStamp.get(stampKey(stamp)) ?? [];
  if (!list.some((h) => h.size === size)) byStamp.set(stampKey(stamp), [...list, { size, sha256 }]);
}

/**
 * The sha256 of the first `size` bytes of `path` at `stamp`, when this process knows it: hashed at
 * that stamp, or at a stamp this process's appends started from on the way to it.
 */
export function knownHash(path: string, stamp: FileStamp, size: number): string | undefined {
  const key = resolve(path);
  const byStamp = hashes.get(key);
  const stamps = written.get(key);
  let at: FileStamp | null | undefined = stamp;
  // Each step goes back one append (to a smaller file), so the walk ends.
  while (at && at[0] >= size) {
    const known = byStamp?.get(stampKey(at))?.find((h) => h.size === size);
    if (known) return known.sha256;
    at = stamps?.get(stampKey(at));
  }
  return undefined;
}
