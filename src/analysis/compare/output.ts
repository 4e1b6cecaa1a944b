import type { CompareResult } from "./compare.js";
import { adjustmentText, type TestResult } from "./tests.js";
import { textTable, toCsv } from "../shared/table.js";

/** CSV tables of a comparison: the long-format frequency table, the differences and the tests. */
export function compareCsvs(report: CompareResult): { frequencies: string; differences: string; tests: string } {
  const f = report.frequencies;
  const scopes: [string, typeof f.byCondition][] = [
    ["condition", f.byCondition],
    ["role", f.byRole],
    ["speaker", f.bySpeaker],
    ["condition-role", f.byConditionRole],
  ];
  const frequencies = toCsv(
    ["scope", "key", "code", "count", "proportion", "per_run", "total", "sessions", "runs"],
    scopes.flatMap(([scope, rows]) =>
      rows.flatMap((r) => report.labels.map((code) => [scope, r.key, code, r.counts[code], r.proportions[code], r.perRun[code], r.total, r.sessions, r.runs])),
    ),
  );
  const differences = toCsv(
    [
      "condition",
      "control",
      "code",
      "count",
      "control_count",
      "runs",
      "control_runs",
      "value",
      "control_value",
      "percent_difference",
      "proportion_point_difference",
      "note",
    ],
    report.differences.rows.map((d) => [
      d.condition,
      d.control,
      d.code,
      d.count,
      d.controlCount,
      d.runs,
      d.controlRuns,
      d.value,
      d.controlValue,
      d.percentDifference,
      d.proportionPointDifference,
      d.note,
    ]),
  );
  const tests = toCsv(
    [
      "family",
      "test",
      "code",
      "condition",
      "reference",
      "across",
      "unit",
      "measure",
      "n",
      "statistic_name",
      "statistic",
      "df",
      "p",
      "p_adjusted",
      "adjustment",
      "family_size",
      "effect_size_name",
      "effect_size",
      "effect_ci95_low",
      "effect_ci95_high",
      "smallest_p",
      "mde80",
      "method",
      "note",
    ],
    report.tests.map((t) => [
      t.family,
      t.test,
      t.code,
      t.condition,
      t.reference,
      t.across,
      t.unit,
      t.measure,
      t.n,
      t.statisticName,
      t.statistic,
      t.df,
      t.p,
      t.pAdjusted,
      t.adjust,
      t.familySize,
      t.effectSizeName,
      t.effectSize,
      t.effectCi95?.[0],
      t.effectCi95?.[1],
      t.smallestP,
      t.mde80,
      t.method,
      t.note,
    ]),
  );
  return { frequencies, differences, tests };
}

const fmt = (v: number | null | undefined, digits = 3): string => (v === null || v === undefined ? "-" : Number.isInteger(v) ? String(v) : v.toFixed(digits));
const pct = (v: number | null): string => (v === null ? "-" : `${(v * 100).toFixed(1)}%`);
const signed = (v: number | null): string => (v === null ? "n/a" : `${v > 0 ? "+" : ""}${v.toFixed(0)}%`);
const pValue = (p: number | null | undefined): string => (p === null || p === undefined ? "-" : p < 0.001 ? "<.001" : p.toFixed(3));

/** The readable terminal summary of a comparison. */
export function compareSummary(report: CompareResult): string {
  const out: string[] = [];
  const o = report.options;
  out.push(`Codes per condition (${report.acts.counted} acts; ${report.acts.dropped} dropped; ${report.acts.uncodedTurns} turns uncoded)`);
  const conds = report.frequencies.byCondition;
  out.push(
    textTable(
      ["code", ...conds.map((c) => `${c.key} (${c.runs} runs)`)],
      report.labels.map((code) => [code, ...conds.map((c) => `${c.counts[code]} ${pct(c.proportions[code])}`)]),
    ),
  );
  if (report.differences.control !== null) {
    const others = conds.filter((c) => c.key !== report.differences.control);
    out.push("");
    out.push(
      `Difference from control "${report.differences.control}" (${report.differences.basis === "count" ? "counts" : "counts per run"}; n/a = control count 0)`,
    );
    const cell = new Map(report.differences.rows.map((d) => [`${d.condition}\u0000${d.code}`, d]));
    out.push(
      textTable(
        ["code", ...others.map((c) => c.key)],
        report.labels.map((code) => [
          code,
          ...others.map((c) => {
            const d = cell.get(`${c.key}\u0000${code}`)!;
            return `${signed(d.percentDifference)} (${fmt(d.value, 2)} vs ${fmt(d.controlValue, 2)})`;
          }),
        ]),
      ),
    );
  }
  out.push("");
  const adjusted = o.adjust !== "none";
  out.push(
    `Tests (${report.design ? `${report.design.description}; ${report.design.reason}` : `${o.design}-subject design, unit ${o.unit}`}; measure ${o.measure}; one ${o.test} test per comparison and code; ${adjustmentText(o.adjust)})`,
  );
  for (const c of report.comparisons) {
    const dropped = c.onlyInCondition.length + c.onlyInReference.length;
    out.push(
      `  ${c.condition} vs ${c.reference}: ${c.design === "within" ? `${c.paired!.length} paired ${c.unit}s${dropped ? `, ${dropped} unpaired ${c.unit}s not tested` : ""}` : `${c.nCondition} vs ${c.nReference} ${c.unit}s`}`,
    );
  }
  // Codes nobody used in a comparison were not tested; listing them would bury the tests that ran.
  const untested = report.tests.filter((t) => t.note?.startsWith("no acts with this code"));
  const shown = report.tests.filter((t) => !untested.includes(t));
  out.push(
    textTable(
      ["test", "code", "comparison", "n", "statistic", "p", ...(adjusted ? [`p (${o.adjust})`] : []), "effect [95% CI]"],
      shown.map((t) => [
        t.family,
        t.code ?? `(${t.across}, descriptive)`,
        t.condition !== undefined ? `${t.condition} vs ${t.reference}` : "",
        String(t.n),
        t.statistic === null ? "-" : `${t.statisticName}=${fmt(t.statistic)}${t.df !== undefined && t.df !== null ? ` df=${fmt(t.df, 1)}` : ""}`,
        pValue(t.p),
        ...(adjusted ? [pValue(t.pAdjusted)] : []),
        t.effectSize === undefined || t.effectSize === null
          ? "-"
          : `${fmt(t.effectSize, 2)}${t.effectCi95 ? ` [${fmt(t.effectCi95[0], 2)}, ${fmt(t.effectCi95[1], 2)}]` : ""}`,
      ]),
    ),
  );
  if (untested.length > 0) {
    const codes = [...new Set(untested.map((t) => t.code))];
    out.push(`not tested (no acts in either condition of a comparison): ${codes.join(", ")}`);
  }
  // A note shared by many lines (a design too small to reach .05) is printed once with its count.
  const byNote = new Map<string, TestResult[]>();
  for (const t of shown) if (t.note) byNote.set(t.note, [...(byNote.get(t.note) ?? []), t]);
  for (const [note, lines] of byNote) {
    const t = lines[0];
    const where =
      lines.length > 1
        ? `${lines.length} lines`
        : `${t.family}${t.code ? ` ${t.code}` : ""}${t.condition ? ` (${t.condition} vs ${t.reference})` : t.across ? ` (across ${t.across})` : ""}`;
    out.push(`  ${where}: ${note}`);
  }
  for (const note of report.notes) out.push(`note: ${note}`);
  return out.join("\n");
}
