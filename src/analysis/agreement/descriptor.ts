import { defineArtifact, named, STUDY_FOLDERS } from "../../util/artifact.js";
import { agreementReportSchema } from "./schema.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { AgreementReport } from "./agree.js";

/** The files its stage writes (registry entries: name, place, schema). */
export const agreementFiles = {
  agreement: defineArtifact<[codebook: string], AgreementReport>({
    name: "agreement",
    description: "inter-coder agreement of one codebook",
    writtenBy: "colloquy agree",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: agreementReportSchema,
    // One disagreement per line: the agree stage keeps each session's lines and writes them in place.
    lineArrays: ["disagreements.rows"],
    ...named("agreement-", ".json"),
  }),
  agreementDisagreements: defineArtifact<[codebook: string], string>({
    name: "agreementDisagreements",
    description: "turns the coders disagreed on, with the turn text",
    writtenBy: "colloquy agree",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...named("agreement-", "-disagreements.csv"),
  }),
} as const;

/**
 * Inter-coder agreement of one codebook: `agreement-<codebook>.json`, computed by
 * {@link agreementOf} (src/analysis/agreement/agree.ts) from the coefficients in src/analysis/reliability/.
 */
export const agreementAnalysis: AnalysisDescriptor<AgreementReport> = {
  id: "agreement",
  title: "inter-coder agreement",
  stage: "agree",
  result: agreementFiles.agreement,
  artifacts: [agreementFiles.agreement, agreementFiles.agreementDisagreements],
  views: ["Agreement"],
  emptyWhen: ({ config, configFile }) =>
    config.humanCoders.length === 0 && config.codebooks.every((p) => p.coders.length < 2)
      ? `only one coder per codebook. Have people code a sample (\`colloquy sample\`, then \`colloquy annotate\`, or \`colloquy sheet\` and \`colloquy codes import\`): each is listed under "humanCoders" in ${configFile}.`
      : undefined,
};
