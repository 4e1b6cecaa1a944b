import type { BootstrapInterval } from "../reliability/bootstrap.js";
import { fleissKappaFromRatings } from "../reliability/fleiss.js";
import { gwetAC1 } from "../reliability/gwet.js";
import { cohenKappa, confusionMatrix, perCategoryScores, percentAgreement, type CategoryScore } from "../reliability/kappa.js";
import { alphaFromUnits, alphaUnits, type MeasurementLevel } from "../reliability/krippendorff.js";
import { bootstrapPatterns, kappaFromPatterns, unitPatterns } from "../reliability/patterns.js";
import { isMissing, type Rating } from "../reliability/values.js";
import { kendallTau } from "../inference/correlation.js";

/**
 * The agreement analysis of one variable (a nominal code, or one rating scale) across coders:
 * everything `colloquy agree` reports, computed from ratings[coder][unit]. Pure: no files.
 */

type Label = string | number;

/** A bootstrap interval as stored in reports (null when there were too few units to resample). */
export type Interval = Pick<BootstrapInterval, "lower" | "upper" | "confidence" | "replicates" | "undefinedReplicates" | "seed">;

/** Agreement of one pair of coders. Where the reference coder is in the pair it is `a` (rows, "truth"). */
export interface PairAgreement {
  a: string;
  b: string;
  /** Units both coders rated. */
  n: number;
  /** Share of those units with identical ratings (0..1). */
  agreement: number;
  /** Unweighted Cohen's kappa (sklearn cohen_kappa_score) and its bootstrap CI. */
  kappa: number;
  kappaCI: Interval | null;
  /** Weighted kappas (ordered levels only), weights by position in `labels`. */
  kappaLinear?: number;
  kappaQuadratic?: number;
  kappaQuadraticCI?: Interval | null;
  /** Gwet's AC1 of the pair (q = number of labels). */
  ac1: number;
  /** Kendall's tau-b between the two coders' ratings (ordered levels only). */
  kendallTau?: { tau: number; p: number };
  /** Rows: coder a's label, columns: coder b's label, in `labels` order. */
  confusion: number[][];
}

/** Krippendorff's alpha at one level, with its bootstrap CI. */
export interface AlphaSummary {
  level: MeasurementLevel;
  alpha: number;
  ci: Interval | null;
  observedDisagreement: number;
  expectedDisagreement: number;
  nPairable: number;
  unitsPairable: number;
}

/** Per-category precision/recall/F1 of one coder against the reference coder. */
export interface CoderScores {
  coder: string;
  reference: string;
  categories: CategoryScore[];
  macroF1: number;
}

/** Everything reported for one variable. */
export interface VariableAgreement {
  /** "codes" for a nominal codebook, else the scale id; for --csv: "ratings". */
  name: string;
  level: MeasurementLevel;
  coders: string[];
  reference: string;
  /** Category order used by matrices and weights. */
  labels: Label[];
  /** Units in the analysis, and how many every coder rated. */
  units: number;
  unitsComplete: number;
  /** Share of complete units on which all coders gave the same rating. */
  allAgree: number;
  pairs: PairAgreement[];
  /** Fleiss' kappa (generalised for missing ratings); 3+ coders only. */
  fleiss: { kappa: number; pBar: number; pE: number } | null;
  /** Gwet's AC1 over all coders. */
  ac1: { ac1: number; pa: number; pe: number; q: number };
  alpha: AlphaSummary[];
  perCategory: CoderScores[];
}

/** Options for {@link analyseVariable}. */
export interface VariableOptions {
  name: string;
  level: MeasurementLevel;
  coders: readonly string[];
  /** ratings[coder][unit], null where a coder did not rate a unit. */
  ratings: readonly (readonly Rating[])[];
  /** Category order (codebook order, or 1..points); values not listed are appended in sorted order. */
  labels?: readonly Label[];
  reference: string;
  seed: number;
  /** Bootstrap replicates (0 = no intervals). */
  bootstrap: number;
}

/** Alpha levels reported per declared level: scales get ordinal and interval, as researchers report both. */
const alphaLevels: Record<MeasurementLevel, MeasurementLevel[]> = {
  nominal: ["nominal"],
  ordinal: ["ordinal", "interval"],
  interval: ["interval", "ordinal"],
  ratio: ["ratio", "interval"],
};

function interval(ci: BootstrapInterval): Interval {
  return { lower: ci.lower, upper: ci.upper, confidence: ci.confidence, replicates: ci.replicates, undefinedReplicates: ci.undefinedReplicates, seed: ci.seed };
}

function fullLabels(ratings: readonly (readonly Rating[])[], given: readonly Label[] | undefined): Label[] {
  const labels: Label[] = [...(given ?? [])];
  const known = new Set(labels);
  const extra = new Set<Label>();
  for (const row of ratings) for (const v of row) if (!isMissing(v) && !known.has(v)) extra.add(v);
  const rest = [...extra].sort((x, y) => (typeof x === "number" && typeof y === "number" ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0));
  return [...labels, ...rest];
}

/** Compute the agreement report of one variable. */
export function analyseVariable(options: VariableOptions): VariableAgreement {
  const { coders, ratings, level, reference, seed, bootstrap } = options;
  if (coders.length < 2) throw new Error(`agreement needs at least two coders (got ${coders.length})`);
  if (ratings.length !== coders.length) throw new Error(`ratings has ${ratings.length} rows for ${coders.length} coders`);
  const labels = fullLabels(ratings, options.labels);
  const ordered = level !== "nominal";
  const nUnits = ratings[0]?.length ?? 0;
  const complete: number[] = [];
  for (let u = 0; u < nUnits; u++) if (ratings.every((row) => !isMissing(row[u]))) complete.push(u);
  const allAgree = complete.filter((u) => ratings.every((row) => row[u] === ratings[0][u])).length;

  const refIndex = Math.max(0, coders.indexOf(reference));
  const order = [refIndex, ...coders.map((_, i) => i).filter((i) => i !== refIndex)];
  const pairs: PairAgreement[] = [];
  const perCategory: CoderScores[] = [];
  // All intervals come from one shared set of resamples over unit patterns (see patterns.ts):
  // each entry is a statistic of the pattern counts and where to store its interval.
  const patterns = unitPatterns(ratings);
  const statistics: { f: (counts: Float64Array) => number; store: (ci: Interval) => void }[] = [];
  for (let x = 0; x < order.length; x++) {
    for (let y = x + 1; y < order.length; y++) {
      const i = order[x];
      const j = order[y];
      const both: number[] = [];
      for (let u = 0; u < nUnits; u++) if (!isMissing(ratings[i][u]) && !isMissing(ratings[j][u])) both.push(u);
      if (both.length === 0) continue;
      const a = both.map((u) => ratings[i][u]);
      const b = both.map((u) => ratings[j][u]);
      const pair: PairAgreement = {
        a: coders[i],
        b: coders[j],
        n: both.length,
        agreement: percentAgreement(a, b).agreement,
        kappa: cohenKappa(a, b, { labels }).kappa,
        kappaCI: null,
        ac1: gwetAC1([a, b], labels).ac1,
        confusion: confusionMatrix(a, b, labels).matrix,
      };
      if (ordered) {
        pair.kappaLinear = cohenKappa(a, b, { labels, weights: "linear" }).kappa;
        pair.kappaQuadratic = cohenKappa(a, b, { labels, weights: "quadratic" }).kappa;
        pair.kappaQuadraticCI = null;
        statistics.push({ f: kappaFromPatterns(patterns, i, j, labels, "quadratic"), store: (ci) => (pair.kappaQuadraticCI = ci) });
        if (a.every((v) => typeof v === "number") && b.every((v) => typeof v === "number")) {
          const k = kendallTau(a as number[], b as number[]);
          pair.kendallTau = { tau: k.tau, p: k.p };
        }
      }
      statistics.push({ f: kappaFromPatterns(patterns, i, j, labels), store: (ci) => (pair.kappaCI = ci) });
      pairs.push(pair);
      if (i === refIndex) {
        const scores = perCategoryScores(a, b, labels);
        perCategory.push({ coder: coders[j], reference: coders[i], categories: scores.categories, macroF1: scores.macroF1 });
      }
    }
  }

  const fleiss = coders.length >= 3 ? fleissKappaFromRatings(ratings, labels) : null;
  const ac1 = gwetAC1(ratings, labels);
  const alpha = alphaLevels[level].map((lv): AlphaSummary => {
    const opts = { level: lv, order: lv === "ordinal" ? labels : undefined };
    // α over the distinct rating patterns weighted by their counts: identical to
    // krippendorffAlpha(ratings, opts), without touching every unit again.
    const data = alphaUnits(patterns.ratings, opts);
    const r = alphaFromUnits(data, lv, undefined, patterns.counts);
    const summary: AlphaSummary = {
      level: lv,
      alpha: r.alpha,
      ci: null,
      observedDisagreement: r.observedDisagreement,
      expectedDisagreement: r.expectedDisagreement,
      nPairable: r.nPairable,
      unitsPairable: r.unitsPairable,
    };
    if (r.unitsPairable > 0) {
      statistics.push({ f: (counts) => alphaFromUnits(data, lv, undefined, counts).alpha, store: (ci) => (summary.ci = ci) });
    }
    return summary;
  });
  if (bootstrap > 0 && nUnits > 0) {
    const intervals = bootstrapPatterns(
      patterns,
      statistics.map((s) => s.f),
      { seed, replicates: bootstrap },
    );
    intervals.forEach((ci, x) => statistics[x].store(interval(ci)));
  }
  return {
    name: options.name,
    level,
    coders: [...coders],
    reference: coders[refIndex],
    labels,
    units: nUnits,
    unitsComplete: complete.length,
    allAgree: complete.length > 0 ? allAgree / complete.length : NaN,
    pairs,
    fleiss: fleiss ? { kappa: fleiss.kappa, pBar: fleiss.pBar, pE: fleiss.pE } : null,
    ac1: { ac1: ac1.ac1, pa: ac1.pa, pe: ac1.pe, q: ac1.q },
    alpha,
    perCategory,
  };
}
