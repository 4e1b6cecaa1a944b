import { defineArtifact, fixed, STUDY_FOLDERS } from "../../util/artifact.js";
import { conceptsReportSchema } from "./schema.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { ConceptsReport } from "./report.js";

/** The files its stage writes (registry entries: name, place, schema). */
export const conceptsFiles = {
  concepts: defineArtifact<[], ConceptsReport>({
    name: "concepts",
    description: "noun concepts per turn, participant and session, and per-condition comparisons",
    writtenBy: "colloquy concepts",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: conceptsReportSchema,
    lineArrays: ["sessions"],
    ...fixed("concepts.json"),
  }),
  conceptsTable: defineArtifact<[], string>({
    name: "conceptsTable",
    description: "one row per participant and session of concepts",
    writtenBy: "colloquy concepts",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...fixed("concepts.csv"),
  }),
} as const;

/** Noun concepts, concept rates and lexical measures: `concepts.json` and its table, computed by {@link conceptsReport} from each session's `analyseSessionConcepts` (src/analysis/concepts/report.ts, measures.ts). */
export const conceptsAnalysis: AnalysisDescriptor<ConceptsReport> = {
  id: "concepts",
  title: "noun concepts",
  stage: "concepts",
  result: conceptsFiles.concepts,
  artifacts: [conceptsFiles.concepts, conceptsFiles.conceptsTable],
  views: ["Topics & concepts"],
};
