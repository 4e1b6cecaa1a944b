import { z } from "zod";
import type { CompareReport } from "./compare.js";
import { count, countRecord, nullableNumber, type Conforms } from "../shared/schema-json.js";
import { provenanceSchema } from "../../util/provenance-schema.js";

/** Schema of `analysis/compare-<codebook>.json` ({@link CompareReport}, written by `colloquy compare`). */

const design = z.enum(["within", "between"]);
const unit = z.enum(["participant", "session"]);
const measure = z.enum(["count", "proportion"]);

const frequencyRowSchema = z.looseObject({
  key: z.string(),
  condition: z.string().optional(),
  role: z.string().optional(),
  sessions: count,
  runs: count,
  total: count,
  counts: countRecord,
  proportions: z.record(z.string(), nullableNumber),
  perRun: countRecord,
});

const differenceSchema = z.looseObject({
  condition: z.string(),
  control: z.string(),
  code: z.string(),
  count: count,
  controlCount: count,
  runs: count,
  controlRuns: count,
  value: z.number(),
  controlValue: z.number(),
  percentDifference: nullableNumber,
  proportionPointDifference: nullableNumber,
  note: z.string().optional(),
});

const comparisonSchema = z.looseObject({
  condition: z.string(),
  reference: z.string(),
  design,
  unit,
  measure,
  paired: z.array(z.string()).nullable(),
  onlyInCondition: z.array(z.string()),
  onlyInReference: z.array(z.string()),
  emptyUnits: z.array(z.string()),
  nCondition: count,
  nReference: count,
});

const pair = z.tuple([z.number(), z.number()]);

const testSchema = z.looseObject({
  family: z.enum(["permutation", "paired-permutation", "wilcoxon", "mann-whitney", "welch", "chi-square"]),
  test: z.string(),
  code: z.string().optional(),
  condition: z.string().optional(),
  reference: z.string().optional(),
  across: z.enum(["conditions", "roles"]).optional(),
  unit: z.enum(["participant", "session", "act"]),
  measure: measure.optional(),
  n: count,
  statisticName: z.string(),
  statistic: nullableNumber,
  df: nullableNumber.optional(),
  p: nullableNumber,
  pAdjusted: nullableNumber.optional(),
  adjust: z.enum(["holm", "bh", "none"]).optional(),
  familySize: count.optional(),
  effectSizeName: z.string().optional(),
  effectSize: nullableNumber.optional(),
  effectCi95: pair.nullable().optional(),
  effectCiMethod: z.string().optional(),
  smallestP: nullableNumber.optional(),
  mde80: nullableNumber.optional(),
  descriptive: z.boolean().optional(),
  method: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  note: z.string().optional(),
});

const merge = z.record(z.string(), z.array(z.string()));

export const compareReportSchema = z.looseObject({
  provenance: provenanceSchema,
  codebook: z.looseObject({ id: z.string(), version: z.string() }),
  coder: z.string(),
  labels: z.array(z.string()),
  conditions: z.array(z.looseObject({ name: z.string(), members: z.array(z.string()), sessions: count, runs: count, acts: count })),
  acts: z.looseObject({ counted: count, dropped: count, uncodedTurns: count, orphanRecords: count, unknownCodes: z.array(z.string()) }),
  options: z.looseObject({
    control: z.string().nullable(),
    collapse: merge,
    drop: z.array(z.string()),
    conditionGroups: merge,
    normaliseByRuns: z.boolean(),
    design,
    unit,
    agentUnits: z.boolean(),
    measure,
    test: z.enum(["permutation", "paired-permutation", "wilcoxon", "mann-whitney", "welch"]),
    adjust: z.enum(["holm", "bh", "none"]),
    resamples: count,
    seed: z.number().int(),
  }),
  frequencies: z.looseObject({
    byCondition: z.array(frequencyRowSchema),
    byRole: z.array(frequencyRowSchema),
    bySpeaker: z.array(frequencyRowSchema),
    byConditionRole: z.array(frequencyRowSchema),
  }),
  differences: z.looseObject({ control: z.string().nullable(), basis: z.enum(["count", "per-run"]), rows: z.array(differenceSchema), note: z.string() }),
  comparisons: z.array(comparisonSchema),
  tests: z.array(testSchema),
  units: z.array(z.looseObject({ condition: z.string(), unit: z.string(), sessions: count, total: count, counts: countRecord })),
  notes: z.array(z.string()),
  // Absent from files of versions before the design was recorded; the dashboard shows it.
  design: z
    .looseObject({
      design: z.enum(["within", "between"]),
      unit,
      source: z.enum(["flag", "colloquy.json", "default"]),
      reason: z.string(),
      description: z.string(),
    })
    .optional(),
});

const _fits: Conforms<typeof compareReportSchema, CompareReport> = true;
void _fits;
