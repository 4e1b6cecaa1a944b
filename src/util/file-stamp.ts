import type { Stats } from "node:fs";

/**
 * What tells a cache that a file is unchanged without reading it: [size, mtimeMs, ctimeMs, ino],
 * as git's index does. Size and mtime alone are not enough: cp -p, rsync -a, tar, touch -r and
 * sync clients write new bytes and then put the old mtime back. None of them can set ctime (the
 * kernel sets it to now on every write and on every mtime change), and a file replaced by rename
 * has another inode, so a file edited by them no longer matches its stamp.
 */
export type FileStamp = readonly [size: number, mtimeMs: number, ctimeMs: number, ino: number];

export const stamp = (info: Stats): FileStamp => [info.size, info.mtimeMs, info.ctimeMs, info.ino];

/** Whether a remembered stamp (of any older shape: then it does not match) is the file's stamp now. */
export function sameStamp(known: readonly unknown[] | undefined, now: FileStamp): boolean {
  return Array.isArray(known) && now.every((value, i) => known[i] === value);
}

/**
 * A file written within this many ms of being read may change again within the same timestamp
 * tick, leaving its stamp as it was (the "racy git" problem): what was read from it is not to be
 * remembered. Past that, any write sets mtime to now, which differs from the old mtime; a tool
 * that puts the old mtime back changes ctime. The tick is the filesystem's timestamp granularity:
 * whole seconds on FAT, HFS+ and some network filesystems (two on FAT), the kernel's clock tick
 * (1-10 ms) on ext4, xfs, btrfs, tmpfs and APFS. The age is measured with this machine's clock: a
 * network filesystem whose server's clock is ahead or behind by more than the window can make a
 * file look settled early (as the 2 s window could with a larger skew).
 */
const RACY_MS = 2000;
/** For a file whose mtime has a fraction of a second (so its filesystem keeps finer times): ten ticks and more. */
const FINE_RACY_MS = 100;

const settledMtime = (mtimeMs: number, now: number) => now - mtimeMs > (Number.isInteger(mtimeMs / 1000) ? RACY_MS : FINE_RACY_MS);

/**
 * Whether what was read from a file with this stat may be remembered under its stamp. A file
 * written during a pipeline run (the code stage's codes, each stage's results) is fingerprinted
 * again by every later stage: with the whole-second window alone, the 70 MB of codes of a
 * 100,000-turn study were hashed four times in a run that added one session.
 */
export const settled = (info: Stats, now = Date.now()): boolean => settledMtime(info.mtimeMs, now);

/** {@link settled} for a file remembered by its stamp. */
export const settledStamp = (stamp: FileStamp, now = Date.now()): boolean => settledMtime(stamp[1], now);
