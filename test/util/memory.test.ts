import { describe, expect, it } from "vitest";
import { getHeapStatistics } from "node:v8";
import { collectGarbage, growthCollector } from "../../src/util/memory.js";

const MB = 1024 * 1024;

describe("a full collection only where the heap grew (issue 33)", () => {
  it("collects once the heap grew by the minimum since the last collection, and skips otherwise", () => {
    let used = 10 * MB;
    let collections = 0;
    const collect = growthCollector(
      () => {
        collections++;
        used = Math.round(used / 2); // half of it was garbage
      },
      () => used,
      32 * MB,
    );
    collect(); // 10 MB in use: a small run's heap is never collected
    expect(collections).toBe(0);
    used = 40 * MB;
    collect(); // grown to 40 MB: collected, 20 MB left
    expect(collections).toBe(1);
    used = 45 * MB;
    collect(); // 25 MB more than after the last collection: skipped
    expect(collections).toBe(1);
    used = 52 * MB;
    collect(); // 32 MB more: collected
    expect(collections).toBe(2);
    collect(); // nothing new since: skipped
    expect(collections).toBe(2);
  });

  it("collectGarbage frees what was let go after the heap grew, and does not collect right after when it did not", () => {
    const used = () => getHeapStatistics().used_heap_size;
    // 64 MB of garbage, let go with nothing allocated after it: more than the minimum growth, whatever the last collection left.
    let garbage: number[][] | null = Array.from({ length: 64 }, () => new Array<number>(MB / 8).fill(1.5));
    expect(garbage.length).toBe(64);
    garbage = null;
    let before = used();
    collectGarbage();
    expect(before - used()).toBeGreaterThan(48 * MB);
    // 8 MB more garbage: too little growth to be worth a collection, so it stays until V8's own.
    garbage = Array.from({ length: 8 }, () => new Array<number>(MB / 8).fill(1.5));
    expect(garbage.length).toBe(8);
    garbage = null;
    before = used();
    collectGarbage();
    expect(before - used()).toBeLessThan(4 * MB);
  });
});
