/**
 * The statistics corpus check, outside `npm test`: compares Colloquy's reliability and inference
 * functions with the reference values in ../shared/corpora/stats/vectors.json (computed by others
 * with SciPy, scikit-learn and NLTK, plus published worked examples) and prints every value that
 * differs by more than 1e-6, then "N of M within 1e-6".
 *
 * SciPy's default Wilcoxon p changed over versions when |differences| tie: older versions (the
 * file's p) give the exact p, current ones (1.17 here) the normal approximation, which the file
 * also holds as p_approx. Colloquy follows current SciPy, so such a case is compared with that.
 *
 *   npx tsx scripts/stats-corpus-check.ts [vectors.json]
 */
import { readFileSync } from "node:fs";
import { chiSquare } from "../src/analysis/inference/chisquare.js";
import { kendallTau } from "../src/analysis/inference/correlation.js";
import { mannWhitneyU } from "../src/analysis/inference/mannwhitney.js";
import { pairedTTest } from "../src/analysis/inference/ttest.js";
import { wilcoxonSignedRank } from "../src/analysis/inference/wilcoxon.js";
import { fleissKappa } from "../src/analysis/reliability/fleiss.js";
import { cohenKappa } from "../src/analysis/reliability/kappa.js";
import { krippendorffAlpha, type MeasurementLevel } from "../src/analysis/reliability/krippendorff.js";

type Pair = { x: number[]; y: number[] };
interface Vectors {
  cohen: { a: number[]; b: number[]; kappa: number; percent_agreement: number }[];
  weighted: { a: number[]; b: number[]; linear: number; quadratic: number }[];
  alpha: { raters: (number | null)[][]; exact: Record<string, number> }[];
  fleiss: { table: number[][]; kappa: number }[];
  wilcoxon: (Pair & { W: number; p: number; p_approx: number })[];
  ttest_rel: (Pair & { t: number; p: number })[];
  kendall: (Pair & { tau_b: number; p: number })[];
  mannwhitney: (Pair & { U: number; p: number })[];
  chi2: { table: number[][]; chi2: number; p: number }[];
}

const path = process.argv[2] ?? new URL("../../shared/corpora/stats/vectors.json", import.meta.url).pathname;
const v = JSON.parse(readFileSync(path, "utf8")) as Vectors;
const rows: { name: string; ours: number; reference: number; note?: string }[] = [];
const add = (name: string, ours: number, reference: number, note?: string) => rows.push({ name, ours, reference, ...(note ? { note } : {}) });

v.cohen.forEach((c, i) => {
  const k = cohenKappa(c.a, c.b);
  add(`cohen[${i}] kappa`, k.kappa, c.kappa);
  add(`cohen[${i}] agreement`, k.observed, c.percent_agreement);
});
v.weighted.forEach((c, i) => {
  add(`weighted[${i}] linear`, cohenKappa(c.a, c.b, { weights: "linear" }).kappa, c.linear);
  add(`weighted[${i}] quadratic`, cohenKappa(c.a, c.b, { weights: "quadratic" }).kappa, c.quadratic);
});
v.alpha.forEach((c, i) => {
  for (const [level, reference] of Object.entries(c.exact)) {
    add(`alpha[${i}] ${level}`, krippendorffAlpha(c.raters, { level: level as MeasurementLevel }).alpha, reference);
  }
});
v.fleiss.forEach((c, i) => add(`fleiss[${i}] kappa`, fleissKappa(c.table).kappa, c.kappa));
v.wilcoxon.forEach((c, i) => {
  const r = wilcoxonSignedRank(c.x, c.y);
  add(`wilcoxon[${i}] W`, r.W, c.W);
  // With tied |differences| current SciPy (and Colloquy) use the approximation: compare with that.
  if (r.method === "approx") add(`wilcoxon[${i}] p (normal approximation: tied differences)`, r.p, c.p_approx);
  else add(`wilcoxon[${i}] p`, r.p, c.p, `the file's p_approx is ${c.p_approx}`);
});
v.ttest_rel.forEach((c, i) => {
  const r = pairedTTest(c.x, c.y);
  add(`ttest_rel[${i}] t`, r.t, c.t);
  add(`ttest_rel[${i}] p`, r.p, c.p);
});
v.kendall.forEach((c, i) => {
  const r = kendallTau(c.x, c.y);
  add(`kendall[${i}] tau_b`, r.tau, c.tau_b);
  add(`kendall[${i}] p`, r.p, c.p);
});
v.mannwhitney.forEach((c, i) => {
  const r = mannWhitneyU(c.x, c.y);
  add(`mannwhitney[${i}] U`, r.U, c.U);
  add(`mannwhitney[${i}] p`, r.p, c.p);
});
v.chi2.forEach((c, i) => {
  const r = chiSquare(c.table);
  add(`chi2[${i}] statistic`, r.chi2, c.chi2);
  add(`chi2[${i}] p`, r.p, c.p);
});

const off = rows.filter((r) => !(Math.abs(r.ours - r.reference) <= 1e-6));
for (const r of off) console.log(`differs  ${r.name}: ours ${r.ours}, reference ${r.reference}${r.note ? ` (${r.note})` : ""}`);
console.log(`${rows.length - off.length} of ${rows.length} within 1e-6`);
