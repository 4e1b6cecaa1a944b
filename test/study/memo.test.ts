import { describe, expect, it } from "vitest";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoPath, openMemo } from "../../src/study/memo.js";

/** The memo keeps one file per entry: a run writes what it computed, reads what it asks for, and deletes what it did not use. */
describe("the memo's entries on disk", () => {
  const entries = async (dir: string) => (await readdir(memoPath(dir, ["test", "a/b"]))).sort();

  it("writes only the entries a run computed, drops those it did not use, and recomputes a torn one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-memo-"));
    try {
      const first = await openMemo<number[]>(dir, ["test", "a/b"], { x: 1 });
      for (const id of ["s1", "s2", "s3"]) first.get(id, `${id}-v1`, () => [id.length, NaN]);
      await first.save();
      const written = await entries(dir);
      expect(written).toHaveLength(3);
      const times = await Promise.all(written.map(async (f) => (await stat(join(memoPath(dir, ["test", "a/b"]), f))).mtimeMs));

      // s2 edited, s3 removed, s4 added: s1 is read back, not written again.
      const second = await openMemo<number[]>(dir, ["test", "a/b"], { x: 1 });
      const computed: string[] = [];
      const get = (id: string, inputs: string) => second.get(id, inputs, () => (computed.push(id), [id.length, 0]));
      expect(get("s1", "s1-v1")).toEqual([2, NaN]);
      get("s2", "s2-v2");
      get("s4", "s4-v1");
      expect(computed).toEqual(["s2", "s4"]);
      expect(second.stats).toEqual({ reused: 1, computed: 2 });
      await second.save();
      const after = await entries(dir);
      expect(after).toHaveLength(3);
      const kept = written.filter((f) => after.includes(f));
      expect(kept).toHaveLength(1);
      expect((await stat(join(memoPath(dir, ["test", "a/b"]), kept[0]))).mtimeMs).toBe(times[written.indexOf(kept[0])]);

      // A torn entry is recomputed, never trusted; other settings share nothing.
      for (const f of after) await writeFile(join(memoPath(dir, ["test", "a/b"]), f), "torn");
      const third = await openMemo<number[]>(dir, ["test", "a/b"], { x: 1 });
      expect(third.get("s1", "s1-v1", () => [7])).toEqual([7]);
      // getAsync reads what it needs only when nothing is kept, and counts a torn entry once.
      let reads = 0;
      const load = async () => (reads++, [8]);
      expect(await third.getAsync("s4", "s4-v1", load)).toEqual([8]);
      expect(await third.getAsync("s4", "s4-v1", load)).toEqual([8]);
      expect(reads).toBe(1);
      expect(third.stats).toEqual({ reused: 0, computed: 2 });
      const other = await openMemo<number[]>(dir, ["test", "a/b"], { x: 2 });
      expect(other.kept("s1", "s1-v1")).toBeUndefined();
      // A torn entry is not kept, as `get` would compute it.
      expect((await openMemo<number[]>(dir, ["test", "a/b"], { x: 1 })).kept("s1", "s1-v1")).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
