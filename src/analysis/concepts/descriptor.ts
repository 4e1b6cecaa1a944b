import { artifacts } from "../../study/artifacts.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { ConceptsReport } from "./report.js";

/** Noun concepts, concept rates and lexical measures: `concepts.json` and its table, computed by {@link conceptsReport} from each session's `analyseSessionConcepts` (src/analysis/concepts/report.ts, measures.ts). */
export const conceptsAnalysis: AnalysisDescriptor<ConceptsReport> = {
  id: "concepts",
  title: "noun concepts",
  stage: "concepts",
  result: artifacts.concepts,
  artifacts: [artifacts.concepts, artifacts.conceptsTable],
  views: ["Topics & concepts"],
};
