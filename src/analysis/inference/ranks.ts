/** Shared input checks and ranking for the inferential tests. */

/**
 * Throw a clear error when a sample holds a non-finite value. SciPy propagates NaN silently;
 * here a missing value must be removed (or the pair dropped) by the caller on purpose.
 */
export function assertFinite(values: readonly number[], name: string, test: string): void {
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== "number" || !Number.isFinite(values[i])) {
      throw new Error(
        `${test}: ${name}[${i}] is ${String(values[i])}; remove missing or non-finite values (and, for paired data, their partner) before testing`,
      );
    }
  }
}

/** Throw when paired samples hold a non-finite value or differ in length. */
export function assertPaired(x: readonly number[], y: readonly number[], test: string): void {
  assertFinite(x, "x", test);
  assertFinite(y, "y", test);
  if (x.length !== y.length) {
    throw new Error(`${test}: paired samples must have the same length (x has ${x.length}, y has ${y.length})`);
  }
}

/** Average ranks (1-based, ties get the mean of their positions) and the sizes of tied groups (>1). */
export function rankAverage(values: readonly number[]): { ranks: number[]; ties: number[] } {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a] - values[b]);
  const ranks = new Array<number>(n);
  const ties: number[] = [];
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && values[order[j + 1]] === values[order[i]]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]] = rank;
    if (j > i) ties.push(j - i + 1);
    i = j + 1;
  }
  return { ranks, ties };
}

/** Σ (t³ - t) over tie group sizes: the usual tie correction term. */
export function tieTerm(ties: readonly number[]): number {
  let s = 0;
  for (const t of ties) s += t * t * t - t;
  return s;
}

export function mean(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Sample variance (ddof = 1), two-pass for accuracy. */
export function variance(values: readonly number[]): number {
  const m = mean(values);
  let s = 0;
  for (const v of values) s += (v - m) * (v - m);
  return s / (values.length - 1);
}
