import { z } from "zod";
import type { ConceptsReport } from "./report.js";
import { count, nullableNumber, type Conforms } from "../shared/schema-json.js";
import { provenanceSchema } from "../../util/provenance-schema.js";

/**
 * Schema of `analysis/concepts.json` ({@link ConceptsReport}, written by `colloquy concepts`),
 * and of the per-measure condition comparisons that the topics report shares.
 */

export const speakerSelectionSchema = z.union([z.enum(["human", "all"]), z.array(z.string())]);

export const valueSummarySchema = z.looseObject({
  n: count,
  mean: nullableNumber,
  sd: nullableNumber,
  min: nullableNumber,
  max: nullableNumber,
  missing: count,
  /** Absent from files written before the interval was added. */
  ci95: z.tuple([z.number(), z.number()]).nullable().optional(),
});

const testId = z.enum(["permutation", "paired-permutation", "wilcoxon", "mann-whitney", "welch"]);

export const conditionTestSchema = z.looseObject({
  a: z.string(),
  b: z.string(),
  test: testId,
  testName: z.string(),
  n: count,
  nA: count,
  nB: count,
  statisticName: z.string(),
  statistic: nullableNumber,
  df: z.number().optional(),
  p: nullableNumber,
  pAdjusted: nullableNumber,
  adjust: z.enum(["holm", "bh", "none"]),
  meanDiff: nullableNumber,
  effectCi95: z.tuple([z.number(), z.number()]).nullable().optional(),
  smallestP: nullableNumber.optional(),
  mde80: nullableNumber.optional(),
  skipped: z.string().optional(),
});

export const measureComparisonSchema = z.looseObject({
  measure: z.string(),
  level: z.enum(["participant", "session"]),
  unit: z.enum(["participant", "session"]),
  byCondition: z.record(z.string(), valueSummarySchema),
  design: z.enum(["within", "between"]),
  designSource: z.enum(["flag", "colloquy.json", "default"]),
  designReason: z.string(),
  tests: z.array(conditionTestSchema),
});

const rateSchema = z.looseObject({ value: nullableNumber, basis: z.enum(["session", "active"]), minutes: nullableNumber, reason: z.string().optional() });

const participantSchema = z.looseObject({
  session: z.string(),
  condition: z.string(),
  participant: z.string(),
  name: z.string(),
  kind: z.string(),
  turns: count,
  words: count,
  wordsPerUtterance: nullableNumber,
  totalConcepts: count,
  uniqueConcepts: count,
  conceptsPerUtterance: nullableNumber,
  rate: rateSchema,
  introduced: count,
  pickedUp: count,
  mtld: z.looseObject({ mtld: nullableNumber, forward: nullableNumber, backward: nullableNumber, tokens: count }),
  cohesion: nullableNumber,
  cohesionTurns: count,
});

const sessionSchema = z.looseObject({
  session: z.string(),
  condition: z.string(),
  durationMinutes: nullableNumber,
  totalConcepts: count,
  uniqueConcepts: count,
  conceptsPerUtterance: nullableNumber,
  rate: rateSchema,
  participants: z.array(participantSchema),
  firstMentions: z.array(z.looseObject({ concept: z.string(), turn: z.string(), speaker: z.string(), start: nullableNumber, mentions: count })),
  uptake: z.looseObject({ speakers: z.array(z.string()), matrix: z.array(z.array(count)) }),
  turns: z.array(
    z.looseObject({ turn: z.string(), speaker: z.string(), start: nullableNumber, concepts: z.array(z.string()), words: count, selected: z.boolean() }),
  ),
});

export const conceptsReportSchema = z.looseObject({
  provenance: provenanceSchema.extend({
    speakers: speakerSelectionSchema,
    rateBasis: z.enum(["session", "active"]),
    extractor: z.string(),
    lexicon: z.looseObject({ source: z.string().nullable(), terms: count, ignore: count }),
    mtldThreshold: z.number(),
    sessions: count,
  }),
  sessions: z.array(sessionSchema),
  conditions: z.array(measureComparisonSchema),
});

const _fits: Conforms<typeof conceptsReportSchema, ConceptsReport> = true;
void _fits;
