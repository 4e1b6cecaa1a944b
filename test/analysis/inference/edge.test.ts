import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { chiSquare, holm, kendallTau, mannWhitneyU, pairedTTest, spearman, wilcoxonSignedRank } from "../../../src/analysis/inference/index.js";
import { cohensDz, hedgesG } from "../../../src/analysis/inference/effect.js";
import { effectInterval, hedgesGz } from "../../../src/analysis/inference/effect-sizes.js";

describe("holm", () => {
  it("adjusts in input order, monotone, capped at 1 (hand-computed)", () => {
    // sorted: 0.01*4=0.04, 0.02*3=0.06, 0.03*2=0.06, 0.5*1=0.5
    expect(holm([0.03, 0.5, 0.01, 0.02])).toEqual([0.06, 0.5, 0.04, 0.06].map((v) => expect.closeTo(v, 12)));
    expect(holm([0.9, 0.04])).toEqual([0.9, 0.08].map((v) => expect.closeTo(v, 12)));
    expect(holm([0.4, 0.6, 0.7])).toEqual([1, 1, 1]);
  });
  it("passes NaN through without counting it", () => {
    const out = holm([0.01, NaN, 0.04]);
    expect(out[0]).toBeCloseTo(0.02, 12);
    expect(out[1]).toBeNaN();
    expect(out[2]).toBeCloseTo(0.04, 12);
  });
  it("rejects p outside [0, 1]", () => {
    expect(() => holm([1.2])).toThrow(/p-value 0 is 1.2/);
  });
  it("never lowers a p-value and keeps the order of the raw p-values", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 20 }), (ps) => {
        const adj = holm(ps);
        ps.forEach((p, i) => expect(adj[i]).toBeGreaterThanOrEqual(p));
        ps.forEach((p, i) => ps.forEach((q, j) => p < q && expect(adj[i]).toBeLessThanOrEqual(adj[j])));
      }),
    );
  });
});

describe("input errors and degenerate samples", () => {
  it("names the test, the array and the index of a NaN", () => {
    expect(() => wilcoxonSignedRank([1, 2, NaN], [1, 2, 3])).toThrow(/wilcoxonSignedRank: x\[2\] is NaN/);
    expect(() => mannWhitneyU([1], [Infinity])).toThrow(/mannWhitneyU: y\[0\] is Infinity/);
  });
  it("rejects paired samples of different lengths", () => {
    expect(() => pairedTTest([1, 2, 3], [1, 2])).toThrow(/same length \(x has 3, y has 2\)/);
    expect(() => kendallTau([1, 2], [1])).toThrow(/same length/);
  });
  it("wilcoxon with all differences zero: p = 1 (as scipy's permutation path), r undefined", () => {
    const r = wilcoxonSignedRank([1, 2, 3], [1, 2, 3]);
    expect(r).toMatchObject({ W: 0, p: 1, n: 0, nZero: 3, method: "permutation" });
    expect(r.r).toBeNaN();
  });
  it("kendall tau of a constant variable is NaN (as scipy)", () => {
    expect(kendallTau([1, 1, 1], [1, 2, 3]).tau).toBeNaN();
  });
  it("spearman of a perfect monotone relation: rho 1, p 0", () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toMatchObject({ rho: 1, p: 0 });
  });
  it("chiSquare rejects an empty row with a pointer to it", () => {
    expect(() =>
      chiSquare([
        [1, 2],
        [0, 0],
      ]),
    ).toThrow(/row 1 or column 0 sums to 0/);
    expect(() => chiSquare([[1, 2], [3]])).toThrow(/rectangular/);
  });
  it("wilcoxon and Mann-Whitney are symmetric in their two samples", () => {
    const sample = fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 2, maxLength: 15 });
    fc.assert(
      fc.property(sample, sample, (a, b) => {
        const n = Math.min(a.length, b.length);
        const x = a.slice(0, n);
        const y = b.slice(0, n);
        const w1 = wilcoxonSignedRank(x, y);
        const w2 = wilcoxonSignedRank(y, x);
        expect(w1.W).toBe(w2.W);
        expect(w1.p).toBeCloseTo(w2.p, 12);
        const u1 = mannWhitneyU(a, b);
        const u2 = mannWhitneyU(b, a);
        expect(u1.U + u2.U).toBe(a.length * b.length);
        expect(u1.p).toBeCloseTo(u2.p, 12);
      }),
    );
  });
});

describe("kendallTau pair counting", () => {
  /** Brute-force tau-b straight from its definition, to check the table-based counting. */
  function bruteTauB(x: number[], y: number[]): number {
    let s = 0;
    let tx = 0;
    let ty = 0;
    for (let i = 0; i < x.length; i++) {
      for (let j = i + 1; j < x.length; j++) {
        const a = Math.sign(x[i] - x[j]);
        const b = Math.sign(y[i] - y[j]);
        s += a * b;
        tx += a !== 0 ? 1 : 0;
        ty += b !== 0 ? 1 : 0;
      }
    }
    return s / Math.sqrt(tx * ty);
  }
  it("table counting (few distinct values) equals the pairwise definition", () => {
    const scale = fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 7 })), { minLength: 5, maxLength: 80 });
    fc.assert(
      fc.property(scale, (pairs) => {
        const x = pairs.map((p) => p[0]);
        const y = pairs.map((p) => p[1]);
        const expected = bruteTauB(x, y);
        const tau = kendallTau(x, y).tau;
        if (Number.isNaN(expected)) expect(tau).toBeNaN();
        else expect(tau).toBeCloseTo(expected, 12);
      }),
    );
  });
});

describe("mannWhitneyU exact path with a large second sample", () => {
  // python (scipy 1.17.1): stats.mannwhitneyu(x, y) with x 3 values, y 300 values (rng default_rng(5), rounded to 6 decimals, no ties) -> exact method
  it("matches scipy where the U distribution's coefficients are huge", () => {
    const c = {
      x: [-0.001931, -0.524359, 0.551638],
      y: [
        0.420445, 1.136047, 0.109706, -0.552647, -0.78478, 0.748746, 1.634783, 0.272769, -1.233329, -0.958265, 1.600019, 0.202882, -1.732135, -0.083696,
        -1.163226, -0.629288, -0.488006, -0.713313, 0.553378, -0.063086, -0.589431, 0.409638, 0.829855, -1.643023, -0.25673, -0.980747, -0.173155, -1.289419,
        0.02069, -0.037886, -0.304338, -1.047927, -0.39619, -1.091329, -1.355209, 0.224786, -1.10935, 1.170296, 0.716588, -1.997817, 0.272129, -1.101717,
        0.033057, 0.043632, -1.98843, -0.233423, -0.25579, 0.962001, -1.181447, 0.738042, -1.098973, -0.331291, -0.840473, 1.448731, 0.568213, 2.431733,
        0.641916, 0.844993, 0.840683, -0.606612, -0.070028, 1.350389, -0.396551, 0.1888, -0.021223, 0.609216, -0.364909, -0.152362, 0.242381, 0.103023,
        -0.864973, 0.895783, -1.298481, -1.201116, -1.282492, 0.966972, -0.360608, -0.971036, -1.136021, 0.421131, -1.054841, -1.272078, 0.613993, -1.196708,
        -0.322438, -0.006762, -0.445335, -0.054094, 1.338773, -0.516894, -1.259307, -1.836746, -0.204766, -0.352257, 0.265091, -0.464245, -0.478638, -0.721316,
        -0.51976, 0.160227, -0.380353, 0.100442, 1.901187, 0.479118, -1.57609, 1.73353, 0.34781, -0.941413, 0.907049, 0.017656, -0.615219, -0.633509, -0.993432,
        0.048119, 1.068817, -0.325052, 0.420824, 1.875646, -1.214591, 0.257522, -0.306437, -1.059256, -1.025847, -0.015285, 0.433863, -0.53159, 0.054391,
        0.722209, 0.296561, 0.86867, 0.461396, 0.488006, 1.826634, 0.623172, 0.129471, 0.709944, -0.919124, -0.337705, 0.793221, 0.630787, 1.548362, 0.010473,
        -1.462328, 1.947247, 1.092893, -1.058737, 1.375824, 0.032403, -1.813929, -0.420354, -0.508904, 1.590848, -0.792069, -0.253617, -0.276761, -0.378973,
        -0.914074, 0.219087, 1.076805, 0.623978, -0.927499, -1.149816, 0.118974, -0.70658, -0.630166, -1.679695, 1.950492, 0.916619, -0.973907, 0.90821,
        1.342487, -2.389553, -0.548945, -0.387973, 0.648254, -0.121465, -0.230431, -0.058371, 1.853326, 2.15998, -0.524826, -0.926244, 2.692553, -0.979745,
        -0.573402, 0.036582, 0.483246, 1.029036, 0.390977, -0.872383, 0.506382, 0.249918, 1.876919, -0.015, -1.336973, -1.04502, 1.450153, -0.540131, -2.104466,
        -0.5807, 1.5e-5, 1.188831, -1.014468, 0.666683, 0.795299, -0.699388, -0.18759, 1.76945, 1.720485, 0.855522, 0.331946, 1.13831, -0.140677, -0.095093,
        -0.86036, 0.005563, -0.082017, 2.773632, -0.192843, 1.270818, 1.320497, -0.186479, 1.169397, -2.176814, 0.094927, 0.857261, -2.397865, -1.159171,
        1.056074, -0.257011, -1.098199, -0.373596, -0.542588, 0.724447, 0.453886, -0.280228, -0.665343, -0.053876, 1.325156, 0.349026, 0.638946, -0.150682,
        -1.291816, -0.710844, 0.651237, 0.103216, -0.90384, -1.61787, 0.110682, -0.339531, -0.35053, -0.32945, 0.283905, 0.294448, 0.962129, 0.928422, 1.332093,
        0.806363, -0.335608, -0.054269, 0.494215, -0.310292, 0.549439, 1.153609, -0.801246, -1.770384, 1.193655, 0.01776, 0.70867, -1.332305, 1.732993, 0.73862,
        -0.126074, -0.351988, 0.113896, -0.166731, -0.27869, -1.1196, 1.262809, -0.039578, 0.074636, 0.092916, -2.358217, 0.527141, -0.329155, -0.289228,
        0.069788, -0.972476, 0.843381, -0.695865, -0.903658, -0.86219, 0.158753, 0.745779, -0.595053, -1.510187, 1.062491, -1.065084, 1.19483, -0.054296,
      ],
      U: 470.0,
      p: 0.9033238057915053,
    };
    const r = mannWhitneyU(c.x, c.y);
    expect(r.method).toBe("exact");
    expect(r.U).toBe(c.U);
    expect(Math.abs(r.p - c.p)).toBeLessThan(1e-9);
  });
});

describe("effect sizes over values equal but for floating point", () => {
  it("read an SD of rounding noise as no spread: no effect size of 1e16, no such interval bound", () => {
    // 0.1 + 0.2 is 0.30000000000000004: the differences are 0.3 three times in exact arithmetic.
    const x = [0.1 + 0.2, 0.3, 0.3];
    expect(cohensDz(x, [0, 0, 0])).toBeNull();
    expect(hedgesGz(x, [0, 0, 0])).toBeNull();
    expect(hedgesG([0.1 + 0.2, 0.3], [0.3, 0.3])).toBeNull();
    // Resamples without the last pair have no spread: left out and counted, never a bound of 1e16
    // (about a third of the resamples here, 0.9^10, so no interval at all).
    const interval = effectInterval("hedges-gz", [0.1 + 0.2, ...Array<number>(8).fill(0.3), 5], Array<number>(10).fill(0), "participant");
    expect(interval.ci95).toBeNull();
    expect(interval.method).toMatch(/resamples had no spread/);
  });
});
