import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { visitLines } from "../../src/util/lines.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-lines-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Every call visitLines makes, as [line, number, ended]. */
async function visited(path: string, chunk?: number): Promise<[string, number, boolean][]> {
  const calls: [string, number, boolean][] = [];
  await visitLines(path, (line, number, ended) => void calls.push([line, number, ended]), chunk);
  return calls;
}

/** What reading the whole text and splitting it on "\n" gives (the reader before issue 33). */
const splitWhole = (text: string): [string, number, boolean][] => text.split("\n").map((line, i, all) => [line, i + 1, i < all.length - 1]);

describe("visitLines reads a file a chunk at a time, as reading it whole and splitting it on \\n would", () => {
  it("whatever the text and wherever the chunks cut it: lines, CRLF, a last line without \\n, multi-byte characters (property)", async () => {
    const path = join(dir, "f.txt");
    // Characters of 1 to 4 UTF-8 bytes, "\r" and "\n" often, so chunks of 1-9 bytes cut characters and lines everywhere.
    const char = fc.constantFrom("a", "{", '"', "\n", "\r", "é", "€", "😀", "\u2028");
    await fc.assert(
      fc.asyncProperty(fc.array(char, { maxLength: 60 }), fc.integer({ min: 1, max: 9 }), async (chars, chunk) => {
        const text = chars.join("");
        await writeFile(path, text);
        expect(await visited(path, chunk)).toEqual(splitWhole(text));
      }),
      { numRuns: 300 },
    );
  });

  it("whatever the bytes, valid UTF-8 or not, ASCII or not: as readFile(path, 'utf8') and a split (property)", async () => {
    const path = join(dir, "bytes.bin");
    // ASCII, "\n", lead and continuation bytes of multi-byte characters, bytes never valid in UTF-8.
    const byte = fc.constantFrom(0x61, 0x0a, 0x0d, 0x7f, 0x80, 0xbf, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0xff);
    await fc.assert(
      fc.asyncProperty(fc.array(byte, { maxLength: 40 }), fc.integer({ min: 1, max: 9 }), async (list, chunk) => {
        const bytes = Buffer.from(list);
        await writeFile(path, bytes);
        expect(await visited(path, chunk)).toEqual(splitWhole(bytes.toString("utf8")));
      }),
      { numRuns: 300 },
    );
  });

  it("a character cut by the end of a chunk of the default size (32 KB; 1 MB is a multiple of it) is read whole", async () => {
    const path = join(dir, "big.txt");
    // "😀" is 4 bytes: starting 2 bytes before 1 MB, a chunk's end, it is cut in the middle.
    const text = `${"x".repeat((1 << 20) - 2)}😀\n${"y".repeat(10)}\n`;
    await writeFile(path, text);
    expect(await visited(path)).toEqual(splitWhole(text));
  });

  it("a line longer than several chunks comes whole", async () => {
    const path = join(dir, "long.txt");
    const long = "z".repeat(3 * (1 << 20) + 5);
    await writeFile(path, `a\n${long}\nb`);
    expect(await visited(path)).toEqual([
      ["a", 1, true],
      [long, 2, true],
      ["b", 3, false],
    ]);
  });

  it("an empty file is one empty last line; a missing file is no lines (false)", async () => {
    const empty = join(dir, "empty.txt");
    await writeFile(empty, "");
    expect(await visited(empty)).toEqual([["", 1, false]]);
    const calls: string[] = [];
    expect(await visitLines(join(dir, "missing.txt"), (line) => void calls.push(line))).toBe(false);
    expect(calls).toEqual([]);
  });

  it("invalid UTF-8 becomes U+FFFD, as readFile(path, 'utf8') makes it", async () => {
    const path = join(dir, "bad.txt");
    const bytes = Buffer.from([0x61, 0xc3, 0x0a, 0xe2, 0x82]); // "a", a cut "é", "\n", a cut "€" at the end
    await writeFile(path, bytes);
    expect(await visited(path, 1)).toEqual(splitWhole(bytes.toString("utf8")));
  });
});
