import { describe, expect, it } from "vitest";
import { mkdtemp, readFile } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeChunks, writeFileAtomic } from "../../src/util/fs.js";

describe("writing a file from chunks (a file laid out from stored lines)", () => {
  it("writes their bytes in order, more chunks than one gathered write takes included", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-chunks-"));
    // More than IOV_MAX (1024) chunks, empty ones and multi-byte characters among them.
    const chunks = Array.from({ length: 3000 }, (_, i) => Buffer.from(i % 7 === 0 ? "" : `${i}é,`));
    const path = join(dir, "out.json");
    await writeFileAtomic(path, chunks);
    expect((await readFile(path)).equals(Buffer.concat(chunks))).toBe(true);
  });

  it("writes what a partial gathered write left out", async () => {
    const written: Buffer[] = [];
    // A disk that takes 5 bytes of the gathered write, then the rest a byte at a time.
    const handle = {
      writev: async () => ({ bytesWritten: 5 }),
      write: async (data: Uint8Array, offset: number) => {
        written.push(Buffer.from(data.subarray(offset, offset + 1)));
        return { bytesWritten: 1 };
      },
    } as unknown as FileHandle;
    const chunks = [Buffer.from("abc"), Buffer.from("defg"), Buffer.from("hij")];
    await writeChunks(handle, chunks);
    expect(Buffer.concat(written).toString()).toBe("fghij");
  });
});
