import { artifacts } from "../../study/artifacts.js";
import type { AnalysisDescriptor, StudyFacts } from "../descriptor.js";
import { NO_CONDITION } from "../shared/table.js";
import type { CompareReport } from "./compare.js";

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
    return `no control condition. Set "compare": {"control": "${conditions[0]}"} in ${configFile} (conditions: ${conditions.join(", ")}), then run \`colloquy study\` again.`;
  if (!conditions.includes(control) && !Object.keys(config.compare.conditionGroups ?? {}).includes(control)) {
    return `the control "${control}" (compare.control in ${configFile}) is not a condition of the study (${conditions.join(", ")}).`;
  }
  return undefined;
}

/**
 * What the dashboard shows of compare-<codebook>.json (src/report/shape/compare.ts,
 * compareSetFromFile, takes this part's type): its numbers and tests, not the per-participant
 * units they were computed from (1.4 MB of the file's 2.4 MB at 100,000 turns).
 */
/**
 * Code frequencies per condition, differences from the control and their tests:
 * `compare-<codebook>.json` and its tables, computed by {@link compareConditions} (src/analysis/compare/compare.ts);
 * the dashboard recomputes the frequencies with {@link compareFrequencies} and copies the tests.
 */
export const compareAnalysis: AnalysisDescriptor<CompareReport> = {
  id: "compare",
  title: "condition comparisons",
  stage: "compare",
  result: artifacts.compare,
  artifacts: [artifacts.compare, artifacts.compareFrequencies, artifacts.compareDifferences, artifacts.compareTests],
  views: ["Conditions vs control"],
  emptyWhen: whyNoComparison,
};
