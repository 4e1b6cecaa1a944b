import { z } from "zod";
import type { TopicsReport } from "./report.js";
import { count, nullableNumber, type Conforms } from "../shared/schema-json.js";
import { provenanceSchema } from "../../util/provenance-schema.js";
import { measureComparisonSchema, speakerSelectionSchema } from "../concepts/schema.js";
import { topicTreeSchema } from "./tree.js";

/** Schema of `analysis/topics.json` ({@link TopicsReport}, written by `colloquy topics`). */

const runSchema = z.looseObject({
  run: count,
  seed: z.number().optional(),
  tree: topicTreeSchema.nullable(),
  mainTopics: count,
  subtopics: count,
  branchingRatio: nullableNumber,
  failure: z.string().optional(),
  raw: z.string().optional(),
  reasked: z.boolean().optional(),
  cached: z.boolean().optional(),
});

const treeSchema = z.looseObject({
  key: z.string(),
  scope: z.enum(["session", "participant"]),
  session: z.string(),
  condition: z.string(),
  participant: z.string().optional(),
  participantName: z.string().optional(),
  unit: z.string(),
  eligibleTurns: count,
  runs: z.array(runSchema),
  branching: z.looseObject({
    mean: nullableNumber,
    sd: nullableNumber,
    min: nullableNumber,
    max: nullableNumber,
    n: count,
    failedRuns: count,
    emptyRuns: count,
  }),
  merged: topicTreeSchema.extend({ mainTopicCount: count, subtopicCount: count, branchingRatio: nullableNumber }).nullable(),
  reviewed: z
    .looseObject({
      reviewers: z.array(z.string()),
      decisions: z.record(
        z.string(),
        z.looseObject({
          judgement: z.enum(["keep", "merge", "rename", "reject"]),
          mergeInto: z.string().optional(),
          newLabel: z.string().optional(),
          votes: count,
        }),
      ),
      mainTopics: count,
      subtopics: count,
      branchingRatio: nullableNumber,
    })
    .optional(),
});

export const topicsReportSchema = z.looseObject({
  provenance: provenanceSchema.extend({
    analysis: z.literal("topics"),
    coder: z.enum(["llm", "rules"]),
    scope: z.enum(["session", "participant"]),
    speakers: speakerSelectionSchema,
    runs: count,
    model: z.looseObject({ model: z.string(), endpointHost: z.string(), temperature: z.number() }).optional(),
    promptHash: z.string().optional(),
    seed: z.number().optional(),
    method: z.string(),
  }),
  trees: z.array(treeSchema),
  participants: z.array(
    z.looseObject({
      session: z.string(),
      condition: z.string(),
      participant: z.string(),
      name: z.string(),
      branchingRatio: nullableNumber,
      reviewedBranchingRatio: nullableNumber.optional(),
    }),
  ),
  sessions: z.array(
    z.looseObject({
      session: z.string(),
      condition: z.string(),
      branchingRatio: nullableNumber,
      trees: count,
      reviewedBranchingRatio: nullableNumber.optional(),
    }),
  ),
  conditions: z.array(measureComparisonSchema),
  failures: z.array(z.looseObject({ key: z.string(), run: count, reason: z.string() })),
});

const _fits: Conforms<typeof topicsReportSchema, TopicsReport> = true;
void _fits;
