import { loadCodedStudy, type LoadedCodes } from "./coded.js";
import { chooseCodebook, codebookCandidates } from "./codebook-choice.js";
import { buildStats, type StatsReport } from "../analysis/stats/report.js";
import { sessionMetrics, type SessionMetrics } from "../analysis/stats/metrics.js";
import { memoNote, openMemo, sessionHash } from "../study/memo.js";
import { writeStatsReport, type StatsFiles } from "./analysis-files.js";
import { portableStudyPath, provenance } from "../util/provenance.js";
import type { StageEffects, StudyContext } from "./context.js";
import { forgetStage } from "../pipeline/state.js";
import { describeSelection, selectedContext, selectionOf, type SessionSelection } from "./selection.js";

/** The stats stage: session metrics, participation, Bales profiles, phases, transitions, sequences. */
export interface StatsStageOptions {
  /** Nominal codebook for the Bales and sequence parts (default: the one rule of ./codebook-choice.ts). */
  codebook?: string;
  /** Whose codes; needed when several coders exist. */
  coder?: string;
  /** Only these sessions (e.g. an evaluation part); named in the report's provenance. */
  selection?: SessionSelection;
}

export interface StatsSummary {
  report: StatsReport;
  files: StatsFiles;
}

export async function runStats(whole: StudyContext, options: StatsStageOptions, effects: StageEffects): Promise<StatsSummary> {
  const selection = selectionOf(options.selection);
  const context = selectedContext(whole, selection);
  const sessions = await context.sessions();
  const notes: string[] = [];
  let loaded: LoadedCodes | undefined;
  // Metrics need no codes: without a codebook or coder named, a study not coded yet still gets
  // them. Any other problem (a corrupt codes file, several coders) still fails loudly.
  const need = { command: "stats", nominal: true, coded: options.coder ? [options.coder] : true } as const;
  if (options.codebook === undefined && options.coder === undefined && (await codebookCandidates(whole, need)).length === 0) {
    notes.push(`no Bales or sequence analyses: the study has no codes of a nominal codebook yet (run \`colloquy code ${context.dir}\`)`);
    effects.warn(notes[0]);
  } else {
    loaded = await loadCodedStudy(context.dir, await chooseCodebook(whole, options.codebook, need), options.coder, context, whole.config.codebooks);
  }
  // Each session's metrics depend on its turns only: kept per session in the study's memo, so
  // adding a session measures that session; everything over sessions is computed again. A
  // selection is measured afresh (saving its entries would drop the other sessions').
  const memo = selection ? undefined : await openMemo<SessionMetrics>(context.dir, "stats-metrics", {});
  const measure = memo ? (s: (typeof sessions)[number]) => memo.get(s.id, sessionHash(s), () => sessionMetrics(s)) : sessionMetrics;
  const result = buildStats(sessions, loaded && { data: loaded.data, codebook: loaded.codebook, coder: loaded.coder }, measure);
  await memo?.save();
  if (memo) effects.log(`stats: ${sessions.length} session(s)${memoNote(memo)}`);
  const reportNotes = result.notes;
  reportNotes.push(...notes);
  if (selection) reportNotes.unshift(`computed on part of the study: ${describeSelection(selection)} (${sessions.length} session(s))`);
  for (const v of loaded?.otherVersions ?? []) {
    reportNotes.push(
      `${v.records} code records were made with codebook version ${v.version}, not ${loaded!.codebook.version}; recode them if definitions changed`,
    );
  }
  const reportProvenance = provenance({
    command: "stats",
    study: portableStudyPath(context.paths.root),
    sessions: sessions.length,
    ...(selection ? { selection: { ...selection, selectedSessions: sessions.map((s) => s.id) } } : {}),
    ...(loaded ? { codebook: { id: loaded.codebook.id, version: loaded.codebook.version }, coder: loaded.coder } : {}),
  });
  const report: StatsReport = { provenance: reportProvenance, ...result };
  const files = await writeStatsReport(context.dir, report);
  // The file now describes part of the study: the next `colloquy study` computes it whole again.
  if (selection) await forgetStage(context.dir, "stats");
  return { report, files };
}
