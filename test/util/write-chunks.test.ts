import { describe, expect, it } from "vitest";
import { readdirSync, statSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tempName, writeChunks, writeFileAtomic } from "../../src/util/fs.js";

describe("writing a file from chunks (a file laid out from stored lines)", () => {
  it("writes their bytes in order, more chunks than one gathered write takes included", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-chunks-"));
    // More than IOV_MAX (1024) chunks, empty ones and multi-byte characters among them.
    const chunks = Array.from({ length: 3000 }, (_, i) => Buffer.from(i % 7 === 0 ? "" : `${i}é,`));
    const path = join(dir, "out.json");
    await writeFileAtomic(path, chunks);
    expect((await readFile(path)).equals(Buffer.concat(chunks))).toBe(true);
  });

  it("writes chunks as they come: those made while the file is written are on disk before the next is asked for (issue 40)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-chunks-"));
    const path = join(dir, "out.json");
    const megabyte = Buffer.alloc(1 << 20, "x");
    // The temp file's size when the writer asks for the chunk after each one.
    const written = () => {
      const temp = readdirSync(dir).find((name) => name.startsWith(".out.json."));
      return temp === undefined ? -1 : statSync(join(dir, temp)).size;
    };
    const sizes: number[] = [];
    function* chunks() {
      for (let i = 0; i < 4; i++) {
        yield megabyte;
        sizes.push(written());
      }
    }
    await writeFileAtomic(path, chunks());
    expect((await readFile(path)).equals(Buffer.concat([megabyte, megabyte, megabyte, megabyte]))).toBe(true);
    expect(sizes).toEqual([1 << 20, 2 << 20, 3 << 20, 4 << 20]);
  });

  it("a failure while the chunks are made (after some are on disk) keeps the file as it was and leaves no temp file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-chunks-"));
    const path = join(dir, "out.json");
    await writeFileAtomic(path, "the file before");
    const megabyte = Buffer.alloc(1 << 20, "x");
    function* chunks() {
      for (let i = 0; i < 3; i++) yield megabyte;
      throw new Error("a value could not be serialised");
    }
    await expect(writeFileAtomic(path, chunks())).rejects.toThrow("a value could not be serialised");
    expect(await readFile(path, "utf8")).toBe("the file before");
    expect(readdirSync(dir)).toEqual(["out.json"]);
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

describe("a temp file for a long name", () => {
  it("any name that fits the file system can be written atomically: the temp name keeps the name's end, within 255 bytes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-long-name-"));
    // A session chunk's name for a ~230-character session id (ids keep a file's stem whole), 255 bytes in all.
    const name = `${"é".repeat(10)}${"s".repeat(255 - 20 - ".0123456789ab.json".length)}.0123456789ab.json`;
    expect(Buffer.byteLength(name)).toBe(255);
    await writeFileAtomic(join(dir, name), "{}");
    expect(await readFile(join(dir, name), "utf8")).toBe("{}");
    const temp = tempName(name);
    expect(Buffer.byteLength(temp)).toBeLessThanOrEqual(255);
    // Clean-up of a crashed build's temps matches the chunk's hash and extension at the name's end.
    expect(temp).toMatch(/\.0123456789ab\.json\.\d+(~[0-9a-f]{8}~[0-9a-f]{8})?\.[0-9a-f]{8}\.tmp$/);
    expect(tempName("data")).toMatch(/^\.data\./);
  });
});
