import { createHash } from "node:crypto";
import { createReadStream, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { sameStamp, settledStamp, stamp } from "../util/file-stamp.js";
import { hashValue } from "../util/hash.js";

/**
 * Hex sha256 of a file's bytes, read 1 MB at a time: a codes file of a 1,000,000-turn study is
 * 200-500 MB, which read whole to be hashed sat in memory beside the stage about to run (issue 40).
 */
export async function fileHash(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** `inner` is `outer` or a folder below it (both resolved: "codes2" is not below "codes"). */
const within = (inner: string, outer: string) => {
  const path = relative(resolve(outer), resolve(inner));
  return path === "" || (!path.startsWith("..") && !isAbsolute(path));
};

/**
 * Content fingerprints of stage inputs. A file's fingerprint is the sha256 of its bytes, so
 * touching a file without changing it re-runs nothing. Hashing every file of a 100,000-turn
 * study on every run would cost as much as reading it, so hashes are remembered with the
 * file's stamp (size, mtime, ctime and inode, as git's index does: util/file-stamp.ts) and a file
 * is read again only when any of them changed.
 */

/**
 * Remembered hashes: path relative to the study -> [size, mtimeMs, ctimeMs, ino, sha256]. State
 * files written before ctime and inode were stamped hold [size, mtimeMs, sha256]: such a file is
 * hashed again.
 */
export type StatCache = Record<string, [number, number, string] | [number, number, number, number, string]>;

export class FileHasher {
  /** Folder listings hashed during this run, by folder; cleared when a stage writes. */
  private folders = new Map<string, Promise<Record<string, string>>>();
  /** Files read to hash them during this run (`colloquy study --json` reports it). */
  filesRead = 0;
  /** What to remember for the next run: the files seen in this one. */
  readonly next: StatCache = {};
  /** Files are stamped several at once but read one at a time: a cold run holds one codes file (tens of MB), not sixteen. */
  private reading: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly root: string,
    private readonly previous: StatCache = {},
  ) {}

  /** Hashes of every file below `dir` (dotfiles excluded), keyed by path relative to the study. */
  folder(dir: string): Promise<Record<string, string>> {
    let hashes = this.folders.get(dir);
    if (!hashes) {
      hashes = this.walk(dir);
      this.folders.set(dir, hashes);
    }
    return hashes;
  }

  /** After a stage ran: the folders it wrote (and any folder listed inside or around them) are hashed again when asked for. */
  forget(dirs: readonly string[]): void {
    for (const known of this.folders.keys()) {
      if (dirs.some((dir) => within(known, dir) || within(dir, known))) this.folders.delete(known);
    }
  }

  private async walk(dir: string): Promise<Record<string, string>> {
    // Each file with its key, the path relative to the study: `relative` once per walk, then joined
    // name by name (`relative` resolves both paths against the working folder: 16 ms of a no-op
    // run's 2,500 files when called per file).
    const files: { path: string; key: string }[] = [];
    // Listed with readdirSync, as the files are stamped below: an inbox of one folder per session
    // (300 folders) took ~30 ms of a run listed through libuv's thread pool, a few in place.
    const visit = (folder: string, folderKey: string): void => {
      let entries;
      try {
        entries = readdirSync(folder, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (entry.name.startsWith(".")) continue;
        const path = join(folder, entry.name);
        const key = join(folderKey, entry.name);
        if (entry.isDirectory()) visit(path, key);
        else if (entry.isFile()) files.push({ path, key });
      }
    };
    visit(dir, relative(this.root, dir));
    // Stamped with statSync: the 1,000 session files of a 100,000-turn study took 80 ms a walk
    // stamped one at a time through libuv's thread pool, 30 ms sixteen at a time, 6-8 ms in place.
    // Those that must be hashed are then read one at a time (see `reading`).
    const hashes = await Promise.all(files.map(({ path, key }) => this.file(path, key)));
    return Object.fromEntries(files.map(({ key }, i) => [key, hashes[i]]));
  }

  private async file(path: string, key: string): Promise<string> {
    const now = stamp(statSync(path));
    const known = this.next[key] ?? this.previous[key];
    if (known?.length === 5 && sameStamp(known, now)) {
      this.next[key] = known;
      return known[4];
    }
    this.filesRead++;
    const read = this.reading.then(() => fileHash(path));
    this.reading = read.catch(() => undefined);
    const hash = await read;
    this.next[key] = [...now, hash];
    return hash;
  }

  /**
   * What to save for the next run (the pipeline state): the entries of `next` whose stamps have
   * settled by now (util/file-stamp.ts): a file written just before could change again within
   * the same timestamp tick and keep its stamp.
   */
  remembered(now = Date.now()): StatCache {
    const out: StatCache = {};
    for (const [key, entry] of Object.entries(this.next)) {
      if (entry.length === 5 && settledStamp([entry[0], entry[1], entry[2], entry[3]], now)) out[key] = entry;
    }
    return out;
  }
}

/** One fingerprint for any mix of values and file-hash maps. */
export function fingerprint(parts: Record<string, unknown>): string {
  return hashValue(parts);
}
