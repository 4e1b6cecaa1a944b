import { loadCodedStudy, type LoadedCodes } from "../analysis/compare/load.js";
import type { StatsReport } from "../analysis/stats/report.js";
import { buildStatsParts, sessionMetricsPart, statsReportOf, writeStatsParts, type SessionMetricsPart, type StatsCodesPart } from "../analysis/stats/parts.js";
import { joinInputsDigests } from "../analysis/compare/session-parts.js";
import { memoNote, openSessionMemo } from "../study/session-memo.js";
import { knownLabels, type CodedSession } from "../analysis/shared/table.js";
import type { StatsFiles } from "../analysis/stats/output.js";
import { provenance } from "../util/provenance.js";
import type { StageEffects, StudyContext } from "./context.js";
import { forgetStage } from "../pipeline/state.js";
import { describeSelection, selectedContext, selectionOf, type SessionSelection } from "./selection.js";

/** The stats stage: session metrics, participation, Bales profiles, phases, transitions, sequences. */
export interface StatsStageOptions {
  /** Nominal codebook for the Bales and sequence parts (default bales-ipa). */
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

const DEFAULT_CODEBOOK = "bales-ipa";

export async function runStats(whole: StudyContext, options: StatsStageOptions, effects: StageEffects): Promise<StatsSummary> {
  const selection = selectionOf(options.selection);
  const context = selectedContext(whole, selection);
  const sessions = await context.sessions();
  const codebook = options.codebook ?? DEFAULT_CODEBOOK;
  const notes: string[] = [];
  let loaded: LoadedCodes | undefined;
  // Metrics need no codes: without an explicit codebook, a study not coded yet still gets them.
  // Any other problem (a corrupt codes file, several coders) still fails loudly.
  if (options.codebook === undefined && options.coder === undefined && !(await context.coders())[DEFAULT_CODEBOOK]) {
    notes.push(
      `no Bales or sequence analyses: the study has no ${DEFAULT_CODEBOOK} codes yet (run \`colloquy code ${context.dir} --codebook ${DEFAULT_CODEBOOK}\`)`,
    );
    effects.warn(notes[0]);
  } else {
    loaded = await loadCodedStudy(context.dir, codebook, options.coder, sessions, context, { incremental: !selection, plans: whole.config.codebooks });
  }
  // Each session's metrics, and its text in stats.json and the tables, depend on its turns only:
  // kept per session (.cache/memo/stats-metrics.v8), so adding a session measures that session;
  // the summaries over sessions are always recomputed. A selection is measured afresh (saving its
  // entries would drop the other sessions').
  const memo = selection ? undefined : await openSessionMemo<SessionMetricsPart>(context.dir, "stats-metrics", {});
  const measure = memo ? (s: (typeof sessions)[number]) => memo.get(s.id, s, () => sessionMetricsPart(s)) : sessionMetricsPart;
  // Each session's Bales and sequence counts and entries depend on its turns and its records'
  // codes (the digests the join took) under the codebook, its codes outside the codebook numbered
  // on their own (another session's unknown code leaves them valid): kept per session too.
  const digests = loaded && joinInputsDigests(loaded.data);
  const codesMemo =
    loaded && digests
      ? await openSessionMemo<StatsCodesPart>(context.dir, ["stats-codes", loaded.codebook.id, loaded.coder], {
          labels: loaded.data.labels.slice(0, knownLabels(loaded.data)),
          codebook: loaded.codebook,
        })
      : undefined;
  const part =
    codesMemo && digests
      ? (cs: CodedSession, compute: () => StatsCodesPart) => codesMemo.get(cs.session.id, cs.session, compute, digests.get(cs.session.id))
      : undefined;
  const parts = buildStatsParts(sessions, loaded && { data: loaded.data, codebook: loaded.codebook, coder: loaded.coder, part }, measure);
  await memo?.save();
  await codesMemo?.save();
  // The codes' note only when some were reused: "(n analysed, m reused from .cache/memo)".
  const codesNote = codesMemo ? memoNote(codesMemo) : "";
  if (memo)
    effects.log(`stats: ${sessions.length} session(s)${memoNote(memo)}${codesNote && `; ${loaded!.codebook.id} codes of ${loaded!.coder}${codesNote}`}`);
  const reportNotes = parts.pooled.notes;
  reportNotes.push(...notes);
  if (selection) reportNotes.unshift(`computed on part of the study: ${describeSelection(selection)} (${sessions.length} session(s))`);
  for (const v of loaded?.otherVersions ?? []) {
    reportNotes.push(
      `${v.records} code records were made with codebook version ${v.version}, not ${loaded!.codebook.version}; recode them if definitions changed`,
    );
  }
  const reportProvenance = provenance({
    command: "stats",
    study: context.paths.root,
    sessions: sessions.length,
    ...(selection ? { selection: { ...selection, selectedSessions: sessions.map((s) => s.id) } } : {}),
    ...(loaded ? { codebook: { id: loaded.codebook.id, version: loaded.codebook.version }, coder: loaded.coder } : {}),
  });
  const files = await writeStatsParts(context.dir, reportProvenance, parts);
  // The file now describes part of the study: the next `colloquy study` computes it whole again.
  if (selection) await forgetStage(context.dir, "stats");
  // The report's per-session entries are parsed from their lines only when it is read (the stats
  // command prints it; the study pipeline, which only writes the files, never pays for it).
  let report: StatsReport | undefined;
  return {
    get report() {
      return (report ??= statsReportOf(reportProvenance, parts));
    },
    files,
  };
}
