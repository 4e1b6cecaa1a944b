import { resolveDesign } from "../analysis/shared/design.js";
import { NO_CONDITION } from "../analysis/shared/table.js";
import type { StudyContext } from "../stages/context.js";

/**
 * Dashboard views the study's data and settings will leave empty, each with how to fill it, so
 * `colloquy study` says so once at the end instead of leaving a hint inside the page.
 * Also the design the comparisons assumed, when it was inferred rather than declared.
 */
export async function emptyViewWarnings(context: StudyContext): Promise<string[]> {
  const sessions = await context.sessions();
  if (sessions.length === 0) return [];
  const config = context.config;
  const conditions = [...new Set(sessions.map((s) => s.metadata.condition ?? NO_CONDITION))].sort();
  const out: string[] = [];
  const file = context.paths.config;
  if (conditions.length < 2) {
    out.push(
      `dashboard: "Conditions vs control" and the condition comparisons will be empty: every session is in ${conditions[0] === NO_CONDITION ? "no condition" : `condition "${conditions[0]}"`}. ` +
        `Give sessions conditions when importing (a path pattern such as "import": {"pathPattern": "{condition}/{run}/*"} in ${file}, or --condition on \`colloquy import\`).`,
    );
  } else if (config.compare.control === undefined) {
    out.push(
      `dashboard: "Conditions vs control" will be empty: no control condition. Set "compare": {"control": "${conditions[0]}"} in ${file} (conditions: ${conditions.join(", ")}), then run \`colloquy study\` again.`,
    );
  } else if (!conditions.includes(config.compare.control) && !Object.keys(config.compare.conditionGroups ?? {}).includes(config.compare.control)) {
    out.push(`dashboard: "Conditions vs control" will be empty: the control "${config.compare.control}" (compare.control in ${file}) is not a condition of the study (${conditions.join(", ")}).`);
  }
  if (config.humanCoders.length === 0 && config.codebooks.every((p) => p.coders.length < 2)) {
    out.push(`dashboard: "Agreement" will be empty: only one coder per codebook. Have people code a sample (\`colloquy sample\`, \`colloquy sheet\`, \`colloquy codes import\`) and list them under "humanCoders" in ${file}.`);
  }
  if (conditions.length >= 2 && config.compare.design === undefined) {
    const design = resolveDesign(sessions, {});
    out.push(`design: comparisons use the ${design.design}-subject design, ${design.reason.replace(/ \(set compare\.design.*\)$/, "")}; declare it with "compare": {"design": "${design.design}"} in ${file}.`);
  }
  return out;
}
