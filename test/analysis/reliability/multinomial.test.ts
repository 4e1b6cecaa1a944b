import { describe, expect, it } from "vitest";
import { binomial, multinomial } from "../../../src/analysis/reliability/multinomial.js";
import { mulberry32 } from "../../../src/analysis/reliability/bootstrap.js";
import { chiSquareSf, logGamma } from "../../../src/analysis/inference/distributions.js";

function pmf(n: number, p: number, k: number): number {
  return Math.exp(logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1) + k * Math.log(p) + (n - k) * Math.log1p(-p));
}

describe("binomial sampler", () => {
  it.each([
    [40, 0.3],
    [500, 0.02],
    [10_000, 0.5],
    [200_000, 0.001],
    [1000, 0.97],
  ])("Binomial(%i, %f) passes a chi-square goodness-of-fit test against the exact pmf", (n, p) => {
    const random = mulberry32(n);
    const draws = 20_000;
    const observed = new Map<number, number>();
    for (let i = 0; i < draws; i++) {
      const x = binomial(n, p, random);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(n);
      observed.set(x, (observed.get(x) ?? 0) + 1);
    }
    // Bins with expected count >= 5; the tails pooled into one bin.
    let chi2 = 0;
    let bins = 0;
    let tailObserved = draws;
    let tailExpected = draws;
    for (let k = 0; k <= n; k++) {
      const e = draws * pmf(n, p, k);
      if (e < 5) continue;
      const o = observed.get(k) ?? 0;
      chi2 += (o - e) ** 2 / e;
      tailObserved -= o;
      tailExpected -= e;
      bins++;
    }
    if (tailExpected >= 5) {
      chi2 += (tailObserved - tailExpected) ** 2 / tailExpected;
      bins++;
    }
    expect(chiSquareSf(chi2, bins - 1)).toBeGreaterThan(0.001);
  });
});

describe("multinomial", () => {
  it("sums to n and has the right means", () => {
    const random = mulberry32(3);
    const weights = [500, 300, 150, 49, 1];
    const out = new Float64Array(weights.length);
    const sums = new Array<number>(weights.length).fill(0);
    const reps = 4000;
    for (let r = 0; r < reps; r++) {
      multinomial(1000, weights, random, out);
      expect(out.reduce((a, b) => a + b, 0)).toBe(1000);
      out.forEach((x, i) => (sums[i] += x));
    }
    weights.forEach((w, i) => {
      const mean = sums[i] / reps;
      const sd = Math.sqrt((1000 * (w / 1000) * (1 - w / 1000)) / reps);
      expect(Math.abs(mean - w)).toBeLessThan(5 * sd + 1e-9);
    });
  });
});
