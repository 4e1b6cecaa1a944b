import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { hashValue, sha256 } from "../util/hash.js";

/**
 * Content fingerprints of stage inputs. A file's fingerprint is the sha256 of its bytes, so
 * touching a file without changing it re-runs nothing. Hashing every file of a 100,000-turn
 * study on every run would cost as much as reading it, so hashes are remembered with the
 * file's size and modification time (as git's index does) and a file is read again only when
 * either changed.
 */

/** Remembered hashes: path relative to the study -> [size, mtimeMs, sha256]. */
export type StatCache = Record<string, [number, number, string]>;

/**
 * A file written within this many ms of being hashed may change again within the same mtime
 * tick; such hashes are not remembered (the "racy git" problem).
 */
const RACY_MS = 2000;

export class FileHasher {
  /** Folder listings hashed during this run, by folder; cleared when a stage writes. */
  private folders = new Map<string, Promise<Record<string, string>>>();
  /** Files actually read to hash them during this run (benchmarks and tests look). */
  filesRead = 0;
  /** What to remember for the next run: the files seen in this one. */
  readonly next: StatCache = {};

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

  /** After a stage ran: its outputs may be the next stage's inputs. */
  forget(): void {
    this.folders.clear();
  }

  private async walk(dir: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const visit = async (folder: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(folder, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (entry.name.startsWith(".")) continue;
        const path = join(folder, entry.name);
        if (entry.isDirectory()) await visit(path);
        else if (entry.isFile()) out[relative(this.root, path)] = await this.file(path);
      }
    };
    await visit(dir);
    return out;
  }

  private async file(path: string): Promise<string> {
    const key = relative(this.root, path);
    const info = await stat(path);
    const known = this.next[key] ?? this.previous[key];
    if (known && known[0] === info.size && known[1] === info.mtimeMs) {
      this.next[key] = known;
      return known[2];
    }
    this.filesRead++;
    const hash = sha256(await readFile(path));
    if (Date.now() - info.mtimeMs > RACY_MS) this.next[key] = [info.size, info.mtimeMs, hash];
    else delete this.next[key];
    return hash;
  }
}

/** One fingerprint for any mix of values and file-hash maps. */
export function fingerprint(parts: Record<string, unknown>): string {
  return hashValue(parts);
}
