import { chiSquareSf } from "./distributions.js";

/** Result of {@link chiSquare}. */
export interface ChiSquareResult {
  /** Pearson chi-square (Yates-corrected when dof == 1, as scipy). */
  chi2: number;
  dof: number;
  p: number;
  /** Cramér's V from the uncorrected chi-square, as scipy.stats.contingency.association(method="cramer"). */
  cramersV: number;
  /** Expected counts under independence (row total × column total / n). */
  expected: number[][];
  /** Whether Yates' continuity correction was applied. */
  yates: boolean;
  n: number;
}

/**
 * Chi-square test of independence on a contingency table, as scipy.stats.chi2_contingency(table)
 * with defaults (Yates' correction only for 2×2-like tables with dof == 1). Rows or columns that
 * are all zero make an expected count zero: that is an error, as in scipy (drop them first).
 */
export function chiSquare(table: readonly (readonly number[])[]): ChiSquareResult {
  const test = "chiSquare";
  const rows = table.length;
  if (rows === 0 || table[0].length === 0) throw new Error(`${test}: the table is empty`);
  const cols = table[0].length;
  table.forEach((row, i) => {
    if (row.length !== cols) throw new Error(`${test}: row ${i} has ${row.length} cells, row 0 has ${cols}; the table must be rectangular`);
    row.forEach((v, j) => {
      if (!Number.isFinite(v) || v < 0) throw new Error(`${test}: cell [${i}][${j}] is ${v}; counts must be finite and >= 0`);
    });
  });
  const rowSums = table.map((row) => row.reduce((a, b) => a + b, 0));
  const colSums = Array.from({ length: cols }, (_, j) => table.reduce((a, row) => a + row[j], 0));
  const n = rowSums.reduce((a, b) => a + b, 0);
  const expected = table.map((_, i) => colSums.map((c) => (rowSums[i] * c) / n));
  expected.forEach((row, i) =>
    row.forEach((e, j) => {
      if (e === 0) throw new Error(`${test}: expected count at [${i}][${j}] is zero (row ${i} or column ${j} sums to 0); drop empty rows and columns first`);
    }),
  );
  const dof = rows * cols - rows - cols + 1;
  let raw = 0;
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) raw += (table[i][j] - expected[i][j]) ** 2 / expected[i][j];
  const k = Math.min(rows, cols);
  const cramersV = k > 1 ? Math.sqrt(raw / (n * (k - 1))) : NaN;
  if (dof === 0) return { chi2: 0, dof, p: 1, cramersV, expected, yates: false, n };
  let chi2 = raw;
  const yates = dof === 1;
  if (yates) {
    chi2 = 0;
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const diff = expected[i][j] - table[i][j];
        const adjusted = table[i][j] + Math.sign(diff) * Math.min(0.5, Math.abs(diff));
        chi2 += (adjusted - expected[i][j]) ** 2 / expected[i][j];
      }
    }
  }
  return { chi2, dof, p: chiSquareSf(chi2, dof), cramersV, expected, yates, n };
}
