import { defineArtifact, named, STUDY_FOLDERS } from "../../util/artifact.js";
import { compareReportSchema } from "./schema.js";
import type { AnalysisDescriptor, StudyFacts } from "../descriptor.js";
import { NO_CONDITION } from "../shared/table.js";
import type { CompareReport } from "./compare.js";

/**
 * The condition to name in the advice: one called control or baseline when there is one (the
 * first in alphabetical order is rarely the control: ChatCollab's is "control", after
 * "asks_opinion"), else the first. Only a suggestion: the control is never inferred.
 */
function likelyControl(conditions: readonly string[]): string {
  return conditions.find((c) => /^(control|baseline)$/i.test(c.trim())) ?? conditions[0];
}

/** Why there is nothing to compare: fewer than two conditions, or no usable control. */
function whyNoComparison({ conditions, config, configFile }: StudyFacts): string | undefined {
  const control = config.compare.control;
  if (conditions.length < 2) {
    return (
      `every session is in ${conditions[0] === NO_CONDITION ? "no condition" : `condition "${conditions[0]}"`}, so the condition comparisons of the other views are empty too. ` +
      `Give sessions conditions when importing (a path pattern such as "import": {"pathPattern": "{condition}/{run}/*"} in ${configFile}, or --condition on \`colloquy import\`).`
    );
  }
  if (control === undefined)
    return `no control condition. Set "compare": {"control": "${likelyControl(conditions)}"} in ${configFile} (conditions: ${conditions.join(", ")}), then run \`colloquy study\` again.`;
  if (!conditions.includes(control) && !Object.keys(config.compare.conditionGroups ?? {}).includes(control)) {
    return `the control "${control}" (compare.control in ${configFile}) is not a condition of the study (${conditions.join(", ")}).`;
  }
  return undefined;
}

/** The files its stage writes (registry entries: name, place, schema). */
export const compareFiles = {
  compare: defineArtifact<[codebook: string], CompareReport>({
    name: "compare",
    description: "code frequencies per condition, differences from the control, tests",
    writtenBy: "colloquy compare",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: compareReportSchema,
    lineArrays: ["units"],
    ...named("compare-", ".json"),
  }),
  compareFrequencies: defineArtifact<[codebook: string], string>({
    name: "compareFrequencies",
    description: "long-format frequency table of a comparison",
    writtenBy: "colloquy compare",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...named("compare-", "-frequencies.csv"),
  }),
  compareDifferences: defineArtifact<[codebook: string], string>({
    name: "compareDifferences",
    description: "differences from the control of a comparison",
    writtenBy: "colloquy compare",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...named("compare-", "-differences.csv"),
  }),
  compareTests: defineArtifact<[codebook: string], string>({
    name: "compareTests",
    description: "tests of a comparison",
    writtenBy: "colloquy compare",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...named("compare-", "-tests.csv"),
  }),
} as const;

/**
 * Code frequencies per condition, differences from the control and their tests:
 * `compare-<codebook>.json` and its tables, computed by {@link compareConditions} (src/analysis/compare/compare.ts);
 * the dashboard recomputes the frequencies with {@link compareFrequencies} and copies the tests.
 */
export const compareAnalysis: AnalysisDescriptor<CompareReport> = {
  id: "compare",
  title: "condition comparisons",
  stage: "compare",
  result: compareFiles.compare,
  artifacts: [compareFiles.compare, compareFiles.compareFrequencies, compareFiles.compareDifferences, compareFiles.compareTests],
  views: ["Conditions vs control"],
  emptyWhen: whyNoComparison,
};
