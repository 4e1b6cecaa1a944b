import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtemp, open, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashFileBytes, sha256File } from "../../src/util/hash.js";

describe("sha256File: a file's sha256, read a chunk at a time", () => {
  it("equals the sha256 of the whole file's bytes, empty, small and over one chunk (8 MB)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-hash-"));
    const big = Buffer.alloc((8 << 20) + 12345);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    for (const [name, bytes] of [
      ["empty", Buffer.alloc(0)],
      ["small", Buffer.from("naïve — text\n")],
      ["big", big],
    ] as const) {
      await writeFile(join(dir, name), bytes);
      expect(await sha256File(join(dir, name))).toBe(createHash("sha256").update(bytes).digest("hex"));
    }
    await expect(sha256File(join(dir, "missing"))).rejects.toThrow(/ENOENT/);
  });

  it("hashes a file's first bytes up to any end, across the chunks it reads them in", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-hash-end-"));
    // Three chunks and a bit: chunk boundaries at 8 MB and 16 MB.
    const bytes = Buffer.alloc((16 << 20) + 999);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 253;
    const path = join(dir, "three-chunks");
    await writeFile(path, bytes);
    const handle = await open(path, "r");
    try {
      for (const end of [0, 1, 8 << 20, (8 << 20) + 1, (16 << 20) - 1, 16 << 20, bytes.length, bytes.length + 50, undefined]) {
        const hash = createHash("sha256");
        const read = await hashFileBytes(handle, hash, end);
        const expected = bytes.subarray(0, Math.min(end ?? bytes.length, bytes.length));
        expect(read, `end ${end}`).toBe(expected.length);
        expect(hash.digest("hex"), `end ${end}`).toBe(createHash("sha256").update(expected).digest("hex"));
      }
    } finally {
      await handle.close();
    }
  });
});
