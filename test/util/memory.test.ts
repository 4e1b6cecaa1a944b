import { describe, expect, it } from "vitest";
import { PerformanceObserver, constants } from "node:perf_hooks";
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

  it("collectGarbage runs a full collection after the heap grew, and none right after when it did not", async () => {
    const major: number[] = [];
    const observer = new PerformanceObserver((list) => {
      // A "gc" entry's detail says which kind of collection it was (Node's own type omits it).
      for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[])
        if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major.push(entry.startTime);
    });
    observer.observe({ entryTypes: ["gc"] });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    try {
      // 64 MB of garbage: more than the minimum growth, whatever the last collection left.
      let garbage: number[][] | null = Array.from({ length: 64 }, () => new Array<number>(MB / 8).fill(1.5));
      expect(garbage.length).toBe(64);
      garbage = null;
      collectGarbage();
      await settle();
      const afterFirst = major.length;
      expect(afterFirst).toBeGreaterThan(0);
      collectGarbage(); // the heap did not grow since: no collection
      await settle();
      expect(major.length).toBe(afterFirst);
    } finally {
      observer.disconnect();
    }
  });
});
