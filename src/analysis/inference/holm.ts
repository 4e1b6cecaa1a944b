/**
 * Holm-Bonferroni adjusted p-values, in the input order (as statsmodels
 * multipletests(method="holm")): sort ascending, multiply the i-th smallest by (m - i),
 * enforce monotonicity, cap at 1. NaN p-values are passed through and not counted in m.
 */
export function holm(pValues: readonly number[]): number[] {
  const indexed = pValues.map((p, i) => ({ p, i })).filter(({ p }) => !Number.isNaN(p));
  for (const { p, i } of indexed) {
    if (p < 0 || p > 1) throw new Error(`holm: p-value ${i} is ${p}; p-values must lie in [0, 1]`);
  }
  indexed.sort((a, b) => a.p - b.p);
  const m = indexed.length;
  const out = pValues.map(() => NaN);
  let running = 0;
  indexed.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}
