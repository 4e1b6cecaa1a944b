import { describe, expect, it } from "vitest";
import { cannotReach, chooseTest, decisionTable, testTwoGroups } from "../../../src/analysis/inference/index.js";

describe("testTwoGroups: one pre-declared test per question", () => {
  it("3 vs 3 sessions: says plainly that the permutation test cannot reach .05 (its exact p is kept for the family)", () => {
    const t = testTwoGroups("between", [5, 9, 7], [1, 2, 4], { unit: "session" });
    expect(t.test).toBe("permutation");
    expect(t.p).toBeCloseTo(0.1, 12);
    expect(t.smallestP).toBeCloseTo(0.1, 12);
    expect(cannotReach(t)).toBe(true);
    expect(t.note).toMatch(
      /3 vs 3 sessions: the smallest two-sided p this test can give is \.10, so it cannot reach p < \.05; read p and the effect size as descriptive/,
    );
    expect(t.effectSizeName).toBe("Hedges' g");
    expect(t.effectSize).toBeGreaterThan(1);
    expect(t.mde80).toBeCloseTo(3.035252295614148, 6);
    expect(cannotReach(testTwoGroups("between", [12, 15, 9, 20], [7, 6, 11, 5], { unit: "session" }))).toBe(false);
  });

  it("paired tests: only the pairs that differ count toward the smallest p (a zero difference flips to itself)", () => {
    // 6 pairs, 3 of them equal: 2^3 sign patterns, so the smallest two-sided p is 2/8, not 2/64.
    const t = testTwoGroups("within", [4, 6, 8, 5, 5, 5], [1, 2, 3, 5, 5, 5], { unit: "participant" });
    expect(t.smallestP).toBeCloseTo(0.25, 12);
    expect(cannotReach(t)).toBe(true);
    expect(t.note).toMatch(/cannot reach p < \.05/);
    expect(testTwoGroups("within", [4, 6, 8, 9, 7, 6], [1, 2, 3, 5, 5, 5], { unit: "participant" }).smallestP).toBeCloseTo(2 / 64, 12);
  });

  it("4 vs 4 sessions: an exact permutation test, Hedges' g with a bootstrap interval, and the minimum detectable effect", () => {
    const t = testTwoGroups("between", [12, 15, 9, 20], [7, 6, 11, 5], { unit: "session" });
    expect(t.method).toBe("exact (70 arrangements)");
    expect(t.p).toBeCloseTo(0.05714285714285714, 12);
    expect(t.smallestP).toBeCloseTo(2 / 70, 12);
    expect(t.mde80).toBeCloseTo(2.3706568976044298, 6);
    // 4 a side is too few for a bootstrap interval of g (see the next test).
    expect(t.effectCi95).toBeNull();
    expect(t.effectCiMethod).toMatch(/no interval: fewer than 10 sessions in a condition/);
  });

  it("no effect-size interval below 10 units a side: it would exclude 0 beside a p of .76 (ChatCollab, 9 vs 3 sessions)", () => {
    // asks-orientation acts per session, gives_* (9 sessions) vs control (3), rules coder.
    // python: stats.permutation_test -> p 0.7636; the percentile bootstrap of g gives [0.34, 1.38]
    // (every resample of the control is [0, 0, 0], so no resampled g is below 0).
    const t = testTwoGroups("between", [1, 0, 1, 0, 0, 0, 0, 0, 1], [0, 0, 0], { unit: "session" });
    expect(t.p).toBeCloseTo(0.7636363636363637, 12);
    expect(t.effectSize).toBeCloseTo(0.6877, 3);
    expect(t.effectCi95).toBeNull();
    expect(t.effectCiMethod).toMatch(/fewer than 10 sessions in a condition/);
  });

  it("10 or more units a side: Hedges' g with a seeded bootstrap interval", () => {
    const x = [12, 15, 9, 20, 14, 11, 17, 13, 16, 10];
    const y = [7, 6, 11, 5, 9, 8, 4, 10, 6, 7];
    const t = testTwoGroups("between", x, y, { unit: "session" });
    expect(t.effectCi95![0]).toBeLessThan(t.effectSize!);
    expect(t.effectCi95![1]).toBeGreaterThan(t.effectSize!);
    expect(t.effectCiMethod).toMatch(/percentile bootstrap over sessions \(2000 resamples, seed 1/);
    // Seeded: the same interval every run.
    expect(testTwoGroups("between", x, y, { unit: "session" }).effectCi95).toEqual(t.effectCi95);
  });

  it("named alternatives of the same design run instead of the default, never beside it", () => {
    const mw = testTwoGroups("between", [12, 15, 9, 20], [7, 6, 11, 5], { unit: "session", test: "mann-whitney" });
    expect(mw.statisticName).toBe("U");
    expect(mw.effectSizeName).toBe("Cliff's delta");
    expect(mw.effectSize).toBeCloseTo(0.875, 12);
    const w = testTwoGroups("within", [10, 12, 9, 14, 11, 13], [8, 12, 7, 10, 12, 9], { unit: "participant", test: "wilcoxon" });
    expect(w.effectSizeName).toBe("matched-pairs rank-biserial r");
    expect(() => testTwoGroups("within", [1, 2], [1, 2], { unit: "participant", test: "welch" })).toThrow(/between-subject design/);
  });

  it("pairs: 3 people cannot reach .05 (2/8 = .25); 6 can (2/64)", () => {
    expect(testTwoGroups("within", [5, 7, 6], [3, 4, 6.5], { unit: "participant" }).note).toMatch(/3 paired participants: .* \.25/);
    const six = testTwoGroups("within", [10, 12, 9, 14, 11, 13], [8, 12, 7, 10, 12, 9], { unit: "participant" });
    expect(six.test).toBe("paired-permutation");
    expect(six.p).toBeCloseTo(0.125, 12);
    expect(six.effectSizeName).toBe("Hedges' g_z");
  });

  it("every design has exactly one default test", () => {
    for (const design of ["between", "within"] as const) expect(decisionTable.filter((r) => r.design === design && r.default)).toHaveLength(1);
    expect(chooseTest("between").test).toBe("permutation");
    expect(chooseTest("within").test).toBe("paired-permutation");
  });
});
