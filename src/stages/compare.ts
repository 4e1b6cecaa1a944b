import { compareConditions, type CompareOptions, type CompareReport } from "../analysis/compare/compare.js";
import { loadCodedStudy } from "./coded.js";
import { chooseCodebook } from "./codebook-choice.js";
import { writeCompareReport } from "./analysis-files.js";
import { CliError } from "../util/errors.js";
import { portableStudyPath, provenance } from "../util/provenance.js";
import type { StageEffects, StudyContext } from "./context.js";
import { forgetStage } from "../pipeline/state.js";
import { studyInference, type InferenceFlags } from "./design.js";
import { describeSelection, selectedContext, selectionOf, type SessionSelection } from "./selection.js";

/**
 * The compare stage: code frequencies per condition, role and speaker, differences from the
 * control condition, and tests between conditions. Settings not given fall back to colloquy.json.
 */
export interface CompareStageOptions extends Omit<CompareOptions, "where" | "inference"> {
  /** Over colloquy.json's design, unit, test and adjustment. */
  inference?: InferenceFlags;
  /** Nominal codebook id or file (default: the one rule of ./codebook-choice.ts). */
  codebook?: string;
  /** Whose codes; needed when several coders exist. */
  coder?: string;
  /** Only these sessions (e.g. an evaluation part); named in the report's provenance. */
  selection?: SessionSelection;
}

export interface CompareSummary {
  report: CompareReport;
  /** analysis/compare-<codebook>.json and its three CSV tables. */
  files: { json: string; frequencies: string; differences: string; tests: string };
}

export async function runCompare(context: StudyContext, options: CompareStageOptions, effects: StageEffects): Promise<CompareSummary> {
  const config = context.config.compare;
  const selection = selectionOf(options.selection);
  const reader = selectedContext(context, selection);
  const codebookRef = await chooseCodebook(context, options.codebook, { command: "compare", nominal: true, coded: options.coder ? [options.coder] : true });
  const loaded = await loadCodedStudy(context.dir, codebookRef, options.coder, reader, context.config.codebooks);
  if (selection && loaded.data.codedTurns === 0) {
    throw new CliError(`${loaded.coder} coded no turn of ${describeSelection(selection)} under codebook "${loaded.codebook.id}"; there is nothing to compare`);
  }
  // Named in messages, so a researcher knows which setting to fix.
  const src = (flag: string, field: string, given: unknown) => (given !== undefined ? flag : `colloquy.json compare.${field}`);
  const inference = studyInference(context.config, await context.sessions(), options.inference);
  const collapse = options.collapse ?? config.collapse;
  const drop = options.drop ?? config.drop;
  const result = compareConditions(loaded.data, {
    control: options.control ?? config.control,
    collapse,
    drop,
    conditionGroups: options.conditionGroups ?? config.conditionGroups,
    normaliseByRuns: options.normaliseByRuns ?? config.normaliseByRuns,
    inference,
    measure: options.measure,
    where: {
      collapse: src("--collapse", "collapse", options.collapse),
      drop: src("--drop", "drop", options.drop),
      groups: src("--group", "conditionGroups", options.conditionGroups),
      control: src("--control", "control", options.control),
    },
  });
  for (const v of loaded.otherVersions) {
    result.notes.push(
      `${v.records} code records were made with codebook version ${v.version}, not ${loaded.codebook.version}; recode them if definitions changed`,
    );
  }
  if (selection) result.notes.unshift(`computed on part of the study: ${describeSelection(selection)} (${loaded.sessions.length} session(s))`);
  const codebook = { id: loaded.codebook.id, version: loaded.codebook.version };
  const report: CompareReport = {
    provenance: provenance({
      command: "compare",
      study: portableStudyPath(context.paths.root),
      codebook,
      coder: loaded.coder,
      sessions: loaded.sessions.length,
      options: result.options,
      ...(selection ? { selection: { ...selection, selectedSessions: loaded.sessions.map((s) => s.id) } } : {}),
    }),
    codebook,
    coder: loaded.coder,
    ...result,
  };
  const files = await writeCompareReport(context.dir, report);
  // The file now describes part of the study: the next `colloquy study` computes it whole again.
  if (selection) await forgetStage(context.dir, "compare");
  effects.log(
    `compare: ${loaded.codebook.id} (${loaded.coder}), ${loaded.sessions.length} session(s); ${result.design!.description} (${inference.design.reason}); one ${result.options.test} test per comparison and code`,
  );
  return { report, files };
}
