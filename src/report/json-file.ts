import { createHash } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { tempName, writeChunks } from "../util/fs.js";

/**
 * Writes one JSON object a member at a time, or an array member an entry list at a time, so the
 * caller can let each piece go once it is written: the file holds the same bytes as one
 * JSON.stringify of the whole object, which is never held (a view's data, or the site's index).
 */
export interface JsonObjectWriter {
  /** Write member `key` whole (left out when `value` is undefined, as JSON.stringify does). */
  member(key: string, value: unknown): Promise<void>;
  /** Append `entries` to the array member `key`, opened by its first call (an array member's calls come one after another). */
  append(key: string, entries: readonly unknown[]): Promise<void>;
  /** End the object and give the file its name, `<prefix>.<hash>.json` in the folder; returns that name and its size. */
  close(): Promise<{ name: string; bytes: number }>;
  /** Drop the file (the build failed before close). */
  abort(): Promise<void>;
}

/** Text gathered before it goes to the file: a write per entry would be a system call per session. */
const FLUSH_CHARS = 1 << 20;

/**
 * Start `<prefix>.<hash>.json` in `dir`: written to the temp file `.<prefix>.<owner>.<hex>.tmp` (util/fs.ts tempName)
 * (src/report/site.ts removes those of crashed builds) and renamed once its hash is known.
 */
export async function openJsonObject(dir: string, prefix: string): Promise<JsonObjectWriter> {
  const temp = join(dir, tempName(prefix));
  const handle = await open(temp, "w");
  const hash = createHash("sha256");
  let bytes = 0;
  let pending: string[] = [];
  let pendingChars = 0;
  let started = false;
  /** The array member open now, and whether it has an entry yet. */
  let array: { key: string; entries: boolean } | null = null;

  const flush = async () => {
    const buffer = Buffer.from(pending.join(""));
    pending = [];
    pendingChars = 0;
    hash.update(buffer);
    bytes += buffer.length;
    await writeChunks(handle, [buffer]);
  };
  const put = async (text: string) => {
    pending.push(text);
    pendingChars += text.length;
    if (pendingChars >= FLUSH_CHARS) await flush();
  };
  const key = async (name: string) => {
    if (array) await put("]");
    array = null;
    await put(`${started ? "," : "{"}${JSON.stringify(name)}:`);
    started = true;
  };
  const abort = async () => {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
  };
  const guarded = async (write: () => Promise<void>) => {
    try {
      await write();
    } catch (error) {
      await abort();
      throw error;
    }
  };

  return {
    member: (name, value) =>
      guarded(async () => {
        const text = JSON.stringify(value);
        if (text === undefined) return;
        await key(name);
        await put(text);
      }),
    append: (name, entries) =>
      guarded(async () => {
        if (array?.key !== name) {
          await key(name);
          await put("[");
          array = { key: name, entries: false };
        }
        for (const entry of entries) {
          // As JSON.stringify writes an array's undefined entries.
          await put(`${array.entries ? "," : ""}${JSON.stringify(entry) ?? "null"}`);
          array.entries = true;
        }
      }),
    async close() {
      await guarded(async () => {
        if (array) await put("]");
        await put(started ? "}" : "{}");
        await flush();
        await handle.close();
      });
      const name = `${prefix}.${hash.digest("hex").slice(0, 12)}.json`;
      await rename(temp, join(dir, name));
      return { name, bytes };
    },
    abort,
  };
}
