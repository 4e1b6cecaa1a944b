import { artifacts } from "../../study/artifacts.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { AgreementReport } from "./agree.js";

/**
 * Inter-coder agreement of one codebook: `agreement-<codebook>.json`, computed by
 * {@link agreementOf} (src/analysis/agreement/agree.ts) from the coefficients in src/analysis/reliability/.
 */
export const agreementAnalysis: AnalysisDescriptor<AgreementReport> = {
  id: "agreement",
  title: "inter-coder agreement",
  stage: "agree",
  result: artifacts.agreement,
  artifacts: [artifacts.agreement, artifacts.agreementDisagreements],
  views: ["Agreement"],
  emptyWhen: ({ config, configFile }) =>
    config.humanCoders.length === 0 && config.codebooks.every((p) => p.coders.length < 2)
      ? `only one coder per codebook. Have people code a sample (\`colloquy sample\`, \`colloquy sheet\`, \`colloquy codes import\`) and list them under "humanCoders" in ${configFile}.`
      : undefined,
};
