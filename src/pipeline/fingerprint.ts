import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { hashValue, sha256 } from "../util/hash.js";

/**
 * Content fingerprints of a stage's inputs. A file's fingerprint is the sha256 of its bytes,
 * so touching a file without changing it does not re-run anything.
 */
export async function fileHashes(root: string, dir: string, filter: (path: string) => boolean = () => true): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith(".")) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && filter(path)) out[relative(root, path)] = sha256(await readFile(path));
    }
  };
  await walk(dir);
  return out;
}

/** One fingerprint for any mix of values and file-hash maps. */
export function fingerprint(parts: Record<string, unknown>): string {
  return hashValue(parts);
}

/** Newest modification time (ms) of the files below a folder; 0 when empty or missing. */
export async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  const walk = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else newest = Math.max(newest, (await stat(path)).mtimeMs);
    }
  };
  await walk(dir);
  return newest;
}
