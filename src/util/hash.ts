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

/** Bytes per block of a {@link FileHash}. */
export const HASH_BLOCK = 1 << 20;

/**
 * The hash of a file's bytes as the fingerprints, the codes digests and util/known-bytes.ts keep
 * it: for up to one block (1 MiB), the hex sha256 of the bytes; for more, the hex sha256 of the
 * sha256 digests of its 1 MiB blocks (the last one as long as it is), then "." and the digests of
 * its whole blocks in base64. Why blocks: a run that adds a session to a 100,000-turn study
 * appends to 80 MB of codes files, and sha256 cannot go on from a digest, so every such run hashed
 * them whole again (50-70 ms); with the whole blocks' digests known for the bytes before the
 * append, only the blocks from the last whole one on are hashed ({@link FileHash.resume}). The
 * value is the bytes' alone: a file hashed whole or resumed after an append gives the same.
 */
export class FileHash {
  /** Digests of the whole blocks so far. */
  private blocks: Buffer[] = [];
  private current: Hash = createHash("sha256");
  /** Bytes of the block being hashed. */
  private filled = 0;

  update(data: Uint8Array): this {
    // Most pieces (a file's lines, written as chunks) fit in the block being hashed: fed as they are.
    if (this.filled + data.length < HASH_BLOCK) {
      this.current.update(data);
      this.filled += data.length;
      return this;
    }
    let at = 0;
    while (at < data.length) {
      const take = Math.min(HASH_BLOCK - this.filled, data.length - at);
      this.current.update(data.subarray(at, at + take));
      this.filled += take;
      at += take;
      if (this.filled === HASH_BLOCK) {
        this.blocks.push(this.current.digest());
        this.current = createHash("sha256");
        this.filled = 0;
      }
    }
    return this;
  }

  /** The hash of the bytes so far (this one can go on). */
  digest(): string {
    const whole = this.blocks.length;
    if (whole === 0) return this.current.copy().digest("hex");
    if (whole === 1 && this.filled === 0) return this.blocks[0].toString("hex");
    const all = this.filled > 0 ? [...this.blocks, this.current.copy().digest()] : this.blocks;
    return `${createHash("sha256").update(Buffer.concat(all)).digest("hex")}.${Buffer.concat(this.blocks).toString("base64")}`;
  }

  /**
   * A hash of a file's first `size` bytes, given as {@link digest} gave it, resumed at its last
   * whole block: `from` is where to go on feeding the file's bytes. Undefined when `hash` is not
   * such a hash of `size` bytes.
   */
  static resume(hash: string, size: number): { hash: FileHash; from: number } | undefined {
    const whole = Math.floor(size / HASH_BLOCK);
    const out = new FileHash();
    if (size > HASH_BLOCK) {
      const listed = /^[0-9a-f]{64}\.([A-Za-z0-9+/]*={0,2})$/.exec(hash);
      const blocks = listed && Buffer.from(listed[1], "base64");
      if (!blocks || blocks.length !== 32 * whole) return undefined;
      for (let i = 0; i < whole; i++) out.blocks.push(blocks.subarray(32 * i, 32 * (i + 1)));
      return { hash: out, from: whole * HASH_BLOCK };
    }
    // One block or less: nothing to keep; the bytes are hashed from the start.
    return /^[0-9a-f]{64}$/.test(hash) ? { hash: out, from: 0 } : undefined;
  }
}

/** The {@link FileHash} of bytes in memory. */
export function fileHashOf(data: Uint8Array): string {
  return new FileHash().update(data).digest();
}

/**
 * The {@link FileHash} of a file's bytes, read a chunk at a time into one buffer: readFile's 512 KB
 * reads into a buffer of the whole file took a third longer, and left that buffer to the collector.
 * With `prefix` (the hash of its first `size` bytes, which it still holds: util/known-bytes.ts
 * knownPrefix), only the bytes from the prefix's last whole block on are read.
 */
export async function fileHash(path: string, prefix?: { size: number; sha256: string }): Promise<string> {
  const handle = await open(path, "r");
  try {
    const resumed = prefix && FileHash.resume(prefix.sha256, prefix.size);
    const hash = resumed?.hash ?? new FileHash();
    // To the end as it is now (a file that grew since stat is hashed whole, as readFile would).
    await hashFileBytes(handle, hash, undefined, resumed?.from ?? 0);
    return hash.digest();
  } finally {
    await handle.close();
  }
}

/** Bytes {@link hashFileBytes} read in this process (tests check what an append made it read). */
export const fileBytesHashed = { bytes: 0 };

/**
 * Feed a file's bytes from `from` to `end` (its end when undefined) to `hash`, a chunk at a time;
 * returns the offset reached (less than `end` when the file is shorter). The next chunk is read
 * while this one is hashed (two buffers): the 80 MB of codes files a run that adds one session to a
 * 100,000-turn study hashed took 72 ms one read after another, 55 ms so.
 */
export async function hashFileBytes(handle: FileHandle, hash: { update(data: Uint8Array): unknown }, end?: number, from = 0): Promise<number> {
  const size = end ?? (await handle.stat()).size;
  const length = Math.max(1 << 16, Math.min(size - from, FILE_CHUNK));
  const buffers = [Buffer.allocUnsafe(length), Buffer.allocUnsafe(length)];
  const readAt = (buffer: Buffer, at: number) =>
    end !== undefined && at >= end ? Promise.resolve({ bytesRead: 0 }) : handle.read(buffer, 0, end === undefined ? length : Math.min(length, end - at), at);
  let at = from;
  let which = 0;
  let pending = readAt(buffers[0], at);
  for (;;) {
    const { bytesRead } = await pending;
    if (bytesRead === 0) break;
    const current = buffers[which];
    at += bytesRead;
    which ^= 1;
    pending = readAt(buffers[which], at);
    fileBytesHashed.bytes += bytesRead;
    hash.update(current.subarray(0, bytesRead));
  }
  return at;
}
