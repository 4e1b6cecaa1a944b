import { isMissing, sortedLabels, type Rating } from "./values.js";

type Label = string | number;

function assertPairs(a: readonly Rating[], b: readonly Rating[], where: string): void {
  if (a.length !== b.length)
    throw new Error(`${where}: the two coders rated different numbers of units (a has ${a.length}, b has ${b.length}); pair the ratings by unit first`);
  if (a.length === 0) throw new Error(`${where}: no units to compare`);
  for (let i = 0; i < a.length; i++) {
    if (isMissing(a[i]) || isMissing(b[i])) {
      throw new Error(
        `${where}: unit ${i} has a missing rating (${isMissing(a[i]) ? "a" : "b"}[${i}] is ${String(isMissing(a[i]) ? a[i] : b[i])}); keep only units both coders rated, or use krippendorffAlpha, which handles missing values`,
      );
    }
  }
}

/** Result of {@link percentAgreement}. */
export interface PercentAgreement {
  /** Share of units (0..1) on which both coders gave the same value. */
  agreement: number;
  /** Units on which they agreed. */
  agreed: number;
  n: number;
}

/** Share of units on which two coders gave identical ratings. */
export function percentAgreement(a: readonly Rating[], b: readonly Rating[]): PercentAgreement {
  assertPairs(a, b, "percentAgreement");
  let agreed = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) agreed++;
  return { agreement: agreed / a.length, agreed, n: a.length };
}

/** Confusion matrix with rows = coder a's label, columns = coder b's label. */
export interface ConfusionMatrix {
  labels: Label[];
  matrix: number[][];
  /** Units whose rating is not among `labels` (only when labels were given; as sklearn, they are left out). */
  excluded: number;
}

/** Confusion matrix of two coders over `labels` (default: the sorted labels either coder used, as sklearn). */
export function confusionMatrix(a: readonly Rating[], b: readonly Rating[], labels?: readonly Label[]): ConfusionMatrix {
  assertPairs(a, b, "confusionMatrix");
  const used = labels ? [...labels] : sortedLabels([...(a as Label[]), ...(b as Label[])], "confusionMatrix");
  const index = new Map<Label, number>(used.map((l, i) => [l, i]));
  const matrix = used.map(() => used.map(() => 0));
  let excluded = 0;
  for (let i = 0; i < a.length; i++) {
    const r = index.get(a[i] as Label);
    const c = index.get(b[i] as Label);
    if (r === undefined || c === undefined) excluded++;
    else matrix[r][c]++;
  }
  return { labels: used, matrix, excluded };
}

/** Options of {@link cohenKappa}. */
export interface CohenKappaOptions {
  /** Disagreement weights by distance between label positions (sklearn): |i-j| or (i-j)². */
  weights?: "linear" | "quadratic";
  /** Label order (and set). Default: sorted labels used by either coder. */
  labels?: readonly Label[];
}

/** Result of {@link cohenKappa}. */
export interface CohenKappa {
  /** NaN when chance disagreement is zero (both coders used one and the same single category). */
  kappa: number;
  /**
   * Observed agreement p_o (weighted: 1 - D_o / w_max) and chance agreement p_e (weighted:
   * 1 - D_e / w_max), so that kappa = (observed - expected) / (1 - expected) in every case.
   */
  observed: number;
  expected: number;
  /** Mean weighted disagreement observed (D_o) and expected by chance (D_e); kappa = 1 - D_o/D_e. */
  observedDisagreement: number;
  expectedDisagreement: number;
  n: number;
  labels: Label[];
  excluded: number;
}

/**
 * Cohen's kappa for two coders, unweighted or weighted, exactly as scikit-learn's
 * cohen_kappa_score(a, b, labels=..., weights=...): kappa = 1 - Σ w·O / Σ w·E with O the
 * confusion matrix and E the outer product of its margins / n. Weights depend on label
 * positions, so for ordinal scales pass numbers or an explicit `labels` order.
 */
export function cohenKappa(a: readonly Rating[], b: readonly Rating[], options: CohenKappaOptions = {}): CohenKappa {
  const { labels, matrix, excluded } = confusionMatrix(a, b, options.labels);
  return { ...kappaOfMatrix(matrix, options.weights), labels, excluded };
}

/**
 * Cohen's kappa of a confusion matrix (rows one coder, columns the other, labels in the order the
 * weights assume), as {@link cohenKappa}. Summing the matrices of units and taking the kappa of
 * the sum is how a bootstrap over groups of units stays cheap.
 */
export function kappaOfMatrix(matrix: readonly (readonly number[])[], weights?: CohenKappaOptions["weights"]): Omit<CohenKappa, "labels" | "excluded"> {
  const k = matrix.length;
  const n = matrix.reduce((s, row) => s + row.reduce((x, y) => x + y, 0), 0);
  const rowSums = matrix.map((row) => row.reduce((x, y) => x + y, 0));
  const colSums = matrix.map((_, j) => matrix.reduce((s, row) => s + row[j], 0));
  const weight = (i: number, j: number): number => (weights === "linear" ? Math.abs(i - j) : weights === "quadratic" ? (i - j) ** 2 : i === j ? 0 : 1);
  let observedW = 0;
  let expectedW = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const w = weight(i, j);
      observedW += w * matrix[i][j];
      expectedW += (w * rowSums[i] * colSums[j]) / n;
    }
  }
  const wMax = k > 1 ? weight(0, k - 1) : 1;
  const observedDisagreement = n > 0 ? observedW / n : NaN;
  const expectedDisagreement = n > 0 ? expectedW / n : NaN;
  return {
    kappa: expectedW === 0 ? NaN : 1 - observedW / expectedW,
    observed: 1 - observedDisagreement / wMax,
    expected: 1 - expectedDisagreement / wMax,
    observedDisagreement,
    expectedDisagreement,
    n,
  };
}

/** Precision, recall and F1 of one category, taking the reference coder's labels as truth. */
export interface CategoryScore {
  label: Label;
  precision: number;
  recall: number;
  f1: number;
  /** Units the reference coder gave this label. */
  support: number;
  /** Units the other coder gave this label. */
  predicted: number;
}

/**
 * Per-category precision/recall/F1 of `other` against `reference`, as sklearn's
 * precision_recall_fscore_support(reference, other) (undefined ratios are 0, sklearn's
 * zero_division default), plus macro averages over the categories in use.
 */
export function perCategoryScores(
  reference: readonly Rating[],
  other: readonly Rating[],
  labels?: readonly Label[],
): { categories: CategoryScore[]; macroF1: number; macroPrecision: number; macroRecall: number } {
  const cm = confusionMatrix(reference, other, labels);
  const categories = cm.labels.map((label, i) => {
    const tp = cm.matrix[i][i];
    const support = cm.matrix[i].reduce((x, y) => x + y, 0);
    const predicted = cm.matrix.reduce((s, row) => s + row[i], 0);
    const precision = predicted > 0 ? tp / predicted : 0;
    const recall = support > 0 ? tp / support : 0;
    const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
    return { label, precision, recall, f1, support, predicted };
  });
  // Macro averages over the categories either coder used (sklearn's default label set), so
  // unused categories of a long codebook do not drag the average towards 0.
  const used = categories.filter((c) => c.support > 0 || c.predicted > 0);
  const avg = (f: (c: CategoryScore) => number): number => used.reduce((s, c) => s + f(c), 0) / used.length;
  return { categories, macroF1: avg((c) => c.f1), macroPrecision: avg((c) => c.precision), macroRecall: avg((c) => c.recall) };
}
