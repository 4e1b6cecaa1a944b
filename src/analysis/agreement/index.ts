// Public surface of `colloquy agree` for library users and the dashboard (re-exported by ./index.ts).
export {
  agreementOf,
  disagreementsCsv,
  defaultReference,
  type AgreementReport,
  type AgreementInput,
  type Disagreement,
  type VariableAgreement,
  type PairAgreement,
  type AlphaSummary,
  type CoderScores,
  type Interval as AgreementInterval,
  type Coverage as AgreementCoverage,
  type CodebookShape,
} from "./agree.js";
export { agreeCsv, type AgreeCsvOptions } from "./csv.js";
export { analyseVariable, type VariableOptions } from "./core.js";
export { formatAgreement } from "./format.js";
