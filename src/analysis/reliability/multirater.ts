import { assertRectangular, isMissing, sortedLabels, type Rating } from "./values.js";

/**
 * Raw ratings[rater][unit] as counts[unit][category]: how many raters put each unit in each
 * category (units nobody rated are left out; `categories` gives the column order).
 */
export function ratingsToCounts(
  ratings: readonly (readonly Rating[])[],
  categories?: readonly (string | number)[],
): { counts: number[][]; categories: (string | number)[]; unitsUnrated: number } {
  const nUnits = assertRectangular(ratings, "ratingsToCounts");
  const present = ratings.flat().filter((v): v is string | number => !isMissing(v));
  const cats = categories ? [...categories] : sortedLabels(present, "ratingsToCounts");
  const index = new Map(cats.map((c, i) => [c, i]));
  const counts: number[][] = [];
  let unitsUnrated = 0;
  for (let u = 0; u < nUnits; u++) {
    const row = new Array<number>(cats.length).fill(0);
    let any = false;
    for (const rater of ratings) {
      const v = rater[u];
      if (isMissing(v)) continue;
      const i = index.get(v);
      if (i === undefined)
        throw new Error(`ratingsToCounts: unit ${u} has value ${JSON.stringify(v)}, which is not among the categories ${JSON.stringify(cats)}`);
      row[i]++;
      any = true;
    }
    if (any) counts.push(row);
    else unitsUnrated++;
  }
  return { counts, categories: cats, unitsUnrated };
}

/**
 * The two ingredients shared by generalised Fleiss kappa and Gwet's AC1 (Gwet 2014, irrCAC):
 * p_a = mean over units rated by >= 2 raters of Σ_k r_ik(r_ik - 1) / (r_i(r_i - 1)), and
 * π_k = mean over rated units of r_ik / r_i.
 */
export function agreementParts(counts: readonly (readonly number[])[]): { pa: number; pi: number[]; units: number; unitsPairable: number } {
  const q = counts[0]?.length ?? 0;
  const pi = new Array<number>(q).fill(0);
  let paSum = 0;
  let pairable = 0;
  let units = 0;
  counts.forEach((row, u) => {
    let r = 0;
    for (const c of row) {
      if (!Number.isFinite(c) || c < 0 || !Number.isInteger(c)) throw new Error(`counts[${u}] holds ${c}; counts must be non-negative integers`);
      r += c;
    }
    if (row.length !== q) throw new Error(`counts[${u}] has ${row.length} categories, counts[0] has ${q}`);
    if (r === 0) return;
    units++;
    for (let k = 0; k < q; k++) pi[k] += row[k] / r;
    if (r >= 2) {
      let s = 0;
      for (const c of row) s += c * (c - 1);
      paSum += s / (r * (r - 1));
      pairable++;
    }
  });
  return { pa: paSum / pairable, pi: pi.map((p) => p / units), units, unitsPairable: pairable };
}
