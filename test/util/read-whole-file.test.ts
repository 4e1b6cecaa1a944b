import { describe, expect, it } from "vitest";
import { mkdtemp, open, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFrom, readWholeFile } from "../../src/util/fs.js";

describe("readWholeFile and readFrom: a file's bytes in as few reads as its size allows", () => {
  it("give every byte of empty, small and large files, from any offset", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-read-"));
    const big = Buffer.alloc((3 << 20) + 7);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) % 256;
    for (const [name, bytes] of [
      ["empty", Buffer.alloc(0)],
      ["small", Buffer.from("héllo\n")],
      ["big", big],
    ] as const) {
      const path = join(dir, name);
      await writeFile(path, bytes);
      expect((await readWholeFile(path)).equals(bytes)).toBe(true);
      const handle = await open(path, "r");
      try {
        // A size taken before the file grew: read to its end all the same.
        expect((await readFrom(handle, Math.min(3, bytes.length), 0)).equals(bytes.subarray(Math.min(3, bytes.length)))).toBe(true);
      } finally {
        await handle.close();
      }
    }
    await expect(readWholeFile(join(dir, "missing"))).rejects.toThrow(/ENOENT/);
  });
});
