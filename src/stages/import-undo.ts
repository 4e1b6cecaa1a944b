import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../util/fs.js";

/**
 * The files one import step may change, as they were before it: if the step fails part way,
 * `restore` puts every one back (and removes what the step created in a kept folder), so a file's
 * import either completes or leaves the study as it found it.
 */
export class FileUndo {
  /** Path -> bytes before the step (null: the file did not exist). */
  private readonly before = new Map<string, Buffer | null>();
  /** Folders kept whole: files found there afterwards that were not there before are removed. */
  private readonly folders = new Map<string, Set<string>>();

  async keep(path: string): Promise<void> {
    if (this.before.has(path)) return;
    this.before.set(path, await readFile(path).catch(absent));
  }

  /** Keep every file under `dir` (recursively). */
  async keepFolder(dir: string): Promise<void> {
    if (this.folders.has(dir)) return;
    const files = await filesUnder(dir);
    this.folders.set(dir, new Set(files));
    for (const file of files) await this.keep(file);
  }

  async restore(): Promise<void> {
    for (const [dir, kept] of this.folders) {
      for (const file of await filesUnder(dir)) if (!kept.has(file) && !this.before.has(file)) await rm(file, { force: true });
    }
    for (const [path, bytes] of this.before) {
      if (bytes === null) await rm(path, { force: true });
      else if (!bytes.equals((await readFile(path).catch(absent)) ?? Buffer.alloc(0))) await writeFileAtomic(path, bytes, { sync: true });
    }
  }
}

function absent(error: unknown): null {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
  throw error;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  });
  // `path` is the entry's folder on Node 20 (parentPath from 20.12 on, path deprecated later).
  return entries.filter((e) => e.isFile()).map((e) => join((e as { parentPath?: string }).parentPath ?? e.path, e.name));
}
