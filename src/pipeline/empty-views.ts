import { analyses } from "../analysis/analyses.js";
import { resolveDesign } from "../analysis/shared/design.js";
import { NO_CONDITION } from "../analysis/shared/table.js";
import type { StudyContext } from "../stages/context.js";

/**
 * Dashboard views the study's data and settings will leave empty, each with how to fill it, so
 * `colloquy study` says so once at the end instead of leaving a hint inside the page: each
 * analysis says when its own views will be empty (`emptyWhen` of its descriptor).
 * Also the design the comparisons assumed, when it was inferred rather than declared.
 */
export async function emptyViewWarnings(context: StudyContext): Promise<string[]> {
  const sessions = await context.sessions();
  if (sessions.length === 0) return [];
  const config = context.config;
  const conditions = [...new Set(sessions.map((s) => s.metadata.condition ?? NO_CONDITION))].sort();
  const facts = { sessions, conditions, config, configFile: context.paths.config };
  const out: string[] = [];
  for (const analysis of analyses) {
    const why = analysis.emptyWhen?.(facts);
    if (why) out.push(`dashboard: ${analysis.views.map((v) => `"${v}"`).join(", ")} will be empty: ${why}`);
  }
  if (conditions.length >= 2 && config.compare.design === undefined) {
    const design = resolveDesign(sessions, {});
    out.push(`design: comparisons use the ${design.design}-subject design, ${design.reason.replace(/ \(set compare\.design.*\)$/, "")}; declare it with "compare": {"design": "${design.design}"} in ${facts.configFile}.`);
  }
  return out;
}
