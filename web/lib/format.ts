/**
 * The dashboard's one set of number formats, so a figure reads the same in every chart, tooltip
 * and table: counts with thousands separators ("12,480"), statistics to 2 decimals, coefficients
 * (kappa, alpha, F1, balance) to 3, shares as percentages to 1 decimal ("12.5%"), p-values to 3
 * decimals, "< .001" or "> .999" (APA style, no leading zero). Missing values are an en dash.
 */
import { formatPValue } from "../../src/util/p-value.js";

const MISSING = "–";
const grouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const finite = (v: number | null | undefined): v is number => v !== null && v !== undefined && Number.isFinite(v);

/** A count: "12,480". */
export function fmtCount(v: number | null | undefined): string {
  return finite(v) ? grouped.format(v) : MISSING;
}

/** A measured value: integers as counts, others to `digits` decimals ("3.16"). */
export function fmtNum(v: number | null | undefined, digits = 2): string {
  if (!finite(v)) return MISSING;
  return Number.isInteger(v) ? fmtCount(v) : v.toFixed(digits);
}

/** A coefficient between -1 and 1 (kappa, alpha, F1, balance): always 3 decimals ("0.867"). */
export function fmtCoef(v: number | null | undefined): string {
  return finite(v) ? v.toFixed(3) : MISSING;
}

/** A share 0..1 as a percentage: "12.5%". */
export function fmtShare(v: number | null | undefined, digits = 1): string {
  return finite(v) ? `${(v * 100).toFixed(digits)}%` : MISSING;
}

/** A p-value, APA style: ".031", "< .001", "> .999" (the report's rule, ../../src/util/p-value.ts). */
export function fmtP(p: number | null | undefined): string {
  return finite(p) ? formatPValue(p) : MISSING;
}

/** "1 session", "5 sessions" (the count formatted as a count). */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${fmtCount(n)} ${n === 1 ? noun : nouns}`;
}

/** A value in a data table: integers as counts, fractions to 3 decimals, text as it is. */
export function fmtCell(v: string | number | null): string {
  if (v === null) return MISSING;
  if (typeof v === "string") return v;
  return Number.isInteger(v) ? fmtCount(v) : fmtNum(v, 3);
}
