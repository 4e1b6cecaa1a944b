import { apaCompareTest } from "../apa.js";
import { inPlainWords } from "../glossary.js";
import type { Session } from "../../transcript/schema.js";
import type { CompareSettings } from "../../study/config.js";
import { checkCompareOptions, compareFrequencies, type CompareFrequencies, type CompareReport } from "../../analysis/compare/compare.js";
import { codedTurns, type CodedTurns } from "../../analysis/shared/table.js";
import { errorMessage } from "../../util/errors.js";
import type { AnalysisFile, CodeSet } from "../load.js";
import type { CodebookInfo, CompareSet } from "../types.js";
import { categoryIds } from "./common.js";
import { usableCounts, type SessionCounts } from "./parts.js";

/**
 * Conditions vs control for one coder. The numbers are `colloquy compare`'s: from its file
 * (analysis/compare-<codebook>.json, whose collapse, normalisation and tests are authoritative)
 * for the coder it was computed for, and from the same analysis function (compareFrequencies in
 * src/analysis/compare/compare.ts, with the study's compare settings) for every other coder.
 * Percentage difference = (value - control) / control * 100, e.g. 7 against 1 is +600%.
 */
export function buildCompareSet(
  sessions: Session[],
  set: CodeSet,
  codebook: CodebookInfo,
  settings: CompareSettings,
  conditions: string[],
  /** The sets' coded turns when the caller has them already (the bales view joins the same). */
  coded?: CodedTurns,
  /** `colloquy compare`'s file: for the coder it was computed for, its numbers and tests are taken, and nothing is computed. */
  file?: AnalysisFile<CompareReport>,
  /** Each session's counts as its part keeps them (parts.ts SessionCounts), numbered as the codebook's categories; else counted from the join. */
  counts?: readonly SessionCounts[],
): CompareSet | { empty: string } {
  const groupOf = new Map<string, string>();
  for (const [group, members] of Object.entries(settings.conditionGroups ?? {})) for (const c of members) groupOf.set(c, group);
  const groups = [...new Set(conditions.map((c) => groupOf.get(c) ?? c))];
  // Without compare.control, a condition named "control" is taken as the control.
  const control = settings.control !== undefined ? (groupOf.get(settings.control) ?? settings.control) : groups.find((g) => /^control$/i.test(g));
  if (!control) {
    return { empty: `No control condition: set "compare": {"control": "<condition>"} in colloquy.json (conditions: ${conditions.join(", ")}).` };
  }
  if (!groups.includes(control)) {
    return { empty: `The control condition "${control}" has no sessions (conditions: ${conditions.join(", ")}); fix "compare.control" in colloquy.json.` };
  }
  const data = coded ?? codedTurns(sessions, set.records, categoryIds(codebook));
  const options = {
    control,
    collapse: settings.collapse,
    drop: settings.drop,
    conditionGroups: settings.conditionGroups,
    normaliseByRuns: settings.normaliseByRuns,
  };
  // For the coder `colloquy compare` ran for, its numbers are the view's: checked against the
  // settings as counting them would be (a setting that no longer applies is said, not hidden), not counted again.
  const fromFile = compareSetFromFile(set, file, codebook);
  let result: CompareFrequencies;
  try {
    if (fromFile) {
      checkCompareOptions(data, options);
      return fromFile;
    }
    // A session's kept member counts are its compareSessionPart (no codes of its own outside the categories).
    const kept = usableCounts(counts, data, codebook);
    const index = kept && new Map(data.sessions.map((cs, i) => [cs, i]));
    // The view shows the conditions' counts and differences: nothing by role, speaker or unit is counted.
    result = compareFrequencies(data, options, index && ((cs) => ({ counts: kept![index.get(cs)!].members, unknown: [] })), "conditions");
  } catch (error) {
    return { empty: `Cannot compare conditions with the settings in colloquy.json: ${errorMessage(error)}` };
  }
  return compareSetFrom(result, set, codebook, "codes", []);
}

/** The view's data from a comparison (computed, or read from the compare file). */
function compareSetFrom(
  result: Pick<CompareFrequencies, "labels" | "conditions" | "options" | "frequencies" | "differences">,
  set: Pick<CodeSet, "codebook" | "coder">,
  codebook: CodebookInfo,
  source: CompareSet["source"],
  tests: CompareSet["tests"],
): CompareSet {
  const control = result.differences.control!;
  const collapse = result.options.collapse;
  const known = new Map(codebook.categories.map((c) => [c.id, c.label]));
  return {
    codebook: set.codebook,
    coder: set.coder,
    control,
    conditions: result.conditions.map((c) => c.name).filter((c) => c !== control),
    // A merged code is labelled by its new id; every other code keeps the codebook's label.
    codes: result.labels.map((id) => ({ id, label: id in collapse ? id : (known.get(id) ?? id) })),
    runs: Object.fromEntries(result.conditions.map((c) => [c.name, c.runs])),
    sessions: Object.fromEntries(result.conditions.map((c) => [c.name, c.sessions])),
    normalised: result.differences.basis === "per-run",
    counts: Object.fromEntries(result.frequencies.byCondition.map((row) => [row.key, { ...row.counts }])),
    cells: result.differences.rows.map((d) => ({
      condition: d.condition,
      code: d.code,
      count: d.count,
      controlCount: d.controlCount,
      pctDiff: d.percentDifference,
    })),
    collapse,
    dropped: result.options.drop,
    tests,
    source,
  };
}

/**
 * `colloquy compare`'s file as the view's data, for the coder it was computed for: its numbers
 * (with its own collapse and normalisation) and its tests. Undefined for other coders, and for a
 * file without a control: their numbers are computed.
 */
export function compareSetFromFile(
  set: Pick<CodeSet, "codebook" | "coder">,
  file: AnalysisFile<CompareReport> | undefined,
  codebook: CodebookInfo,
): CompareSet | undefined {
  if (!file || file.value.coder !== set.coder) return undefined;
  const report = file.value;
  if (report.differences.control === null) return undefined;
  const tests = report.tests.map((t) => ({
    label: [t.condition && t.reference ? `${t.condition} vs ${t.reference}` : t.across ? `across ${t.across}` : "", t.code ? `· ${t.code}` : ""]
      .join(" ")
      .trim(),
    test: inPlainWords(t.test),
    n: t.n,
    statistic: t.statistic ?? undefined,
    p: t.p ?? undefined,
    pAdjusted: t.pAdjusted ?? undefined,
    apa: apaCompareTest(t),
    note: t.note,
  }));
  const shaped = compareSetFrom(report, set, codebook, "analysis", tests);
  return report.design ? { ...shaped, design: `${report.design.description}; ${report.design.reason}` } : shaped;
}
