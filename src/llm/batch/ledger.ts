import { z } from "zod";

/**
 * `<study>/.colloquy/batches.json`: every batch a study has submitted, so any later process (the
 * next day, another machine with the study folder) can check, collect or cancel it. It records
 * ids, the job to resume and the request keys (response-cache keys, also the custom_ids), never
 * a credential: the key is read from the environment by whoever collects.
 */

/** A batch's life in the study: uploaded (file sent, batch not yet created) -> submitted -> collected. */
export const batchStates = ["uploaded", "submitted", "collected", "cancelled"] as const;

export const batchEntrySchema = z.object({
  /** The provider's batch id; absent while only the file is uploaded. */
  id: z.string().optional(),
  inputFileId: z.string(),
  /** What the batch serves: "code" (a coding job) or "topics". */
  kind: z.enum(["code", "topics"]),
  /** The job to resume when collecting: codebook, coder id, context, samples, … (see coding/batch.ts). */
  job: z.record(z.string(), z.unknown()),
  /** A short label for messages: "bales-ipa/llm". */
  label: z.string(),
  model: z.string(),
  /** Host of the endpoint it was sent to (no path, user info or query). */
  endpointHost: z.string(),
  state: z.enum(batchStates),
  /** Last status the provider reported (validating, in_progress, completed, expired, …). */
  status: z.string().optional(),
  createdAt: z.string(),
  collectedAt: z.string().optional(),
  /** Response-cache keys of the requests in the file, in order (the custom_ids). */
  requests: z.array(z.string()),
  bytes: z.number().int().nonnegative(),
  /** sha256 of the request file, also in the batch's metadata: how a batch whose creation reply was lost is found and adopted. */
  requestHash: z.string().optional(),
  /** The provider's files of replies and errors once it finished: downloadable again, so a reply is never asked for twice. */
  outputFileId: z.string().optional(),
  errorFileId: z.string().optional(),
  /** What the batch cost, from the usage in its replies (USD at the batch price; absent when the price is unknown). */
  spent: z
    .object({
      requests: z.number().int().nonnegative(),
      promptTokens: z.number().int().nonnegative(),
      completionTokens: z.number().int().nonnegative(),
      cost: z.number().nonnegative().optional(),
    })
    .optional(),
});
export type BatchEntry = z.infer<typeof batchEntrySchema>;

export const batchLedgerSchema = z.object({
  version: z.literal(1),
  batches: z.array(batchEntrySchema),
});
export type BatchLedger = z.infer<typeof batchLedgerSchema>;

export const emptyLedger = (): BatchLedger => ({ version: 1, batches: [] });

/** Entries whose replies are still to come or to be collected. */
export const isOpen = (entry: BatchEntry) => entry.state === "uploaded" || entry.state === "submitted";

/** Provider statuses after which nothing more will arrive. */
export const FINAL_STATUSES = new Set(["completed", "expired", "failed", "cancelled"]);
