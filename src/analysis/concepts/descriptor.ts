import { artifacts } from "../../study/artifacts.js";
import type { ArtifactPart } from "../../study/artifact-part.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { ConceptsReport } from "./report.js";

/** What the dashboard shows of concepts.json (src/report/shape/analysis.ts, readConcepts, takes this part's type). */
export const conceptsShown = {
  members: ["provenance", "sessions", "conditions"],
  fields: { sessions: ["session", "condition", "firstMentions"] },
} as const satisfies ArtifactPart;

/** Noun concepts, concept rates and lexical measures: `concepts.json` and its table, computed by {@link buildConceptsParts} (the concepts stage, per session) or {@link buildConceptsReport} (the library call), both in src/analysis/concepts/report.ts. */
export const conceptsAnalysis: AnalysisDescriptor<ConceptsReport> = {
  id: "concepts",
  title: "noun concepts",
  stage: "concepts",
  result: artifacts.concepts,
  artifacts: [artifacts.concepts, artifacts.conceptsTable],
  shown: conceptsShown,
  views: ["Topics & concepts"],
};
