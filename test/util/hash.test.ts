import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtemp, open, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileHash, fileHash, fileHashOf, HASH_BLOCK, hashFileBytes } from "../../src/util/hash.js";

/** `n` bytes of a pattern (no two blocks alike). */
function pattern(n: number, step = 7919): Buffer {
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) bytes[i] = (i * step + (i >> 20)) % 251;
  return bytes;
}

/** The FileHash of `bytes` by its definition: sha256 up to one block; else the sha256 of the blocks' digests, ".", the whole blocks' digests in base64. */
function byDefinition(bytes: Buffer): string {
  const sha = (b: Uint8Array) => createHash("sha256").update(b).digest();
  if (bytes.length <= HASH_BLOCK) return sha(bytes).toString("hex");
  const digests: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += HASH_BLOCK) digests.push(sha(bytes.subarray(at, at + HASH_BLOCK)));
  const whole = Math.floor(bytes.length / HASH_BLOCK);
  return `${sha(Buffer.concat(digests)).toString("hex")}.${Buffer.concat(digests.slice(0, whole)).toString("base64")}`;
}

describe("FileHash: a file's hash, by 1 MiB blocks past one block", () => {
  const sizes = [0, 1, HASH_BLOCK - 1, HASH_BLOCK, HASH_BLOCK + 1, 2 * HASH_BLOCK, 3 * HASH_BLOCK + 12345];

  it("is the plain sha256 up to one block, and the definition's past it, however the bytes are fed", () => {
    for (const size of sizes) {
      const bytes = pattern(size);
      const expected = byDefinition(bytes);
      if (size <= HASH_BLOCK) expect(expected).toBe(createHash("sha256").update(bytes).digest("hex"));
      expect(fileHashOf(bytes), `size ${size}`).toBe(expected);
      // Fed in uneven pieces, with digests (which let it go on) taken on the way.
      const hash = new FileHash();
      let at = 0;
      for (const piece of [3, 65536, HASH_BLOCK - 7, 5, HASH_BLOCK, 2 * HASH_BLOCK]) {
        hash.update(bytes.subarray(at, Math.min(size, at + piece)));
        at = Math.min(size, at + piece);
        expect(hash.digest()).toBe(byDefinition(bytes.subarray(0, at)));
      }
      hash.update(bytes.subarray(at));
      expect(hash.digest(), `size ${size}`).toBe(expected);
    }
  });

  it("tells other bytes apart: one byte changed in any block, or one more byte", () => {
    const bytes = pattern(3 * HASH_BLOCK + 10);
    const base = fileHashOf(bytes);
    for (const at of [0, HASH_BLOCK + 5, 3 * HASH_BLOCK + 9]) {
      const other = Buffer.from(bytes);
      other[at] ^= 1;
      expect(fileHashOf(other)).not.toBe(base);
    }
    expect(fileHashOf(Buffer.concat([bytes, Buffer.from("x")]))).not.toBe(base);
  });

  it("goes on from the hash of a file's first bytes after an append, reading from its last whole block", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-hash-resume-"));
    const path = join(dir, "codes.jsonl");
    for (const [before, after] of [
      [0, 10],
      [HASH_BLOCK - 1, HASH_BLOCK + 1],
      [HASH_BLOCK, 2 * HASH_BLOCK],
      [2 * HASH_BLOCK + 3, 2 * HASH_BLOCK + 100],
      [3 * HASH_BLOCK + 12345, 5 * HASH_BLOCK + 1],
    ]) {
      const bytes = pattern(after, 31);
      await writeFile(path, bytes);
      const prefix = { size: before, sha256: fileHashOf(bytes.subarray(0, before)) };
      expect(await fileHash(path, prefix), `${before} -> ${after}`).toBe(fileHashOf(bytes));
      expect(await fileHash(path)).toBe(fileHashOf(bytes));
      const resumed = FileHash.resume(prefix.sha256, before)!;
      expect(resumed.from).toBe(before > HASH_BLOCK ? Math.floor(before / HASH_BLOCK) * HASH_BLOCK : 0);
    }
    // A hash that does not list the prefix's whole blocks cannot be gone on from.
    expect(FileHash.resume(createHash("sha256").update("x").digest("hex"), 3 * HASH_BLOCK)).toBeUndefined();
    expect(FileHash.resume(`${"0".repeat(64)}.${Buffer.alloc(32).toString("base64")}`, 3 * HASH_BLOCK)).toBeUndefined();
    expect(FileHash.resume("not a hash", 10)).toBeUndefined();
    await expect(fileHash(join(dir, "missing"))).rejects.toThrow(/ENOENT/);
  });
});

describe("hashFileBytes", () => {
  it("hashes a file's bytes from any start up to any end, across the chunks it reads them in", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-hash-end-"));
    // Three chunks and a bit: chunk boundaries at 8 MB and 16 MB.
    const bytes = Buffer.alloc((16 << 20) + 999);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 253;
    const path = join(dir, "three-chunks");
    await writeFile(path, bytes);
    const handle = await open(path, "r");
    try {
      for (const from of [0, 5, 8 << 20]) {
        for (const end of [0, 1, 8 << 20, (8 << 20) + 1, (16 << 20) - 1, 16 << 20, bytes.length, bytes.length + 50, undefined]) {
          const hash = createHash("sha256");
          const read = await hashFileBytes(handle, hash, end, from);
          const stop = Math.min(end ?? bytes.length, bytes.length);
          const expected = bytes.subarray(Math.min(from, stop), stop);
          expect(read, `from ${from} end ${end}`).toBe(Math.max(from, stop));
          expect(hash.digest("hex"), `from ${from} end ${end}`).toBe(createHash("sha256").update(expected).digest("hex"));
        }
      }
    } finally {
      await handle.close();
    }
  });
});
