import { analyses } from "../analysis/analyses.js";
import { repeatedParticipants, resolveDesign } from "../analysis/shared/design.js";
import { NO_CONDITION } from "../analysis/shared/table.js";
import type { StudyContext } from "../stages/context.js";
import { toolVersion } from "../util/provenance.js";
import { fingerprint, type FileHasher } from "./fingerprint.js";
import type { PipelineState } from "./state.js";

/**
 * {@link emptyViewWarnings}, worked out again only when the sessions or colloquy.json changed:
 * it needs every session's conditions and participants, and reading them all would make a
 * run that changed nothing as slow as loading the study. `state.emptyViews` is updated in place
 * (the caller writes the state).
 */
export async function rememberedEmptyViewWarnings(context: StudyContext, hashes: FileHasher, state: PipelineState): Promise<string[]> {
  // The warnings name the study's paths (its colloquy.json, `--study <root>`): a copied or moved
  // study works them out again rather than replaying the old folder's.
  const print = fingerprint({ sessions: await hashes.folder(context.paths.sessions), config: context.config, root: context.paths.root, tool: toolVersion });
  if (state.emptyViews?.fingerprint === print) return state.emptyViews.warnings;
  const warnings = await emptyViewWarnings(context);
  state.emptyViews = { fingerprint: print, warnings };
  return warnings;
}

/**
 * Dashboard views the study's data and settings will leave empty, each with how to fill it, so
 * `colloquy study` says so once at the end instead of leaving a hint inside the page: each
 * analysis says when its own views will be empty (`emptyWhen` of its descriptor).
 * Also the design the comparisons assumed, when it was inferred rather than declared.
 */
async function emptyViewWarnings(context: StudyContext): Promise<string[]> {
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
  // A live session stopped by a failure or an interruption and not resumed yet is analysed as far
  // as it got: said here, or its shorter length passes for the participants' behaviour.
  const stopped = sessions.filter((s) => s.metadata.incomplete === true).map((s) => s.id);
  if (stopped.length)
    out.push(
      `sessions: ${stopped.length} stopped before their end and are analysed as far as they got (metadata.incomplete): ${stopped.join(", ")}; continue them with \`colloquy run <scenario> --study ${context.paths.root} --resume\`, or leave them out.`,
    );
  if (conditions.length >= 2 && config.compare.design === undefined && config.compare.unit === undefined) {
    const design = resolveDesign(sessions, {});
    out.push(
      `design: comparisons use sessions as independent units (${design.reason}); declare the design under "compare" in ${facts.configFile} (docs/statistics.md).`,
    );
  } else if (conditions.length >= 2 && config.compare.design !== "within") {
    // Declared between-subject while people are in several conditions: every between-subject test
    // assumes independent samples, so it is said here too, not only in compare's own lines.
    const { agentUnits, design, unit } = config.compare;
    const declared = resolveDesign(sessions, { config: { agentUnits, design, unit } });
    if (repeatedParticipants(sessions, declared.agentUnits).length > 0) out.push(`design: ${declared.reason} (docs/statistics.md).`);
  }
  return out;
}
