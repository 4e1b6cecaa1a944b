import { describe, expect, it } from "vitest";
import { sharedDraws } from "../../../src/analysis/inference/draws.js";
import { testTwoGroups } from "../../../src/analysis/inference/two-groups.js";
import { mulberry32 } from "../../../src/util/random.js";

/**
 * The tests of one comparison share one draw of the arrangements (inference/draws.ts): every
 * result must be exactly, bit for bit, what the test gives drawing its own.
 */
describe("draws shared by the tests of one comparison", () => {
  const random = mulberry32(9);
  const counts = (n: number, scale: number) => Array.from({ length: n }, () => Math.floor(random() * scale));

  it.each([
    ["between", "permutation"],
    ["between", "mann-whitney"],
    ["within", "paired-permutation"],
    ["within", "wilcoxon"],
  ] as const)("%s design, %s test: p, effect size and interval equal a test drawing alone", (design, test) => {
    const draws = sharedDraws();
    // Several codes over the same units, then a comparison of other sizes, then the first sizes again.
    const samples = [
      ...[3, 7, 20].map((scale) => [counts(40, scale), counts(design === "within" ? 40 : 37, scale)]),
      [counts(25, 5), counts(25, 9)],
      [counts(40, 4), counts(design === "within" ? 40 : 37, 6)],
    ];
    for (const [x, y] of samples) {
      const alone = testTwoGroups(design, x, y, { unit: "session", test, resamples: 500, seed: 3 });
      const shared = testTwoGroups(design, x, y, { unit: "session", test, resamples: 500, seed: 3, draws });
      expect(shared).toEqual(alone);
      expect(alone.effectCi95).not.toBeNull();
    }
  });

  it("keeps a few sets of draws, not every one made", () => {
    const draws = sharedDraws();
    const first = draws.subsets(10, 12, 100, 1);
    expect(draws.subsets(10, 12, 100, 1)).toBe(first);
    for (let n = 1; n <= 20; n++) draws.subsets(n, 5, 100, 1);
    const again = draws.subsets(10, 12, 100, 1);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
