import { describe, expect, it } from "vitest";
import { firstMentionSeries, groupBy, labelMap, positions, sortByOrder, type FirstMentionLike } from "../../web/lib/indexing.js";

// The dashboard's indexing helpers are pure (no DOM), so they are tested here in Node. Speed is
// measured by bench/dashboard.ts; these tests count work instead, so they cannot flake on timing.

describe("firstMentionSeries (topics view: first mentions of concepts over time)", () => {
  it("one series per session in order of first mention, times sorted, condition of the first mention", () => {
    const mentions: FirstMentionLike[] = [
      { session: "b", condition: "debate", time: 30 },
      { session: "a", condition: "control", time: 12 },
      { session: "b", condition: "debate", time: 5 },
      { session: "a", time: 0 },
      { session: "c", time: 7 },
      { session: "b", condition: "debate", time: 18 },
      { session: "c", condition: "late", time: 1 },
    ];
    expect(firstMentionSeries(mentions)).toEqual([
      { session: "b", condition: "debate", times: [5, 18, 30] },
      { session: "a", condition: "control", times: [0, 12] },
      // The first listed mention of c has no condition: "" (as the view's find(...)?.condition ?? "").
      { session: "c", condition: "", times: [1, 7] },
    ]);
    expect(firstMentionSeries([])).toEqual([]);
  });

  it("reads each mention's session once (a scan of all mentions per session would read it once per session)", () => {
    const sessions = 300;
    const perSession = 4;
    let reads = 0;
    const mentions: FirstMentionLike[] = [];
    for (let i = 0; i < sessions * perSession; i++) {
      const session = `s${i % sessions}`;
      mentions.push({
        get session() {
          reads++;
          return session;
        },
        condition: "c",
        time: (i * 7919) % 1000,
      });
    }
    const series = firstMentionSeries(mentions);
    expect(series).toHaveLength(sessions);
    expect(series.every((s) => s.times.length === perSession && s.times.every((t, i) => i === 0 || s.times[i - 1] <= t))).toBe(true);
    // Linear: exactly one read per mention. The old filter + find per session read each ~300 times.
    expect(reads).toBe(mentions.length);
  });
});

describe("positions, sortByOrder, groupBy, labelMap", () => {
  it("positions are those of indexOf: first occurrence, -1 when absent", () => {
    const order = ["x", "y", "x", "z"];
    const at = positions(order);
    for (const v of ["x", "y", "z", "w"]) expect(at(v)).toBe(order.indexOf(v));
  });

  it("sortByOrder sorts as sort((a, b) => order.indexOf(a) - order.indexOf(b)): stable, unknown first", () => {
    const order = ["c0", "c1", "c2"];
    const items = [
      { k: "c2", n: 1 },
      { k: "zz", n: 2 },
      { k: "c0", n: 3 },
      { k: "c2", n: 4 },
      { k: "c1", n: 5 },
      { k: "c0", n: 6 },
    ];
    const expected = [...items].sort((a, b) => order.indexOf(a.k) - order.indexOf(b.k));
    expect(sortByOrder(items, order, (i) => i.k)).toEqual(expected);
    expect(sortByOrder(items, order, (i) => i.k).map((i) => i.n)).toEqual([2, 3, 6, 5, 1, 4]);
    // The input is not reordered.
    expect(items.map((i) => i.n)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("groupBy keeps first-appearance order of keys and input order within groups", () => {
    const groups = groupBy(["b1", "a1", "b2", "c1", "a2"], (s) => s[0]);
    expect([...groups]).toEqual([
      ["b", ["b1", "b2"]],
      ["a", ["a1", "a2"]],
      ["c", ["c1"]],
    ]);
  });

  it("labelMap keeps the first label per id, as find would", () => {
    const labels = labelMap([
      { id: "a", label: "Agrees" },
      { id: "b", label: "Builds" },
      { id: "a", label: "Other" },
    ]);
    expect(labels.get("a")).toBe("Agrees");
    expect(labels.get("b")).toBe("Builds");
    expect(labels.get("c")).toBeUndefined();
  });
});
