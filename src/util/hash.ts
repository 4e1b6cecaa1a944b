import { createHash, type Hash } from "node:crypto";
import { open, type FileHandle } from "node:fs/promises";

/**
 * JSON with object keys sorted at every depth, so equal values always serialise to equal
 * strings (cache keys, fingerprints). `undefined` members are dropped as JSON.stringify does.
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = sortKeys(member);
    }
    return out;
  }
  return value;
}

/** Hex sha256 of a string or buffer. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Hex sha256 of the stable serialisation of a value. */
export function hashValue(value: unknown): string {
  return sha256(stableStringify(value));
}

/** Bytes read at a time by {@link hashFileBytes}. */
const FILE_CHUNK = 8 << 20;

/**
 * Hex sha256 of a file's bytes, read a chunk at a time into one buffer: the fingerprints hash the
 * 70 MB of codes files of a 100,000-turn study after every code run, and readFile's 512 KB reads
 * into a buffer of the whole file took a third longer, and left that buffer to the collector.
 */
export async function sha256File(path: string): Promise<string> {
  const handle = await open(path, "r");
  try {
    const hash = createHash("sha256");
    // To the end as it is now (a file that grew since stat is hashed whole, as readFile would).
    await hashFileBytes(handle, hash);
    return hash.digest("hex");
  } finally {
    await handle.close();
  }
}

/**
 * Feed a file's first `end` bytes (all of them when undefined) to `hash`, a chunk at a time into
 * one buffer; returns how many there were (fewer than `end` when the file is shorter).
 */
export async function hashFileBytes(handle: FileHandle, hash: Hash, end?: number): Promise<number> {
  const size = end ?? (await handle.stat()).size;
  const chunk = Buffer.allocUnsafe(Math.max(1 << 16, Math.min(size, FILE_CHUNK)));
  let at = 0;
  while (end === undefined || at < end) {
    const { bytesRead } = await handle.read(chunk, 0, end === undefined ? chunk.length : Math.min(chunk.length, end - at), at);
    if (bytesRead === 0) break;
    hash.update(chunk.subarray(0, bytesRead));
    at += bytesRead;
  }
  return at;
}
