// Public API of the concepts analysis.
export { createConceptExtractor, type ConceptExtractor } from "./extract.js";
export { parseLexicon, makeLexicon, emptyLexicon, type Lexicon } from "./lexicon.js";
export { mtld, mtldPass, MTLD_THRESHOLD, type MtldResult } from "./mtld.js";
export { tokenize, words, type Token } from "./tokens.js";
export {
  analyseSessionConcepts,
  type ConceptRate,
  type FirstMention,
  type ParticipantConcepts,
  type SessionConcepts,
  type TurnConcepts,
  type UptakeMatrix,
} from "./measures.js";
export { buildConceptsReport, conceptsCsv, conceptsReport, type ConceptsReport, type ConceptsOptions } from "./report.js";
export {
  compareMeasures,
  summariseValues,
  meanInterval,
  type ConditionTest,
  type MeasureComparison,
  type ValueSummary,
  type UnitValue,
  type MeasureCompareOptions,
} from "./conditions.js";
export { parseSpeakers, isSelected, checkSelection, isSpokenTurn, type SpeakerSelection } from "./speakers.js";
