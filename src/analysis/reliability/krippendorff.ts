import { assertRectangular, isMissing, sortedLabels, type Rating } from "./values.js";

/** Metric level of the values, which fixes the difference function δ². */
export type MeasurementLevel = "nominal" | "ordinal" | "interval" | "ratio";

/** Options of {@link krippendorffAlpha}. */
export interface KrippendorffOptions {
  level: MeasurementLevel;
  /** Order of the values for the ordinal metric when they are strings (default: sorted). */
  order?: readonly (string | number)[];
}

/** Result of {@link krippendorffAlpha}. */
export interface KrippendorffAlpha {
  /** α = 1 - D_o / D_e. NaN when D_e = 0 (every pairable value is the same: no variation to agree on). */
  alpha: number;
  /** D_o = (1/n) Σ_c Σ_k o_ck δ²_ck. */
  observedDisagreement: number;
  /** D_e = 1/(n(n-1)) Σ_c Σ_k n_c n_k δ²_ck. */
  expectedDisagreement: number;
  /** n: the number of pairable values (values in units with at least two values). */
  nPairable: number;
  /** Units with at least two values (the only ones that enter α). */
  unitsPairable: number;
  /** Units left out because they hold fewer than two values. */
  unitsDropped: number;
  /** The distinct values, in the order used by the coincidence matrix. */
  values: (string | number)[];
  /** Coincidence matrix o_ck (rows and columns in `values` order). */
  coincidence: number[][];
  level: MeasurementLevel;
}

/**
 * Pairable units in compact form, the input every α computation (and its bootstrap) works
 * from: unit u contributes `entryWeight[e]` to coincidence cell `entryCell[e]` (= c·k + d) for
 * e in [unitOffsets[u], unitOffsets[u+1]). Resampling units then only sums these entries.
 */
export interface AlphaUnits {
  values: (string | number)[];
  unitOffsets: Int32Array;
  entryCell: Int32Array;
  entryWeight: Float64Array;
  /** Number of pairable units. */
  units: number;
  /** Index of each pairable unit in the input (units with < 2 values are skipped). */
  sourceUnit: Int32Array;
  dropped: number;
}

/** Collect pairable units from ratings[coder][unit]. */
export function alphaUnits(ratings: readonly (readonly Rating[])[], options: KrippendorffOptions): AlphaUnits {
  const where = "krippendorffAlpha";
  const nUnits = assertRectangular(ratings, where);
  const perUnit: (string | number)[][] = [];
  const source: number[] = [];
  let dropped = 0;
  for (let u = 0; u < nUnits; u++) {
    const present: (string | number)[] = [];
    for (const row of ratings) {
      const v = row[u];
      if (isMissing(v)) continue;
      if ((options.level === "interval" || options.level === "ratio") && typeof v !== "number") {
        throw new Error(
          `${where}: the ${options.level} level needs numbers, but unit ${u} has ${JSON.stringify(v)}; convert the ratings to numbers or use level "nominal"/"ordinal"`,
        );
      }
      if (options.level === "ratio" && (v as number) < 0) {
        throw new Error(`${where}: the ratio level needs non-negative values, but unit ${u} has ${v}`);
      }
      present.push(v);
    }
    if (present.length >= 2) {
      perUnit.push(present);
      source.push(u);
    } else dropped++;
  }
  let values: (string | number)[];
  if (options.order) {
    values = [...options.order];
    const known = new Set(values);
    for (const unit of perUnit)
      for (const v of unit)
        if (!known.has(v)) throw new Error(`${where}: value ${JSON.stringify(v)} is not in the given order ${JSON.stringify(options.order)}`);
  } else {
    values = sortedLabels(perUnit.flat(), where);
  }
  const k = values.length;
  const index = new Map(values.map((v, i) => [v, i]));
  const offsets = new Int32Array(perUnit.length + 1);
  const cells: number[] = [];
  const weights: number[] = [];
  perUnit.forEach((unit, u) => {
    const counts = new Map<number, number>();
    for (const v of unit) {
      const i = index.get(v)!;
      counts.set(i, (counts.get(i) ?? 0) + 1);
    }
    const m = unit.length;
    // o_ck gains n_uc·n_uk/(m_u - 1) for c ≠ k, and n_uc(n_uc - 1)/(m_u - 1) on the diagonal.
    for (const [c, nc] of counts) {
      for (const [d, nd] of counts) {
        const w = (c === d ? nc * (nc - 1) : nc * nd) / (m - 1);
        if (w === 0) continue;
        cells.push(c * k + d);
        weights.push(w);
      }
    }
    offsets[u + 1] = cells.length;
  });
  return {
    values,
    unitOffsets: offsets,
    entryCell: Int32Array.from(cells),
    entryWeight: Float64Array.from(weights),
    units: perUnit.length,
    sourceUnit: Int32Array.from(source),
    dropped,
  };
}

/** δ²_ck for every pair of value indices, given the value marginals n_c (needed by the ordinal metric). */
function differenceMatrix(level: MeasurementLevel, values: readonly (string | number)[], marginals: readonly number[]): number[][] {
  const k = values.length;
  const delta = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let c = 0; c < k; c++) {
    for (let d = c + 1; d < k; d++) {
      let v: number;
      if (level === "nominal") v = 1;
      else if (level === "ordinal") {
        // Krippendorff: (Σ_{g=c..k} n_g - (n_c + n_k)/2)², over the ranked values between c and k.
        let s = 0;
        for (let g = c; g <= d; g++) s += marginals[g];
        v = (s - (marginals[c] + marginals[d]) / 2) ** 2;
      } else {
        const a = values[c] as number;
        const b = values[d] as number;
        v = level === "interval" ? (a - b) ** 2 : a + b === 0 ? 0 : ((a - b) / (a + b)) ** 2;
      }
      delta[c][d] = v;
      delta[d][c] = v;
    }
  }
  return delta;
}

/**
 * α from pairable units (optionally a bootstrap resample of them, given as unit indices, which
 * may repeat, or as a count per input unit in `unitWeights`), via the coincidence matrix o_ck = Σ_u Σ_{pairs i≠j in u} [c,k] / (m_u - 1).
 */
export function alphaFromUnits(
  data: AlphaUnits,
  level: MeasurementLevel,
  sample?: ArrayLike<number>,
  unitWeights?: ArrayLike<number>,
): Omit<KrippendorffAlpha, "unitsDropped" | "level"> {
  const k = data.values.length;
  const flat = new Float64Array(k * k);
  const { unitOffsets, entryCell, entryWeight } = data;
  let count = sample ? sample.length : data.units;
  if (unitWeights) {
    // Weighted form (bootstrap over unit patterns): pairable unit u counts unitWeights[sourceUnit[u]] times.
    count = 0;
    for (let u = 0; u < data.units; u++) {
      const times = unitWeights[data.sourceUnit[u]];
      if (times === 0) continue;
      count += times;
      for (let e = unitOffsets[u]; e < unitOffsets[u + 1]; e++) flat[entryCell[e]] += times * entryWeight[e];
    }
  } else {
    for (let s = 0; s < count; s++) {
      const u = sample ? sample[s] : s;
      for (let e = unitOffsets[u]; e < unitOffsets[u + 1]; e++) flat[entryCell[e]] += entryWeight[e];
    }
  }
  const o = Array.from({ length: k }, (_, c) => Array.from(flat.subarray(c * k, c * k + k)));
  const marginals = o.map((row) => row.reduce((a, b) => a + b, 0));
  const n = marginals.reduce((a, b) => a + b, 0);
  const delta = differenceMatrix(level, data.values, marginals);
  let dObs = 0;
  let dExp = 0;
  for (let c = 0; c < k; c++) {
    for (let d = 0; d < k; d++) {
      dObs += o[c][d] * delta[c][d];
      dExp += marginals[c] * marginals[d] * delta[c][d];
    }
  }
  const observedDisagreement = dObs / n;
  const expectedDisagreement = dExp / (n * (n - 1));
  return {
    alpha: expectedDisagreement === 0 || !(n > 1) ? NaN : 1 - observedDisagreement / expectedDisagreement,
    observedDisagreement,
    expectedDisagreement,
    nPairable: n,
    unitsPairable: count,
    values: data.values,
    coincidence: o,
  };
}

/**
 * Krippendorff's alpha for any number of coders, missing values and the four metric levels,
 * exactly as defined in Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability"
 * (coincidence matrix; units with fewer than two values are not pairable and are dropped).
 * `ratings[coder][unit]`, with null / undefined / NaN for "not rated".
 */
export function krippendorffAlpha(ratings: readonly (readonly Rating[])[], options: KrippendorffOptions): KrippendorffAlpha {
  const data = alphaUnits(ratings, options);
  return { ...alphaFromUnits(data, options.level), unitsDropped: data.dropped, level: options.level };
}
