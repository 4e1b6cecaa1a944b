import { describe, expect, it } from "vitest";
import { effectSize, EFFECT_REPLICATES, resampledEffects, type EffectSize } from "../../../src/analysis/inference/effect-sizes.js";
import { mulberry32 } from "../../../src/util/random.js";

/** The bootstrap as its definition reads: draw the resample (same stream, same order), copy it, compute the effect size on the copy. */
function byDefinition(effect: EffectSize, x: number[], y: number[], seed: number): number[] {
  const random = mulberry32(seed);
  const draw = (n: number) => Math.floor(random() * n);
  const out: number[] = [];
  for (let b = 0; b < EFFECT_REPLICATES; b++) {
    let xs: number[];
    let ys: number[];
    if (effect === "hedges-gz") {
      const picks = x.map(() => draw(x.length));
      xs = picks.map((j) => x[j]);
      ys = picks.map((j) => y[j]);
    } else {
      xs = x.map(() => x[draw(x.length)]);
      ys = y.map(() => y[draw(y.length)]);
    }
    out.push(effectSize(effect, xs, ys) ?? NaN);
  }
  return out;
}

describe("bootstrap resamples of an effect size", () => {
  const random = mulberry32(42);
  const rates = (n: number, shift: number) => Array.from({ length: n }, () => Math.round((random() * 0.3 + shift) * 1000) / 1000);

  it.each(["hedges-g", "hedges-gz"] as const)("%s, summed as units are drawn, equals the copy-and-compute definition to 1e-9", (effect) => {
    for (const [x, y, seed] of [
      [rates(5, 0.1), rates(5, 0.2), 1],
      [rates(40, 0.4), rates(40, 0.35), 7],
      [rates(333, 100), rates(333, 100.01), 3],
    ] as const) {
      const fast = Array.from(resampledEffects(effect, x, y, seed));
      const slow = byDefinition(effect, x, y, seed);
      expect(fast.length).toBe(slow.length);
      fast.forEach((v, i) => (Number.isNaN(slow[i]) ? expect(v).toBeNaN() : expect(v).toBeCloseTo(slow[i], 9)));
    }
  });

  it("counts a resample with no spread as undefined, as the two-pass variance does", () => {
    // Three units of one value and one other: some resamples draw only the repeated value.
    const x = [0.1, 0.1, 0.1, 0.7];
    const y = [0.3, 0.3, 0.3, 0.3];
    const fast = Array.from(resampledEffects("hedges-g", x, y, 5));
    const slow = byDefinition("hedges-g", x, y, 5);
    expect(fast.filter(Number.isNaN).length).toBeGreaterThan(0);
    expect(fast.map(Number.isNaN)).toEqual(slow.map(Number.isNaN));
  });

  it("counts values equal in exact arithmetic (0.1 + 0.2 and 0.3) as no spread, not as effect sizes of 1e16", () => {
    const d = Array.from({ length: 10 }, (_, i) => (i % 2 ? 0.1 + 0.2 : 0.3));
    const zeros = d.map(() => 0);
    expect(effectSize("hedges-gz", d, zeros)).toBeNull();
    expect(Array.from(resampledEffects("hedges-gz", d, zeros, 1)).every(Number.isNaN)).toBe(true);
    const x = Array.from({ length: 6 }, (_, i) => (i % 2 ? 1 / 3 : (0.1 + 0.2) / 0.9));
    expect(effectSize("hedges-g", x, [...x])).toBeNull();
    expect(Array.from(resampledEffects("hedges-g", x, [...x], 1)).every(Number.isNaN)).toBe(true);
  });

  it("refuses unpaired samples for a paired effect", () => {
    expect(() => resampledEffects("hedges-gz", [1, 2, 3], [1, 2], 1)).toThrow();
  });
});
