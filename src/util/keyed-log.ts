import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { deserialize, serialize } from "node:v8";
import { readWholeFile, writeFileAtomic } from "./fs.js";
import { stamp } from "./file-stamp.js";
import { noteOwnWrite } from "./known-bytes.js";

/**
 * A cache file of values by key, kept as a log of frames so that a run that adds a few entries to
 * a large cache appends them instead of re-serializing and rewriting every entry (tens of MB at
 * 100,000 turns, issue 11). Each frame is a 4-byte little-endian length and a v8-serialized
 * value: first `{stamp}` (what the entries were computed under: the code version, with settings),
 * then one `{key, value}` per entry, a later frame for a key replacing an earlier one. The file is
 * rewritten whole, atomically, when entries are dropped, when replaced frames outnumber the live
 * ones, or when the file was missing, torn, foreign or under another stamp. It is a cache: what it
 * cannot vouch for is recomputed, never trusted.
 *
 * v8, not JSON: the caches hold NaN, Infinity and undefined, which must come back exactly.
 */
export interface KeyedLog<V> {
  /** The entries the file holds (after `save`, exactly those saved). */
  readonly stored: ReadonlyMap<string, V>;
  /**
   * Keep exactly `used`: append the entries of `added` (keys of `used` computed since the file was
   * read) when that is enough, else rewrite the file with `used`. Nothing is written when nothing
   * was added or dropped.
   */
  save(used: ReadonlyMap<string, V>, added: Iterable<string>): Promise<void>;
}

export async function openKeyedLog<V>(path: string, stamp: string): Promise<KeyedLog<V>> {
  const log = await readLog<V>(path, stamp);
  return {
    stored: log.entries,
    async save(used, added) {
      const fresh = [...new Set(added)].filter((key) => used.has(key));
      const dropped = [...log.entries.keys()].some((key) => !used.has(key));
      if (fresh.length === 0 && !dropped && !log.rewrite) return;
      const appended = fresh.map((key) => frame({ key, value: used.get(key) }));
      if (!log.rewrite && !dropped && log.frames + appended.length <= 2 * used.size && (await appendTo(path, Buffer.concat(appended)))) {
        log.frames += appended.length;
      } else {
        await writeFileAtomic(path, Buffer.concat([frame({ stamp }), ...[...used].map(([key, value]) => frame({ key, value }))]));
        log.frames = used.size;
        log.rewrite = false;
      }
      // The file now holds exactly the entries used: a later save starts from there.
      log.entries.clear();
      for (const [key, value] of used) log.entries.set(key, value);
    },
  };
}

interface Log<V> {
  entries: Map<string, V>;
  /** Entry frames in the file (replaced ones included). */
  frames: number;
  /** The file cannot be appended to as it is (missing, torn, foreign or under another stamp). */
  rewrite: boolean;
}

function frame(value: unknown): Buffer {
  const payload = serialize(value);
  const head = Buffer.alloc(4);
  head.writeUInt32LE(payload.length);
  return Buffer.concat([head, payload]);
}

async function readLog<V>(path: string, stamp: string): Promise<Log<V>> {
  const entries = new Map<string, V>();
  let bytes: Buffer;
  try {
    bytes = await readWholeFile(path);
  } catch {
    return { entries, frames: 0, rewrite: true };
  }
  let at = 0;
  let frames = -1;
  try {
    while (at < bytes.length) {
      if (at + 4 > bytes.length) throw new Error("torn length");
      const end = at + 4 + bytes.readUInt32LE(at);
      if (end > bytes.length) throw new Error("torn frame");
      const value = deserialize(bytes.subarray(at + 4, end)) as { stamp?: unknown; key?: unknown; value?: V };
      if (frames === -1) {
        if (value?.stamp !== stamp) return { entries, frames: 0, rewrite: true };
      } else if (typeof value?.key === "string" && Object.hasOwn(value, "value")) {
        entries.set(value.key, value.value as V);
      } else throw new Error("foreign frame");
      frames++;
      at = end;
    }
  } catch {
    // A torn tail (a crash while appending) or a foreign frame: what came before stands, and the
    // next save rewrites the file so that later appends are not lost behind the damage.
    return { entries: frames === -1 ? new Map() : entries, frames: Math.max(frames, 0), rewrite: true };
  }
  return { entries, frames: Math.max(frames, 0), rewrite: frames === -1 };
}

/**
 * Append to an existing file; false when it is gone (`.cache/` deleted during the run), so the
 * caller writes it whole with its stamp frame instead of starting a file without one. Noted as an
 * own write (util/known-bytes.ts), as every write util/fs.ts makes is.
 */
async function appendTo(path: string, bytes: Buffer): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  try {
    const before = stamp(await handle.stat());
    await handle.appendFile(bytes);
    noteOwnWrite(path, stamp(await handle.stat()), before);
  } finally {
    await handle.close();
  }
  return true;
}
