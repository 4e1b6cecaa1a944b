import { describe, expect, it } from "vitest";
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openKeyedLog } from "../../src/util/keyed-log.js";
import { ownWrites, writtenSince } from "../../src/util/known-bytes.js";

describe("a keyed log", () => {
  it("appends the entries a save adds, noted as this process's own write, and reads them back", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "colloquy-keyed-log-")), "cache.v8");
    const first = await openKeyedLog<number>(path, "v1");
    await first.save(new Map([["a", 1]]), ["a"]);
    const size = (await stat(path)).size;
    const before = ownWrites();
    const second = await openKeyedLog<number>(path, "v1");
    await second.save(new Map([...second.stored, ["b", Number.NaN]]), ["b"]);
    // Appended (the file grew from its bytes as they were), and known to have been written.
    expect((await stat(path)).size).toBeGreaterThan(size);
    expect(writtenSince(path, before)).toBe(true);
    expect([...(await openKeyedLog<number>(path, "v1")).stored]).toEqual([
      ["a", 1],
      ["b", Number.NaN],
    ]);
  });
});
