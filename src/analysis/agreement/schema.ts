import { z } from "zod";
import type { AgreementReport } from "./agree.js";
import { count, jsonNumber, type Conforms } from "../shared/schema-json.js";
import { provenanceSchema } from "../../util/provenance-schema.js";

/**
 * Schema of `analysis/agreement-<codebook>.json` ({@link AgreementReport}, written by
 * `colloquy agree`). Statistics that were undefined (NaN in memory) are null in the file and
 * read back as NaN.
 */

const label = z.union([z.string(), z.number()]);
const level = z.enum(["nominal", "ordinal", "interval", "ratio"]);

const intervalSchema = z.looseObject({
  lower: jsonNumber,
  upper: jsonNumber,
  confidence: z.number(),
  replicates: count,
  undefinedReplicates: count,
  seed: z.number(),
});

const pairSchema = z.looseObject({
  a: z.string(),
  b: z.string(),
  n: count,
  agreement: jsonNumber,
  kappa: jsonNumber,
  kappaCI: intervalSchema.nullable(),
  kappaLinear: jsonNumber.optional(),
  kappaQuadratic: jsonNumber.optional(),
  kappaQuadraticCI: intervalSchema.nullable().optional(),
  ac1: jsonNumber,
  kendallTau: z.looseObject({ tau: jsonNumber, p: jsonNumber }).optional(),
  confusion: z.array(z.array(count)),
});

const alphaSchema = z.looseObject({
  level,
  alpha: jsonNumber,
  ci: intervalSchema.nullable(),
  observedDisagreement: jsonNumber,
  expectedDisagreement: jsonNumber,
  nPairable: count,
  unitsPairable: count,
});

const categoryScoreSchema = z.looseObject({
  label,
  precision: jsonNumber,
  recall: jsonNumber,
  f1: jsonNumber,
  support: count,
  predicted: count,
});

const variableSchema = z.looseObject({
  name: z.string(),
  level,
  coders: z.array(z.string()),
  reference: z.string(),
  labels: z.array(label),
  units: count,
  unitsComplete: count,
  allAgree: jsonNumber,
  pairs: z.array(pairSchema),
  fleiss: z.looseObject({ kappa: jsonNumber, pBar: jsonNumber, pE: jsonNumber }).nullable(),
  ac1: z.looseObject({ ac1: jsonNumber, pa: jsonNumber, pe: jsonNumber, q: count }),
  alpha: z.array(alphaSchema),
  perCategory: z.array(z.looseObject({ coder: z.string(), reference: z.string(), categories: z.array(categoryScoreSchema), macroF1: jsonNumber })),
});

const codebookShapeSchema = z.looseObject({
  id: z.string(),
  kind: z.enum(["nominal", "scales"]),
  version: z.string().nullable(),
  definition: z.enum(["loaded", "inferred"]),
  note: z.string().optional(),
  categories: z.array(z.string()).optional(),
  multiple: z.boolean().optional(),
  scales: z.array(z.looseObject({ id: z.string(), points: z.number().optional() })).optional(),
  versionsInRecords: z.record(z.string(), z.array(z.string())),
});

const coverageSchema = z.looseObject({
  unitsCodedByAll: count,
  unitsCodedByAny: count,
  perCoder: z.record(z.string(), count),
  partial: z.array(z.looseObject({ codedBy: z.array(z.string()), missing: z.array(z.string()), units: count })),
  partialUnits: z.array(z.looseObject({ session: z.string(), turn: z.string(), codedBy: z.array(z.string()) })),
  partialUnitsTruncated: z.boolean(),
  emptyRecords: z.record(z.string(), count),
});

const disagreementSchema = z.looseObject({
  session: z.string(),
  turn: z.string(),
  speaker: z.string().nullable(),
  variable: z.string(),
  values: z.record(z.string(), z.union([z.string(), z.number()])),
  text: z.string().nullable(),
});

export const agreementReportSchema = z.looseObject({
  kind: z.literal("agreement"),
  provenance: provenanceSchema,
  source: z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("study"), study: z.string(), codebook: z.string() }),
    z.looseObject({ type: z.literal("csv"), file: z.string(), raters: z.array(z.string()) }),
  ]),
  codebook: codebookShapeSchema.nullable(),
  coders: z.array(z.string()),
  reference: z.string(),
  settings: z.looseObject({ seed: z.number(), bootstrap: count, confidence: z.number() }),
  coverage: coverageSchema.nullable(),
  variables: z.array(variableSchema),
  disagreements: z.looseObject({ total: count, rows: z.array(disagreementSchema) }),
  warnings: z.array(z.string()),
});

const _fits: Conforms<typeof agreementReportSchema, AgreementReport> = true;
void _fits;
