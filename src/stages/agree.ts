import { agreeStudy, writeAgreement, type AgreeStudyOptions, type AgreementReport } from "../analysis/agreement/agree.js";
import { CliError } from "../util/errors.js";
import type { StageEffects, StudyContext } from "./context.js";
import { forgetStage } from "../pipeline/state.js";
import { describeSelection, selectedContext, selectionOf, type SessionSelection } from "./selection.js";

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
      if ((await reader.codes(agree.codebook, coder)).length === 0 && (await context.codes(agree.codebook, coder)).length > 0) {
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
