import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { bootstrapCI, bootstrapMean } from "../../../src/analysis/reliability/bootstrap.js";

/** The mean's bootstrap without a sample buffer must be the general one, bit for bit. */
const viaSamples = (xs: readonly number[], options: { replicates: number; seed: number; confidence?: number }) =>
  bootstrapCI(
    xs.length,
    (sample) => {
      let sum = 0;
      for (let i = 0; i < sample.length; i++) sum += xs[sample[i]];
      return sum / sample.length;
    },
    options,
  );

describe("bootstrapMean", () => {
  it("gives exactly bootstrapCI of the sample mean: same draws, same sums, same interval", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: -5, max: 1e6 }),
        fc.constantFrom(0.9, 0.95, 0.99),
        (xs, replicates, seed, confidence) => {
          expect(bootstrapMean(xs, { replicates, seed, confidence })).toEqual(viaSamples(xs, { replicates, seed, confidence }));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("counts undefined means (no values, or infinite ones) as bootstrapCI does", () => {
    expect(bootstrapMean([], { replicates: 5, seed: 1 })).toEqual(viaSamples([], { replicates: 5, seed: 1 }));
    expect(bootstrapMean([1, Infinity, -Infinity], { replicates: 50, seed: 3 })).toEqual(viaSamples([1, Infinity, -Infinity], { replicates: 50, seed: 3 }));
    expect(() => bootstrapMean([1], { replicates: 0 })).toThrow(/replicates must be a positive integer/);
  });
});
