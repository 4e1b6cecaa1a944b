// What a careful reviewer checks in a results section: exact tests where chi-square's
// approximation fails, effect sizes on every line, intervals inside the possible range.
// Reference values: SciPy 1.17.1 (python3 on this machine), each call named beside its case, and
// the published worked example of Lakens (2013), "Calculating and reporting effect sizes", Table 1.
import { describe, expect, it } from "vitest";
import { fisherExact, hedgesG, pairedTTest } from "../../../src/analysis/inference/index.js";
import { cohensDz } from "../../../src/analysis/inference/effect.js";
import { compareMeasures, meanBootstrapInterval, summariseValues, type MeasureComparison } from "../../../src/analysis/concepts/conditions.js";
import { DEFAULT_INFERENCE, type InferenceSettings } from "../../../src/analysis/shared/design.js";

/** One measure compared: `unit` is a person (within: paired by id) or a session (between). */
function compareMeasure(
  values: { unit: string; condition: string; value: number | null }[],
  design: "within" | "between" = "between",
  options: { control?: string; inference?: Partial<InferenceSettings> } = {},
): MeasureComparison {
  const inference: InferenceSettings = {
    ...DEFAULT_INFERENCE,
    design: { ...DEFAULT_INFERENCE.design, design, unit: design === "within" ? "participant" : "session" },
    ...options.inference,
  };
  const asValues = values.map((v) =>
    design === "within"
      ? { session: `${v.unit}/${v.condition}`, participant: v.unit, condition: v.condition, value: v.value }
      : { session: v.unit, condition: v.condition, value: v.value },
  );
  const persons = new Map(values.map((v) => [`${v.unit}/${v.condition}`, [v.unit]]));
  return compareMeasures([{ measure: "m", level: "participant", values: asValues }], { inference, persons, control: options.control })[0];
}

function close(actual: number, expected: number, tolerance = 1e-9): void {
  expect(Math.abs(actual - expected), `actual ${actual} expected ${expected}`).toBeLessThanOrEqual(tolerance + tolerance * Math.abs(expected));
}

describe("fisherExact vs scipy.stats.fisher_exact (two-sided)", () => {
  const cases: [number[][], number, number][] = [
    // The whales and sharks example of SciPy's documentation.
    [
      [
        [8, 2],
        [1, 5],
      ],
      20.0,
      0.034965034965034975,
    ],
    // Fisher's lady tasting tea, two-sided: 34/70.
    [
      [
        [3, 1],
        [1, 3],
      ],
      9.0,
      0.48571428571428565,
    ],
    [
      [
        [1, 3],
        [0, 4],
      ],
      Infinity,
      1.0,
    ],
    [
      [
        [12, 5],
        [3, 20],
      ],
      16.0,
      0.0002999894216743347,
    ],
    [
      [
        [0, 7],
        [9, 2],
      ],
      0.0,
      0.002262443438914028,
    ],
    [
      [
        [3, 1],
        [1, 4],
      ],
      12.0,
      0.2063492063492063,
    ],
  ];
  for (const [table, oddsRatio, p] of cases) {
    it(`fisher_exact(${JSON.stringify(table)}) -> ${oddsRatio}, ${p}`, () => {
      const r = fisherExact(table);
      if (Number.isFinite(oddsRatio)) close(r.oddsRatio, oddsRatio);
      else expect(r.oddsRatio).toBe(oddsRatio);
      close(r.p, p);
    });
  }
  it("refuses what is not a 2×2 table of counts", () => {
    expect(() =>
      fisherExact([
        [1, 2, 3],
        [4, 5, 6],
      ]),
    ).toThrow(/2×2/);
    expect(() =>
      fisherExact([
        [1.5, 2],
        [3, 4],
      ]),
    ).toThrow(/not a count/);
  });
});

describe("effect sizes: Lakens (2013) worked example (movie ratings, n = 10 per group)", () => {
  const movie1 = [9, 7, 8, 9, 8, 9, 9, 10, 9, 9];
  const movie2 = [9, 6, 7, 8, 7, 9, 8, 8, 8, 7];
  it("Hedges' g_s = 1.08 between subjects", () => {
    expect(hedgesG(movie1, movie2)!.toFixed(2)).toBe("1.08");
    expect(hedgesG(movie2, movie1)!.toFixed(2)).toBe("-1.08");
  });
  it("Cohen's d_z = 1.50 within subjects; compareMeasures reports Hedges' g_z (d_z × J) and, between, Hedges' g = 1.08", () => {
    const r = pairedTTest(movie1, movie2);
    expect((r.meanDiff / (r.se * Math.sqrt(r.n))).toFixed(2)).toBe("1.50");
    const values = movie1.flatMap((v, i) => [
      { unit: `p${i}`, condition: "one", value: v },
      { unit: `p${i}`, condition: "two", value: movie2[i] },
    ]);
    const t = compareMeasure(values, "within", { control: "two" }).tests[0];
    expect(t.effectSizeName).toBe("Hedges' g_z");
    // J = 1 - 3 / (4 · 9 - 1) with df = n - 1 = 9.
    expect(t.effectSize).toBeCloseTo(cohensDz(movie1, movie2)! * (1 - 3 / 35), 12);
    const b = compareMeasure(
      values.map((v) => ({ ...v, unit: `${v.unit}-${v.condition}` })),
      "between",
      { control: "two" },
    ).tests[0];
    expect(b.effectSizeName).toBe("Hedges' g");
    expect(b.effectSize!.toFixed(2)).toBe("1.08");
  });
  it("cohensDz is the one Cohen's d_z, used by compare and compareMeasure alike", () => {
    expect(cohensDz(movie1, movie2)!.toFixed(2)).toBe("1.50");
    expect(cohensDz(movie2, movie1)!.toFixed(2)).toBe("-1.50");
    expect(cohensDz([1, 2, 3], [0, 1, 2])).toBeNull();
    expect(cohensDz([1], [0])).toBeNull();
  });
  it("hedgesG is null, not NaN, without spread or with one value", () => {
    expect(hedgesG([1, 1], [1, 1])).toBeNull();
    expect(hedgesG([1], [1, 2])).toBeNull();
  });
});

describe("intervals of a mean stay inside the possible range", () => {
  it("a skewed non-negative sample gets a bootstrap interval above 0 (a t interval would go below)", () => {
    const ratios = [0.5, 0.6, 0.7, 3.0, 0.55, 0.65, 0.6, 0.8];
    const s = summariseValues(ratios);
    expect(s.ciMethod).toMatch(/percentile bootstrap/);
    const [lo, hi] = s.ci95!;
    expect(lo).toBeGreaterThanOrEqual(Math.min(...ratios));
    expect(hi).toBeLessThanOrEqual(Math.max(...ratios));
    // scipy.stats.bootstrap((x,), np.mean, method='percentile', n_resamples=20000) -> [0.581, 1.538];
    // resampling differs, so agreement is to Monte Carlo error.
    close(lo, 0.58125, 0.08);
    close(hi, 1.5375, 0.08);
    // The same seed gives the same interval.
    expect(meanBootstrapInterval(ratios)).toEqual(s.ci95);
  });
  it("n = 2 gets no interval and says why (the old t interval of [0.5, 3.0] went down to -14.8)", () => {
    const s = summariseValues([0.5, 3.0]);
    expect(s.ci95).toBeNull();
    expect(s.ciNote).toMatch(/n = 2: too few values/);
  });
  it("below n = 10 the interval says it is too narrow (percentile bootstrap undercovers at small n)", () => {
    for (const n of [3, 5, 9]) {
      const s = summariseValues(Array.from({ length: n }, (_, i) => i + 1));
      expect(s.ci95).not.toBeNull();
      expect(s.ciNote, `n = ${n}`).toMatch(new RegExp(`n = ${n}: a percentile bootstrap interval is too narrow with fewer than 10 values`));
    }
    expect(summariseValues(Array.from({ length: 10 }, (_, i) => i + 1)).ciNote).toBeUndefined();
    // The note reaches the topics and concepts files through compareMeasure's per-condition summaries.
    const values = [1, 2, 4, 7].map((v, i) => ({ unit: `u${i}`, condition: "x", value: v }));
    expect(compareMeasure(values).byCondition.x.ciNote).toMatch(/too narrow/);
  });
  it("never leaves [min, max] for any small sample", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const xs = Array.from({ length: 3 + (seed % 5) }, (_, i) => ((seed * 7919 + i * 104729) % 97) / 10);
      const [lo, hi] = summariseValues(xs).ci95!;
      expect(lo).toBeGreaterThanOrEqual(Math.min(...xs));
      expect(hi).toBeLessThanOrEqual(Math.max(...xs));
    }
  });
});

describe("compareMeasures: every test line has its numbers or a reason", () => {
  it("a Welch test whose samples do not vary says why it has no statistic", () => {
    const values = [
      { unit: "a", condition: "x", value: 1 },
      { unit: "b", condition: "x", value: 1 },
      { unit: "c", condition: "y", value: 1 },
      { unit: "d", condition: "y", value: 1 },
    ];
    const c = compareMeasure(values, "between", { inference: { test: "welch" } });
    expect(c.tests).toHaveLength(1);
    expect(c.tests[0].test).toBe("welch");
    expect(c.tests[0].skipped).toMatch(/every value is the same/);
  });
  it("says when the n cannot reach .05 and names where the design came from", () => {
    const values = [1, 2, 3].flatMap((v, i) => [
      { unit: `p${i}`, condition: "x", value: v },
      { unit: `p${i}`, condition: "y", value: v * 2 + i },
    ]);
    const c = compareMeasure(values, "within");
    expect(c.designSource).toBe("default");
    expect(c.tests[0].note).toMatch(/3 paired participants: the smallest two-sided p this test can give is \.25/);
  });
  it("a within design with nothing to pair says so and how to fix it", () => {
    const values = [
      { unit: "a", condition: "x", value: 1 },
      { unit: "b", condition: "x", value: 2 },
      { unit: "c", condition: "y", value: 3 },
    ];
    const c = compareMeasure(values, "within");
    expect(c.tests[0].skipped).toMatch(/nothing can be paired.*"between"/);
  });
});
