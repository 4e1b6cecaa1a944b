import type { AgreementReport } from "./agree.js";
import type { Interval, VariableAgreement } from "./core.js";

/** Human-readable summary of an agreement report (what `colloquy agree` prints). */

function num(x: number | undefined, digits = 3): string {
  return x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(digits);
}

function ci(interval: Interval | null | undefined): string {
  return interval ? ` [${num(interval.lower, 2)}, ${num(interval.upper, 2)}]` : "";
}

function pct(x: number): string {
  return Number.isNaN(x) ? "n/a" : `${(100 * x).toFixed(1)}%`;
}

function variableLines(v: VariableAgreement): string[] {
  const lines: string[] = [];
  const ordered = v.level !== "nominal";
  lines.push(`${v.name} (${v.level}; ${v.unitsComplete} unit(s) rated by all${v.units > v.unitsComplete ? ` of ${v.units}` : ""}):`);
  for (const p of v.pairs) {
    const [x, y] = p.a === v.reference ? [p.b, p.a] : [p.a, p.b];
    let line = `  ${x} vs ${y}  n=${p.n}  agreement ${pct(p.agreement)}  kappa ${num(p.kappa)}${ci(p.kappaCI)}  AC1 ${num(p.ac1, 2)}`;
    if (ordered) {
      line += `  kappa(linear) ${num(p.kappaLinear)}  kappa(quadratic) ${num(p.kappaQuadratic)}${ci(p.kappaQuadraticCI)}`;
      if (p.kendallTau) line += `  tau-b ${num(p.kendallTau.tau)} (p=${Number.isNaN(p.kendallTau.p) ? "n/a" : p.kendallTau.p.toPrecision(3)})`;
    }
    lines.push(line);
  }
  const all = [`all agree ${pct(v.allAgree)}`];
  for (const a of v.alpha) all.push(`alpha(${a.level}) ${num(a.alpha)}${ci(a.ci)}`);
  all.push(`AC1 ${num(v.ac1.ac1)}`);
  if (v.fleiss) all.push(`Fleiss kappa ${num(v.fleiss.kappa)}`);
  lines.push(`  all ${v.coders.length} coders: ${all.join("  ")}`);
  for (const s of v.perCategory) {
    lines.push(`  ${s.coder} vs ${s.reference} (reference): macro F1 ${num(s.macroF1)}`);
    if (ordered) continue; // per-point precision/recall of a rating scale is in the JSON only
    const width = Math.max(8, ...s.categories.map((c) => String(c.label).length));
    lines.push(`    ${"category".padEnd(width)}  precision  recall     F1  support`);
    for (const c of s.categories) {
      if (c.support === 0 && c.predicted === 0) continue;
      lines.push(
        `    ${String(c.label).padEnd(width)}  ${num(c.precision).padStart(9)}  ${num(c.recall).padStart(6)}  ${num(c.f1).padStart(5)}  ${String(c.support).padStart(7)}`,
      );
    }
  }
  return lines;
}

/** The printed summary; `files` are the written paths (study mode). */
export function formatAgreement(report: AgreementReport, files?: { json: string; csv: string }): string {
  const lines: string[] = [];
  if (report.source.type === "study") {
    const cb = report.codebook!;
    lines.push(
      `Agreement on codebook ${cb.id} (${cb.kind}${cb.definition === "inferred" ? ", shape inferred from the records" : `, v${cb.version}`}); reference coder ${report.reference}`,
    );
  } else {
    lines.push(`Agreement in ${report.source.file} (raters ${report.coders.join(", ")}); reference ${report.reference}`);
  }
  const cov = report.coverage;
  if (cov) {
    lines.push(`Turns coded by all of ${report.coders.join(", ")}: ${cov.unitsCodedByAll} of ${cov.unitsCodedByAny} coded by any`);
    for (const g of cov.partial) lines.push(`  not analysed: ${g.units} coded by ${g.codedBy.join(", ")} only (missing ${g.missing.join(", ")})`);
  }
  for (const v of report.variables) lines.push(...variableLines(v));
  if (report.settings.bootstrap > 0)
    lines.push(`[..] = 95% percentile bootstrap over units, ${report.settings.bootstrap} replicates, seed ${report.settings.seed}`);
  lines.push(`Disagreements: ${report.disagreements.total}${files ? ` -> ${files.csv}` : ""}`);
  if (files) lines.push(`Report: ${files.json}`);
  for (const w of report.warnings) lines.push(`warning: ${w}`);
  return lines.join("\n");
}
