import { afterEach, describe, expect, it, vi } from "vitest";
import type { Stats } from "node:fs";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A stamp that comes back: on a file system with whole-second times, a file this process writes
 * again with bytes of the same size within the same second (its inode reused) shows the stamp of
 * the write before. Stat is made to show it here, for one path, whatever the file system.
 */
const frozen: { path?: string; stats?: Stats } = {};
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const stat = ((path: string, ...rest: unknown[]) =>
    frozen.path !== undefined && String(path) === frozen.path
      ? Promise.resolve(frozen.stats!)
      : (actual.stat as (...a: unknown[]) => Promise<Stats>)(path, ...rest)) as typeof actual.stat;
  return { ...actual, stat, default: { ...actual, stat } };
});

const { hashedLine, writeWithLines, writtenLines } = await import("../../src/util/written-lines.js");
const { writeFileAtomic } = await import("../../src/util/fs.js");
const { acquireStudyLock } = await import("../../src/study/lock.js");

let release: (() => void) | undefined;
afterEach(() => {
  release?.();
  release = undefined;
  frozen.path = undefined;
});

describe("written lines, when the file's stamp comes back", () => {
  it("hands nothing over after this process wrote the file again, even with the stamp the lines were written under", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-written-lines-stamp-"));
    release = await acquireStudyLock(dir, "test");
    const path = join(dir, "concepts.json");
    const lines = [{ session: "s1", text: "first" }].map(hashedLine);
    await writeWithLines(path, { sessions: lines }, "sessions", lines);
    const written = await readFile(path, "utf8");
    frozen.stats = await stat(path);
    frozen.path = path;
    // Other bytes of the same size, written by this process: stat shows the stamp of the write before.
    await writeFileAtomic(path, written.replace("first", "other"));
    expect(await readFile(path, "utf8")).not.toBe(written);
    expect(await writtenLines(path, "sessions")).toBeUndefined();
  });
});
