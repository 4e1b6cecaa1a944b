/**
 * A p-value in APA style, without the "p": three decimals and no leading zero (".031"), "< .001"
 * below .001, and "> .999" from .9995 up, where three decimals would round to "1.000" (APA 7,
 * 6.36: p is never reported as 1 or 0). The one rule shared by the report's text
 * (../report/apa.ts), the dashboard (web/lib/format.ts) and the analyses' notes, so a p reads the
 * same everywhere. Callers decide what a missing or non-finite p prints as.
 */
export function formatPValue(p: number): string {
  if (p < 0.001) return "< .001";
  if (p >= 0.9995) return "> .999";
  return p.toFixed(3).replace(/^0\./, ".");
}

/** "p = .031", "p < .001", "p > .999": the p-value with its relation sign. */
export function pWithRelation(p: number): string {
  const s = formatPValue(p);
  return s.startsWith("<") || s.startsWith(">") ? `p ${s}` : `p = ${s}`;
}
