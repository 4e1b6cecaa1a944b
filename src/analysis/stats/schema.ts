import { z } from "zod";
import { participantKinds } from "../../transcript/schema.js";
import type { StatsReport } from "./report.js";
import { count, countRecord, nullableNumber, type Conforms } from "../shared/schema-json.js";
import { provenanceSchema } from "../../util/provenance-schema.js";

/** Schema of `analysis/stats.json` ({@link StatsReport}, written by `colloquy stats`). */

const summarySchema = z.looseObject({ n: count, mean: nullableNumber, sd: nullableNumber, min: nullableNumber, max: nullableNumber });
const matrixSchema = z.looseObject({ ids: z.array(z.string()), names: z.array(z.string()), counts: z.array(z.array(count)) });

const memberSchema = z.looseObject({
  session: z.string(),
  condition: z.string(),
  run: z.string(),
  participant: z.string(),
  name: z.string(),
  role: z.string(),
  kind: z.enum(participantKinds),
  turns: count,
  words: count,
  shareTurns: nullableNumber,
  shareWords: nullableNumber,
  meanWordsPerTurn: nullableNumber,
  turnsPerMinute: nullableNumber,
  wordsPerMinute: nullableNumber,
});

const sessionSchema = z.looseObject({
  session: z.string(),
  condition: z.string(),
  run: z.string(),
  members: count,
  turns: count,
  words: count,
  excludedTurns: count,
  durationSeconds: nullableNumber,
  durationNote: z.string().optional(),
  turnsPerMinute: nullableNumber,
  wordsPerMinute: nullableNumber,
  meanWordsPerTurn: nullableNumber,
  balance: z.looseObject({ entropyTurns: nullableNumber, entropyWords: nullableNumber, oneMinusGiniTurns: nullableNumber, oneMinusGiniWords: nullableNumber }),
  follows: matrixSchema,
  addresses: matrixSchema.nullable(),
  participants: z.array(memberSchema),
});

const conditionSchema = z.looseObject({
  condition: z.string(),
  sessions: count,
  turns: summarySchema,
  words: summarySchema,
  durationSeconds: summarySchema,
  turnsPerMinute: summarySchema,
  wordsPerMinute: summarySchema,
  meanWordsPerTurn: summarySchema,
  balanceEntropyTurns: summarySchema,
  balanceOneMinusGiniTurns: summarySchema,
});

const roleSchema = z.looseObject({
  condition: z.string(),
  role: z.string(),
  members: count,
  turns: summarySchema,
  words: summarySchema,
  shareTurns: summarySchema,
  shareWords: summarySchema,
  meanWordsPerTurn: summarySchema,
  turnsPerMinute: summarySchema,
  wordsPerMinute: summarySchema,
});

const profileSchema = z.looseObject({
  acts: count,
  fallback: count,
  counts: countRecord,
  percent: z.record(z.string(), nullableNumber),
  groups: z.record(z.string(), z.looseObject({ count: count, percent: nullableNumber })),
  ratios: z.record(z.string(), z.looseObject({ numerator: count, denominator: count, value: nullableNumber })),
});

const thirdSchema = z.looseObject({
  acts: count,
  counts: countRecord,
  categories: countRecord,
  shares: z.record(z.string(), nullableNumber),
});

const transitionSchema = z.looseObject({
  labels: z.array(z.string()),
  counts: z.array(z.array(count)),
  proportions: z.array(z.array(nullableNumber)),
  transitions: count,
});

const segmentSchema = z.looseObject({
  name: z.enum(["early", "middle", "late"]),
  turns: count,
  counts: countRecord,
  proportions: z.record(z.string(), nullableNumber),
});

const codesSchema = z.looseObject({
  codebook: z.looseObject({ id: z.string(), version: z.string() }),
  coder: z.string(),
  labels: z.array(z.string()),
  codedTurns: count,
  uncodedTurns: count,
  profiles: z.looseObject({
    members: z.array(
      z.looseObject({ session: z.string(), condition: z.string(), participant: z.string(), name: z.string(), role: z.string(), profile: profileSchema }),
    ),
    roles: z.array(z.looseObject({ condition: z.string(), role: z.string(), profile: profileSchema })),
    conditions: z.array(z.looseObject({ condition: z.string(), profile: profileSchema })),
    overall: profileSchema,
  }),
  phases: z
    .looseObject({
      groups: z.array(z.string()),
      sessions: z.array(z.looseObject({ session: z.string(), condition: z.string(), thirds: z.array(thirdSchema) })),
      conditions: z.array(z.looseObject({ condition: z.string(), thirds: z.array(thirdSchema) })),
      overall: z.array(thirdSchema),
    })
    .nullable(),
  transitions: z.looseObject({ overall: transitionSchema, conditions: z.array(z.looseObject({ condition: z.string(), matrix: transitionSchema })) }),
  sequences: z.array(
    z.looseObject({
      session: z.string(),
      condition: z.string(),
      participants: z.array(z.string()),
      speakers: z.array(z.number().int()),
      codes: z.array(z.number().int()),
    }),
  ),
  segments: z.looseObject({
    labels: z.array(z.string()),
    sessions: z.array(z.looseObject({ session: z.string(), condition: z.string(), segments: z.array(segmentSchema) })),
    conditions: z.array(z.looseObject({ condition: z.string(), segments: z.array(segmentSchema) })),
    overall: z.array(segmentSchema),
  }),
});

export const statsReportSchema = z.looseObject({
  provenance: provenanceSchema,
  definitions: z.record(z.string(), z.string()),
  sessions: z.array(sessionSchema),
  conditions: z.array(conditionSchema),
  roles: z.array(roleSchema),
  followsByRole: z.array(z.looseObject({ condition: z.string(), roles: z.array(z.string()), counts: z.array(z.array(count)) })),
  codes: codesSchema.nullable(),
  notes: z.array(z.string()),
});

const _fits: Conforms<typeof statsReportSchema, StatsReport> = true;
void _fits;
