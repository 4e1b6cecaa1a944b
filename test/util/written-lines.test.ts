import { afterEach, describe, expect, it } from "vitest";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashedLine, writeWithLines, writtenLines } from "../../src/util/written-lines.js";
import { jsonWithArrayLines, splitLineArray, splitOfLayout } from "../../src/util/json-layout.js";
import { writeFileAtomic } from "../../src/util/fs.js";
import { acquireStudyLock, type ReleaseStudyLock } from "../../src/study/lock.js";
import { sha256 } from "../../src/util/hash.js";

let release: ReleaseStudyLock | undefined;
afterEach(() => {
  release?.();
  release = undefined;
});

/** A fresh study-like folder whose writer lock this process holds (own writes are trusted only then). */
async function lockedDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-written-lines-"));
  release = await acquireStudyLock(dir, "test");
  return dir;
}

const entries = [{ session: "s1", text: 'héllo, "world"' }, { session: "s2", list: [1, 2] }, { session: "s3" }];

describe("splitOfLayout: what splitLineArray finds in a file laid out by lines, from the writer's pieces", () => {
  const shapes: [string, object, string][] = [
    ["a member in the middle", { provenance: { tool: "colloquy" }, sessions: entries, conditions: [{ a: 1 }] }, "sessions"],
    ["the last member", { provenance: { n: 1 }, sessions: entries }, "sessions"],
    ["a nested member", { codes: { profiles: { members: entries }, other: [1] }, after: "x" }, "codes.profiles.members"],
    ["a member whose name is elsewhere too", { sessions: entries, more: { sessions: [1, 2] } }, "sessions"],
  ];
  for (const [what, object, path] of shapes) {
    it(`equals splitLineArray of the written bytes: ${what}`, () => {
      const lines = entries.map((e) => hashedLine(e).json);
      const bytes = Buffer.concat(jsonWithArrayLines(object, [{ path, lines }]));
      const expected = splitLineArray(bytes, path);
      expect(expected).toBeDefined();
      const split = splitOfLayout(object, path, lines)!;
      expect(split.marker).toBe(expected!.marker);
      expect(split.rest.equals(expected!.rest)).toBe(true);
      expect(split.lines.map(String)).toEqual(expected!.lines.map(String));
    });
  }

  it("gives nothing where splitLineArray finds nothing: no lines, a line holding two entries, no array there", () => {
    expect(splitOfLayout({ sessions: [] }, "sessions", [])).toBeUndefined();
    const joined = Buffer.from(`${JSON.stringify(entries[0])},\n    ${JSON.stringify(entries[1])}`);
    expect(splitOfLayout({ sessions: entries }, "sessions", [joined])).toBeUndefined();
    expect(splitOfLayout({ sessions: "not an array" }, "sessions", [hashedLine(entries[0]).json])).toBeUndefined();
  });
});

describe("written lines: handed from a writer to a reader in the same process", () => {
  it("gives the split and the kept hashes of a file as written, once, while it keeps the stamp this process's own write left", async () => {
    const dir = await lockedDir();
    const path = join(dir, "concepts.json");
    const lines = entries.map(hashedLine);
    const object = { provenance: { tool: "colloquy" }, sessions: lines, conditions: [] };
    await writeWithLines(path, object, "sessions", lines);
    // Another member: not what was written (and what was stays).
    expect(await writtenLines(path, "trees")).toBeUndefined();
    const handed = await writtenLines(path, "sessions");
    expect(handed).toBeDefined();
    const fromDisk = splitLineArray(await readFile(path), "sessions")!;
    expect(handed!.split.rest.equals(fromDisk.rest)).toBe(true);
    expect(handed!.split.lines.map(String)).toEqual(fromDisk.lines.map(String));
    expect(handed!.sha256).toEqual(fromDisk.lines.map((line) => sha256(line)));
    // Handed over once: the reader has the lines.
    expect(await writtenLines(path, "sessions")).toBeUndefined();
    // Written again otherwise by this process: its bytes are no longer those lines.
    await writeWithLines(path, object, "sessions", lines);
    await writeFileAtomic(path, "{}\n");
    expect(await writtenLines(path, "sessions")).toBeUndefined();
    // Written by lines, then changed by another program: read from the disk.
    await writeWithLines(path, object, "sessions", lines);
    await writeFile(path, (await readFile(path, "utf8")).replace("héllo", "hallo"));
    expect(await writtenLines(path, "sessions")).toBeUndefined();
  });

  it("hands nothing over outside a study whose lock this process holds", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "colloquy-written-lines-")), "topics.json");
    const lines = entries.map(hashedLine);
    await writeWithLines(path, { trees: lines }, "trees", lines);
    expect(await writtenLines(path, "trees")).toBeUndefined();
    expect(splitLineArray(await readFile(path), "trees")).toBeDefined();
  });
});
