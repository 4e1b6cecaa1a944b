import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type OpenAI from "openai";
import { classifyError, redact } from "../errors.js";
import { sleep } from "../../util/concurrency.js";

/**
 * The provider's Files and Batches API (POST /files, POST /batches, GET /batches/{id},
 * POST /batches/{id}/cancel, GET /files/{id}/content), over the one OpenAI client that
 * llm/client.ts constructs. Errors become a `BatchApiError` with the same fix-it message and
 * key redaction as the online path; transient ones (429, 5xx, lost connection) are retried a
 * few times first, since a batch call is cheap to repeat and a whole job hangs on it.
 */

/** What we read of a batch (a subset of the API's Batch object). */
export interface BatchInfo {
  id: string;
  status: "validating" | "failed" | "in_progress" | "finalizing" | "completed" | "expired" | "cancelling" | "cancelled";
  inputFileId: string;
  outputFileId?: string;
  errorFileId?: string;
  counts?: { total: number; completed: number; failed: number };
  /** Why a batch failed validation (the API's `errors.data[].message`). */
  errors: string[];
}

export interface BatchApi {
  /** Upload a JSONL request file (streamed from disk, never held in memory); returns the file id. */
  upload(path: string): Promise<string>;
  create(inputFileId: string, metadata: Record<string, string>): Promise<BatchInfo>;
  retrieve(batchId: string): Promise<BatchInfo>;
  cancel(batchId: string): Promise<BatchInfo>;
  /** A file's content (batch output or error file), line by line as it is read. */
  download(fileId: string): Promise<AsyncIterable<string>>;
}

export class BatchApiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "BatchApiError";
  }
}

/** Attempts per call before giving up on a transient error. */
const ATTEMPTS = 4;

export function createBatchApi(client: () => Promise<OpenAI>, config: { baseURL?: string; model: string; apiKey?: string }): BatchApi {
  async function call<T>(what: string, run: (openai: OpenAI) => Promise<T>): Promise<T> {
    // Loading the SDK is not a request: a failure there is thrown as it is, not retried.
    const openai = await client();
    for (let attempt = 1; ; attempt++) {
      try {
        return await run(openai);
      } catch (error) {
        const classified = classifyError(error, { baseURL: config.baseURL, model: config.model });
        if (!classified.retryable || attempt >= ATTEMPTS) throw new BatchApiError(`${what}: ${redact(classified.message, config.apiKey)}`, classified.status);
        await sleep(250 * 2 ** attempt);
      }
    }
  }
  const info = (batch: OpenAI.Batches.Batch): BatchInfo => ({
    id: batch.id,
    status: batch.status,
    inputFileId: batch.input_file_id,
    outputFileId: batch.output_file_id ?? undefined,
    errorFileId: batch.error_file_id ?? undefined,
    counts: batch.request_counts
      ? { total: batch.request_counts.total, completed: batch.request_counts.completed, failed: batch.request_counts.failed }
      : undefined,
    errors: (batch.errors?.data ?? []).map((e) =>
      [e.line !== undefined && e.line !== null ? `line ${e.line}` : "", e.code, e.message].filter(Boolean).join(": "),
    ),
  });
  return {
    upload: (path) =>
      call(
        `uploading ${path}`,
        async (openai) =>
          (await openai.files.create({ file: createReadStream(path, { highWaterMark: 1 << 20 }), purpose: "batch" }, { timeout: 30 * 60_000 })).id,
      ),
    create: (inputFileId, metadata) =>
      call("creating the batch", async (openai) =>
        info(await openai.batches.create({ input_file_id: inputFileId, endpoint: "/v1/chat/completions", completion_window: "24h", metadata })),
      ),
    retrieve: (batchId) => call(`reading batch ${batchId}`, async (openai) => info(await openai.batches.retrieve(batchId))),
    cancel: (batchId) => call(`cancelling batch ${batchId}`, async (openai) => info(await openai.batches.cancel(batchId))),
    download: (fileId) =>
      call(`downloading file ${fileId}`, async (openai) => {
        const body = (await openai.files.content(fileId, { timeout: 30 * 60_000 })).body;
        // Lines straight off the body: no whole-file string, no array of every line.
        return createInterface({ input: body ? Readable.fromWeb(body as NodeReadableStream) : Readable.from([]), crlfDelay: Infinity });
      }),
  };
}
