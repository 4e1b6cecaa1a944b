import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256File } from "../../src/util/hash.js";

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
});
