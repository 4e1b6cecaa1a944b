import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type OpenAI from "openai";
import { classifyError, redact } from "../errors.js";
import { sleep } from "../../util/concurrency.js";

/**
 * The provider's Files and Batches API (POST /files, GET /files, DELETE /files/{id}, POST
 * /batches, GET /batches, GET /batches/{id}, POST /batches/{id}/cancel, GET /files/{id}/content),
 * over the one OpenAI client that llm/client.ts constructs. Errors become a `BatchApiError` with
 * the same fix-it message and key redaction as the online path; transient ones (429, 5xx, lost
 * connection) are retried a few times first, since a batch call is cheap to repeat and a whole
 * job hangs on it. All but one: creating a batch is billed, and a create whose reply was lost
 * may have created it, so `create` looks for that batch before it asks again.
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

/** A file at the provider (a subset of the API's FileObject). */
export interface RemoteFile {
  id: string;
  filename: string;
}

export interface BatchApi {
  /** Upload a JSONL request file (streamed from disk, never held in memory); returns the file id. */
  upload(path: string): Promise<string>;
  /**
   * Create a batch for an uploaded file, at most once: after a failure that may have reached the
   * provider (5xx, lost connection, timeout, 429), the batch `find` would return is adopted
   * instead of asking again. `metadata.colloquy_request_hash` should identify the file's content.
   */
  create(inputFileId: string, metadata: Record<string, string>): Promise<BatchInfo>;
  /**
   * The provider's batch for this file and request hash, if one was created: the list is read
   * newest first, page after page, down to batches created before `since` (epoch seconds).
   */
  find(inputFileId: string, requestHash: string | undefined, since: number): Promise<BatchInfo | undefined>;
  /** Files uploaded for batches (purpose "batch"), every page. */
  listFiles(): Promise<RemoteFile[]>;
  deleteFile(fileId: string): Promise<void>;
  retrieve(batchId: string): Promise<BatchInfo>;
  cancel(batchId: string): Promise<BatchInfo>;
  /** A file's content (batch output or error file), line by line as it is read; `signal` stops it at once (Ctrl-C). */
  download(fileId: string, signal?: AbortSignal): Promise<AsyncIterable<string>>;
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

/** The metadata key that names a batch's request file by content (sha256). */
export const REQUEST_HASH_KEY = "colloquy_request_hash";

export function createBatchApi(client: () => Promise<OpenAI>, config: { baseURL?: string; model: string; apiKey?: string }): BatchApi {
  /** Run a request, retrying transient failures; `beforeRetry` may settle the call instead (a create that did happen). */
  async function call<T>(what: string, run: (openai: OpenAI) => Promise<T>, beforeRetry?: () => Promise<T | undefined>, signal?: AbortSignal): Promise<T> {
    // Loading the SDK is not a request: a failure there is thrown as it is, not retried.
    const openai = await client();
    for (let attempt = 1; ; attempt++) {
      try {
        return await run(openai);
      } catch (error) {
        const classified = classifyError(error, { baseURL: config.baseURL, model: config.model });
        if (!classified.retryable) throw new BatchApiError(`${what}: ${redact(classified.message, config.apiKey)}`, classified.status);
        const settled = await beforeRetry?.();
        if (settled !== undefined) return settled;
        if (attempt >= ATTEMPTS) throw new BatchApiError(`${what}: ${redact(classified.message, config.apiKey)}`, classified.status);
        await sleep(250 * 2 ** attempt, signal);
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
  const find = (inputFileId: string, requestHash: string | undefined, since: number) =>
    call("listing the batches", async (openai) => {
      // The SDK follows `has_more` with `after`; the list is newest first, so older batches end the search.
      for await (const batch of openai.batches.list({ limit: 100 })) {
        if (batch.input_file_id === inputFileId && (requestHash === undefined || batch.metadata?.[REQUEST_HASH_KEY] === requestHash)) return info(batch);
        if (batch.created_at < since) break;
      }
      return undefined;
    });
  return {
    find,
    upload: (path) =>
      call(
        `uploading ${path}`,
        async (openai) =>
          (await openai.files.create({ file: createReadStream(path, { highWaterMark: 1 << 20 }), purpose: "batch" }, { timeout: 30 * 60_000 })).id,
      ),
    create: (inputFileId, metadata) => {
      // A minute's margin for clocks that disagree with the provider's.
      const since = Math.floor(Date.now() / 1000) - 60;
      return call(
        "creating the batch",
        async (openai) =>
          info(await openai.batches.create({ input_file_id: inputFileId, endpoint: "/v1/chat/completions", completion_window: "24h", metadata })),
        // The failed create may have created the batch (its reply lost): adopt it rather than pay twice.
        () => find(inputFileId, metadata[REQUEST_HASH_KEY], since),
      );
    },
    listFiles: () =>
      call("listing the uploaded files", async (openai) => {
        const files: RemoteFile[] = [];
        for await (const file of openai.files.list({ purpose: "batch", limit: 10_000 })) files.push({ id: file.id, filename: file.filename });
        return files;
      }),
    deleteFile: (fileId) =>
      call(`deleting file ${fileId}`, async (openai) => {
        await openai.files.delete(fileId);
      }),
    retrieve: (batchId) => call(`reading batch ${batchId}`, async (openai) => info(await openai.batches.retrieve(batchId))),
    cancel: (batchId) => call(`cancelling batch ${batchId}`, async (openai) => info(await openai.batches.cancel(batchId))),
    download: (fileId, signal) =>
      call(
        `downloading file ${fileId}`,
        async (openai) => {
          // The signal also cuts the body off mid-file: the stream errors, and so does the line reader.
          const body = (await openai.files.content(fileId, { timeout: 30 * 60_000, signal })).body;
          // Lines straight off the body: no whole-file string, no array of every line.
          return createInterface({ input: body ? Readable.fromWeb(body as NodeReadableStream) : Readable.from([]), crlfDelay: Infinity });
        },
        undefined,
        signal,
      ),
  };
}
