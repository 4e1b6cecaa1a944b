import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  bootstrapCI,
  cohenKappa,
  cohenKappaInterval,
  confusionMatrix,
  fleissKappa,
  fleissKappaFromRatings,
  gwetAC1,
  krippendorffAlpha,
  krippendorffAlphaInterval,
  mulberry32,
  percentAgreement,
} from "../../../src/analysis/reliability/index.js";

describe("edge cases", () => {
  it("perfect agreement: kappa 1, alpha 1, AC1 1, 100%", () => {
    const a = ["x", "y", "z", "x"];
    expect(cohenKappa(a, a).kappa).toBe(1);
    expect(percentAgreement(a, a)).toEqual({ agreement: 1, agreed: 4, n: 4 });
    expect(krippendorffAlpha([a, a, a], { level: "nominal" }).alpha).toBe(1);
    expect(gwetAC1([a, a]).ac1).toBe(1);
  });

  it("all one category: kappa, Fleiss and alpha are undefined (NaN), AC1 = p_a = 1", () => {
    // Chance agreement is 100% too, so kappa = 0/0: we return NaN rather than pretend a number
    // (sklearn also yields nan). Gwet's AC1 takes p_e = 0 for a single category (irrCAC).
    const a = ["x", "x", "x"];
    const k = cohenKappa(a, a);
    expect(k.kappa).toBeNaN();
    expect(k.observed).toBe(1);
    expect(krippendorffAlpha([a, a], { level: "nominal" }).alpha).toBeNaN();
    expect(fleissKappaFromRatings([a, a, a]).kappa).toBeNaN();
    expect(gwetAC1([a, a]).ac1).toBe(1);
  });

  it("mismatched lengths and missing pairs give errors that say what to do", () => {
    expect(() => cohenKappa([1, 2, 3], [1, 2])).toThrow(/a has 3, b has 2/);
    expect(() => percentAgreement([1, null], [1, 2])).toThrow(/unit 1 has a missing rating \(a\[1\] is null\)/);
    expect(() => cohenKappa([1, NaN], [1, 2])).toThrow(/a\[1\] is NaN/);
    expect(() => krippendorffAlpha([[1, 2], [1]], { level: "nominal" })).toThrow(/coder 1 has 1 ratings but coder 0 has 2/);
    expect(() =>
      krippendorffAlpha(
        [
          ["a", "b"],
          ["a", "b"],
        ],
        { level: "interval" },
      ),
    ).toThrow(/needs numbers, but unit 0 has "a"/);
    expect(() =>
      fleissKappa([
        [1, 2],
        [1, 1],
      ]),
    ).toThrow(/subject 1 has 2 ratings but subject 0 has 3/);
    expect(() => cohenKappa([1, "a"], [1, "a"])).toThrow(/mix numbers and strings/);
  });

  it("alpha treats null, undefined and NaN as missing and drops units with < 2 values", () => {
    const r = krippendorffAlpha(
      [
        [1, 2, null, 3],
        [1, 2, 5, NaN],
        [undefined, 3, null, 3],
      ],
      { level: "interval" },
    );
    expect(r.unitsDropped).toBe(1);
    expect(r.unitsPairable).toBe(3);
    expect(r.nPairable).toBe(7);
  });

  it("confusion matrix rows are coder a, columns coder b; labels given leave out others (counted)", () => {
    const cm = confusionMatrix(["x", "x", "y", "z"], ["x", "y", "y", "z"], ["x", "y"]);
    expect(cm.matrix).toEqual([
      [1, 1],
      [0, 1],
    ]);
    expect(cm.excluded).toBe(1);
  });

  it("weighted kappa follows the given label order", () => {
    const a = ["low", "mid", "high", "mid"];
    const b = ["low", "high", "high", "low"];
    const ordered = cohenKappa(a, b, { weights: "linear", labels: ["low", "mid", "high"] });
    const alphabetical = cohenKappa(a, b, { weights: "linear" });
    expect(ordered.kappa).not.toBeCloseTo(alphabetical.kappa, 6);
  });
});

describe("properties", () => {
  const labels = fc.constantFrom("a", "b", "c", "d");
  const pairs = fc.array(fc.tuple(labels, labels), { minLength: 2, maxLength: 60 });

  it("Cohen's kappa is symmetric in the two coders (all weightings)", () => {
    fc.assert(
      fc.property(pairs, fc.constantFrom(undefined, "linear" as const, "quadratic" as const), (ps, weights) => {
        const a = ps.map((p) => p[0]);
        const b = ps.map((p) => p[1]);
        const k1 = cohenKappa(a, b, { weights }).kappa;
        const k2 = cohenKappa(b, a, { weights }).kappa;
        if (Number.isNaN(k1)) expect(k2).toBeNaN();
        else expect(k1).toBeCloseTo(k2, 12);
      }),
    );
  });

  it("nominal alpha does not change when categories are renamed", () => {
    const rename: Record<string, string> = { a: "zeta", b: "alpha", c: "mu", d: "beta" };
    const cell = fc.option(labels, { nil: null, freq: 4 });
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell, cell), { minLength: 3, maxLength: 30 }), (units) => {
        const ratings = [0, 1, 2].map((c) => units.map((u) => u[c]));
        const renamed = ratings.map((row) => row.map((v) => (v === null ? null : rename[v])));
        const x = krippendorffAlpha(ratings, { level: "nominal" }).alpha;
        const y = krippendorffAlpha(renamed, { level: "nominal" }).alpha;
        if (Number.isNaN(x)) expect(y).toBeNaN();
        else expect(x).toBeCloseTo(y, 12);
      }),
    );
  });

  it("generalised Fleiss equals Fleiss on complete data; alpha is invariant to coder order", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(labels, labels, labels), { minLength: 2, maxLength: 30 }), (units) => {
        const ratings = [0, 1, 2].map((c) => units.map((u) => u[c]));
        const cats = ["a", "b", "c", "d"];
        const counts = units.map((u) => cats.map((c) => u.filter((v) => v === c).length));
        const f1 = fleissKappa(counts).kappa;
        const f2 = fleissKappaFromRatings(ratings, cats).kappa;
        if (Number.isNaN(f1)) expect(f2).toBeNaN();
        else expect(f1).toBeCloseTo(f2, 12);
        const a1 = krippendorffAlpha(ratings, { level: "ordinal" }).alpha;
        const a2 = krippendorffAlpha([ratings[2], ratings[0], ratings[1]], { level: "ordinal" }).alpha;
        if (Number.isNaN(a1)) expect(a2).toBeNaN();
        else expect(a1).toBeCloseTo(a2, 12);
      }),
    );
  });
});

describe("bootstrap", () => {
  const a = Array.from({ length: 200 }, (_, i) => ["p", "q", "r"][i % 3]);
  const random = mulberry32(5);
  const b = a.map((v) => (random() < 0.8 ? v : ["p", "q", "r"][Math.floor(random() * 3)]));

  it("mulberry32 is deterministic and uniform-looking", () => {
    const x = mulberry32(42);
    const y = mulberry32(42);
    const xs = Array.from({ length: 1000 }, () => x());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => y()));
    const mean = xs.reduce((s, v) => s + v, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });

  it("same seed, same interval; the interval brackets the estimate", () => {
    const k = cohenKappa(a, b).kappa;
    const ci1 = cohenKappaInterval(a, b, { seed: 7, replicates: 500 });
    const ci2 = cohenKappaInterval(a, b, { seed: 7, replicates: 500 });
    expect(ci1).toEqual(ci2);
    expect(ci1.lower).toBeLessThan(k);
    expect(ci1.upper).toBeGreaterThan(k);
    expect(ci1.upper - ci1.lower).toBeLessThan(0.3);
    expect(cohenKappaInterval(a, b, { seed: 8, replicates: 500 }).lower).not.toBe(ci1.lower);
  });

  it("the multinomial pattern bootstrap agrees with the plain per-unit bootstrap", () => {
    // Same distribution, different random streams: with 2000 replicates the percentile bounds
    // agree to within Monte Carlo error (~0.01 here).
    const slow = bootstrapCI(
      a.length,
      (s) =>
        cohenKappa(
          Array.from(s, (u) => a[u]),
          Array.from(s, (u) => b[u]),
          { labels: ["p", "q", "r"] },
        ).kappa,
      { seed: 9, replicates: 2000 },
    );
    const fast = cohenKappaInterval(a, b, { seed: 9, replicates: 2000, labels: ["p", "q", "r"] });
    expect(Math.abs(fast.lower - slow.lower)).toBeLessThan(0.02);
    expect(Math.abs(fast.upper - slow.upper)).toBeLessThan(0.02);
    const c = b.map((v, i) => (i % 7 === 0 ? null : v));
    const slowAlpha = bootstrapCI(
      a.length,
      (s) => krippendorffAlpha([Array.from(s, (u) => a[u]), Array.from(s, (u) => b[u]), Array.from(s, (u) => c[u])], { level: "nominal" }).alpha,
      { seed: 4, replicates: 1000 },
    );
    const fastAlpha = krippendorffAlphaInterval([a, b, c], { level: "nominal", seed: 4, replicates: 1000 });
    expect(Math.abs(fastAlpha.lower - slowAlpha.lower)).toBeLessThan(0.02);
    expect(Math.abs(fastAlpha.upper - slowAlpha.upper)).toBeLessThan(0.02);
  });

  it("alpha interval brackets alpha", () => {
    const alpha = krippendorffAlpha([a, b], { level: "nominal" }).alpha;
    const ci = krippendorffAlphaInterval([a, b], { level: "nominal", seed: 3, replicates: 400 });
    expect(ci.lower).toBeLessThan(alpha);
    expect(ci.upper).toBeGreaterThan(alpha);
    expect(ci.confidence).toBe(0.95);
  });
});

describe("agreement core", () => {
  it("alpha from weighted rating patterns equals alpha over the units", async () => {
    const { analyseVariable } = await import("../../../src/analysis/agreement/core.js");
    const random = mulberry32(12);
    const x = Array.from({ length: 300 }, () => 1 + Math.floor(random() * 5));
    const y = x.map((v) => (random() < 0.6 ? v : 1 + Math.floor(random() * 5)));
    const z = x.map((v, i) => (i % 5 === 0 ? null : random() < 0.5 ? v : 1 + Math.floor(random() * 5)));
    const v = analyseVariable({
      name: "s",
      level: "ordinal",
      coders: ["x", "y", "z"],
      ratings: [x, y, z],
      reference: "x",
      seed: 1,
      bootstrap: 0,
      labels: [1, 2, 3, 4, 5],
    });
    for (const a of v.alpha) expect(a.alpha).toBeCloseTo(krippendorffAlpha([x, y, z], { level: a.level, order: [1, 2, 3, 4, 5] }).alpha, 12);
    expect(v.alpha[0].unitsPairable).toBe(300);
    expect(v.pairs).toHaveLength(3);
  });
});
