import { agreeStudy, writeAgreement, type AgreeStudyOptions, type AgreementReport } from "../analysis/agree.js";
import type { StageEffects, StudyContext } from "./context.js";

/** The agree stage: reliability between coders of one codebook (machine vs human, human vs human). */
export type AgreeStageOptions = Omit<AgreeStudyOptions, "study" | "reporter">;

export interface AgreeSummary {
  report: AgreementReport;
  /** The JSON report and the disagreements CSV written under analysis/. */
  files: { json: string; csv: string };
}

export async function runAgree(context: StudyContext, options: AgreeStageOptions, effects: StageEffects): Promise<AgreeSummary> {
  const report = await agreeStudy({ ...options, study: context.dir, reporter: effects, reader: context });
  return { report, files: await writeAgreement(context.dir, report) };
}
