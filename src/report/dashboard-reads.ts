import { z } from "zod";
import { conceptsAnalysis, statsAnalysis, type AnalysisDescriptor } from "../analysis/analyses.js";
import { conceptsReportSchema } from "../analysis/concepts/schema.js";
import { statsReportSchema } from "../analysis/stats/schema.js";

const conceptsSessionSchema = conceptsReportSchema.shape.sessions.element;

/**
 * What the dashboard reads of an analysis file, where that is much less than the file: the build
 * validates those fields with the analysis's own schemas (src/report/load.ts readAnalysisFiles) and
 * leaves the rest, which it never reads, unvalidated. The schemas are loose objects, so the fields
 * not named pass through as they are; a field the dashboard reads is validated exactly as before.
 * At 100,000 turns stats.json (15 MB) and concepts.json (20 MB) took ~0.9 s of zod in every build,
 * for the file list's provenance (stats) and the rates and first mentions (concepts).
 */
const DASHBOARD_READS = new Map<AnalysisDescriptor<unknown>, z.ZodType>([
  // The overview's list of analysis files: its provenance.
  [statsAnalysis as AnalysisDescriptor<unknown>, statsReportSchema.pick({ provenance: true })],
  // readConcepts (shape/analysis.ts): the condition comparisons and each session's first mentions.
  [
    conceptsAnalysis as AnalysisDescriptor<unknown>,
    conceptsReportSchema
      .pick({ provenance: true, conditions: true })
      .extend({ sessions: z.array(conceptsSessionSchema.pick({ session: true, condition: true, firstMentions: true })) }),
  ],
]);

/** The schema the build validates an analysis's file with: what the dashboard reads of it, else the whole file's. */
export function dashboardSchema(analysis: AnalysisDescriptor<unknown>): z.ZodType | null {
  return DASHBOARD_READS.get(analysis) ?? analysis.result.schema;
}
