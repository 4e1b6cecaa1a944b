import { agreementOf, type AgreementReport } from "../analysis/agreement/agree.js";
import { analyseVariable, type VariableOptions } from "../analysis/agreement/core.js";
import { inferShape, shapeFromDefinition, type CodebookShape } from "../analysis/agreement/study.js";
import { loadCodebook } from "../coding/codebook/load.js";
import type { CodeValue } from "../coding/records.js";
import { codesPath, listCoders } from "../coding/store.js";
import { openMemo } from "../study/memo.js";
import { diskReader, type StudyReader } from "../study/reader.js";
import { loadStudyConfig, studyPaths } from "../study/study.js";
import { CliError, errorMessage } from "../util/errors.js";
import { hashValue } from "../util/hash.js";
import { silentReporter, type Reporter } from "../util/reporter.js";
import { writeAgreement } from "./analysis-files.js";
import type { StageEffects, StudyContext } from "./context.js";
import { forgetStage } from "../pipeline/state.js";
import { describeSelection, selectedContext, selectionOf, type SessionSelection } from "./selection.js";

/** Options of {@link agreeStudy}. */
export interface AgreeStudyOptions {
  study: string;
  codebook: string;
  coders: readonly string[];
  /** Reference coder for precision/recall (default: the first human:* coder named, else the first). */
  reference?: string;
  seed?: number;
  /** Bootstrap replicates for the CIs (default 1000; 0 turns them off). */
  bootstrap?: number;
  reporter?: Reporter;
  /** Where sessions and records come from (default: the study's files). */
  reader?: StudyReader;
  /**
   * Keep the statistics in the study's memo (the pipeline's agree stage): they depend on the
   * ratings of the turns every coder coded and the settings alone, so after a session coded by a
   * machine coder alone is added they are reused, bootstrap intervals included.
   */
  cache?: boolean;
}

/**
 * Find the codebook definition: a plan in colloquy.json whose codebook has this id, else a
 * shipped codebook / file of that name. When none can be loaded, infer the shape from the
 * records so agreement still runs, and say so.
 */
export async function resolveCodebookShape(study: string, id: string, records: () => Iterable<CodeValue>): Promise<CodebookShape> {
  const problems: string[] = [];
  const root = studyPaths(study).root;
  try {
    const config = await loadStudyConfig(study);
    for (const plan of config.codebooks) {
      try {
        const codebook = await loadCodebook(plan.codebook, root);
        if (codebook.id === id) return shapeFromDefinition(codebook);
      } catch (error) {
        problems.push(`${plan.codebook}: ${errorMessage(error)}`);
      }
    }
  } catch (error) {
    problems.push(errorMessage(error));
  }
  try {
    const codebook = await loadCodebook(id, root);
    if (codebook.id === id) return shapeFromDefinition(codebook);
    problems.push(`${id} loads a codebook with id "${codebook.id}"`);
  } catch (error) {
    problems.push(errorMessage(error));
  }
  return inferShape(id, records(), problems);
}

/** "no codes from coder …": a coder named without a record of the codebook, with the coders and codebooks there are. */
function noCodes(study: string, codebook: string, coder: string, available: Record<string, string[]>): CliError {
  const here = available[codebook];
  return new CliError(
    `no codes from coder "${coder}" for codebook "${codebook}" (${codesPath(study, codebook, coder)} is missing or empty). ` +
      (here ? `Coders with codes for ${codebook}: ${here.join(", ")}.` : `Codebooks with codes in this study: ${Object.keys(available).join(", ") || "none"}.`),
  );
}

/**
 * Agreement between the named coders of one codebook in a study: loads the codebook's shape,
 * the coders' records and the sessions, and computes the report (agreementOf).
 */
export async function agreeStudy(options: AgreeStudyOptions): Promise<AgreementReport> {
  const reporter = options.reporter ?? silentReporter;
  const reader = options.reader ?? diskReader(options.study);
  const records = new Map<string, readonly CodeValue[]>();
  for (const coder of options.coders) {
    const list = await reader.codeValues(options.codebook, coder);
    if (list.length === 0) throw noCodes(options.study, options.codebook, coder, await listCoders(options.study));
    records.set(coder, list);
  }
  const shape = await resolveCodebookShape(options.study, options.codebook, () => [...records.values()].flat());
  const memo = options.cache ? await openMemo<ReturnType<typeof analyseVariable>[]>(options.study, ["agree-stats", options.codebook], {}) : undefined;
  const analyse = (variables: VariableOptions[]) => {
    const compute = () => variables.map(analyseVariable);
    return memo ? memo.get("statistics", hashValue(variables), compute) : compute();
  };
  const input = { ...options, study: studyPaths(options.study).root, shape, sessions: await reader.sessions(), records };
  const report = agreementOf(input, analyse);
  await memo?.save();
  const reused = memo && memo.stats.reused > 0 ? "; statistics reused" : "";
  reporter.log(`agree: ${report.coverage?.unitsCodedByAll ?? 0} turn(s) coded by all of ${options.coders.join(", ")}${reused}`);
  return report;
}

/** The agree stage: reliability between coders of one codebook (machine vs human, human vs human). */
export type AgreeStageOptions = Omit<AgreeStudyOptions, "study" | "reporter" | "reader" | "cache"> & {
  /** Only these sessions (e.g. an evaluation part); named in the report's provenance. */
  selection?: SessionSelection;
};

export interface AgreeSummary {
  report: AgreementReport;
  /** The JSON report and the disagreements CSV written under analysis/. */
  files: { json: string; csv: string };
}

export async function runAgree(context: StudyContext, options: AgreeStageOptions, effects: StageEffects): Promise<AgreeSummary> {
  const { selection, ...agree } = options;
  const given = selectionOf(selection);
  const reader = selectedContext(context, given);
  let sessions: string[] = [];
  if (given) {
    sessions = (await reader.sessions()).map((s) => s.id);
    // A coder with codes elsewhere in the study but none here: say so rather than "no codes at all".
    for (const coder of agree.coders) {
      if ((await reader.codeValues(agree.codebook, coder)).length === 0 && (await context.codeValues(agree.codebook, coder)).length > 0) {
        throw new CliError(`coder ${coder} coded no turn of ${describeSelection(given)} under codebook "${agree.codebook}"; choose sessions both coders coded`);
      }
    }
  }
  // The memo describes the whole study: a run on part of it neither reads nor replaces it.
  const report = await agreeStudy({ ...agree, study: context.dir, reporter: effects, reader, cache: !given });
  if (given) {
    report.provenance.selection = { ...given, selectedSessions: sessions };
    report.warnings.unshift(`computed on part of the study: ${describeSelection(given)} (${sessions.length} session(s))`);
  }
  const files = await writeAgreement(context.dir, report);
  // The file now describes part of the study: the next `colloquy study` computes it whole again.
  if (given) await forgetStage(context.dir, "agree");
  return { report, files };
}
