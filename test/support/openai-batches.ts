/**
 * The Files and Batches API of the test server (openai-server.ts), as the OpenAI API speaks it:
 *   POST /v1/files                  multipart upload (fields `purpose`, `file`); the file is kept
 *                                   on disk in a temp folder, never in memory for long
 *   GET  /v1/files                  the files, newest first (`purpose`, `limit`, `after`, `has_more`)
 *   GET  /v1/files/{id}             the file object
 *   DELETE /v1/files/{id}           deletes it
 *   GET  /v1/files/{id}/content     the bytes
 *   POST /v1/batches                {input_file_id, endpoint, completion_window, metadata}; see
 *                                   BatchBehaviour.createFaults for a create whose reply is lost
 *   GET  /v1/batches                the batches, newest first (`limit`, `after`, `has_more`)
 *   GET  /v1/batches/{id}           the batch; each retrieve moves it on: validating ->
 *                                   in_progress (its requests are answered now, in the
 *                                   background, by the server's queue/handler like online ones)
 *                                   -> completed (or expired / failed, see BatchBehaviour)
 *   POST /v1/batches/{id}/cancel    cancelling, then cancelled on the next retrieve, with the
 *                                   requests answered so far (none unless already in progress)
 * Output lines: {id, custom_id, response: {status_code, request_id, body}, error: null}. Requests
 * answered with an error status go to the error file with that response; requests never run
 * (expired, cancelled) go there with `error: {code, message}`, as the real API does.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, open, rm, stat, writeFile } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { IncomingMessage, ServerResponse } from "node:http";

export interface BatchBehaviour {
  /** How a batch ends: "completed" (default), "expired" (only the first `expireAfter` requests answered), "failed" (validation). */
  outcome: "completed" | "expired" | "failed";
  /** With "expired": requests answered before the window closed (default: half). */
  expireAfter?: number;
  /** Retrieves that report in_progress before the batch finishes (default 0: the second retrieve sees it finished). */
  inProgressPolls: number;
  /**
   * Faults of the next creates, one per POST /v1/batches (taken from the front): with "502" and
   * "drop" the batch IS created, then the reply is a 502 Bad Gateway or the connection is
   * destroyed, as when a gateway or the network loses it; with "unreached" the connection is
   * destroyed before anything is created; "ok" answers as usual.
   */
  createFaults?: ("ok" | "502" | "drop" | "unreached")[];
  /**
   * Awaited before answering (a test kills its client meanwhile): "upload" once the file is
   * stored, "create" once the batch exists, "download" before a file's content is sent.
   */
  hold?: Partial<Record<"upload" | "create" | "download", () => Promise<void>>>;
}

export const DEFAULT_BATCH_BEHAVIOUR: BatchBehaviour = { outcome: "completed", inProgressPolls: 0 };

export interface StoredFile {
  id: string;
  path: string;
  purpose: string;
  filename: string;
  bytes: number;
  createdAt: number;
  /** Where the bytes start in `path` (an upload is kept inside the multipart body it came in). */
  start?: number;
}

interface BatchState {
  id: string;
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  metadata: Record<string, string> | null;
  status: "validating" | "failed" | "in_progress" | "finalizing" | "completed" | "expired" | "cancelling" | "cancelled";
  created_at: number;
  output_file_id?: string;
  error_file_id?: string;
  errors?: { object: "list"; data: { code: string; message: string; line?: number | null }[] };
  request_counts: { total: number; completed: number; failed: number };
  polls: number;
  running?: Promise<void>;
  cancelled: boolean;
}

type BatchLine = { custom_id: string; method: string; url: string; body: unknown };

export function createBatchRoutes(deps: {
  sendJson: (res: ServerResponse, status: number, value: unknown) => void;
  errorBody: (message: string, type?: string) => unknown;
  /** Answer one batched request as the chat route would: status and JSON body. */
  answer: (line: BatchLine) => Promise<{ status: number; body: unknown }>;
  options: () => BatchBehaviour;
}) {
  const files = new Map<string, StoredFile>();
  const batches = new Map<string, BatchState>();
  let dir: Promise<string> | undefined;
  let n = 0;
  /** Maps keep insertion order, which is creation order: reversed, newest first, as the API lists. */
  const newestFirst = <T>(items: Iterable<T>) => [...items].reverse();
  const folder = () => (dir ??= mkdtemp(join(tmpdir(), "openai-server-files-")));
  const now = () => Math.floor(Date.now() / 1000);
  const notFound = (res: ServerResponse, what: string) => deps.sendJson(res, 404, deps.errorBody(`No such ${what}`));

  const fileObject = (f: StoredFile) => ({
    id: f.id,
    object: "file",
    bytes: f.bytes,
    created_at: f.createdAt,
    filename: f.filename,
    purpose: f.purpose,
    status: "processed",
  });
  const batchObject = (b: BatchState) => {
    const { polls: _p, running: _r, cancelled: _c, ...rest } = b;
    return { object: "batch", ...rest };
  };

  async function store(purpose: string, filename: string, data: string | Buffer): Promise<StoredFile> {
    const id = `file-test-${++n}`;
    const path = join(await folder(), id);
    await writeFile(path, data);
    const file = { id, path, purpose, filename, bytes: Buffer.byteLength(data), createdAt: now() };
    files.set(id, file);
    return file;
  }

  /**
   * Multipart upload, streamed to disk as it arrives (uploads can be hundreds of MB): the parts
   * are then found from the first and last 64 kB, and the file part kept as a byte range of the
   * received body, without copying it.
   */
  async function upload(req: IncomingMessage, res: ServerResponse) {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(req.headers["content-type"] ?? "");
    if (!boundary) return deps.sendJson(res, 400, deps.errorBody("expected multipart/form-data"));
    const id = `file-test-${++n}`;
    const path = join(await folder(), `${id}.multipart`);
    await pipeline(req, createWriteStream(path));
    const size = (await stat(path)).size;
    const handle = await open(path, "r");
    const window = Math.min(size, 64 * 1024);
    const head = Buffer.alloc(window);
    const tail = Buffer.alloc(window);
    await handle.read(head, 0, window, 0);
    await handle.read(tail, 0, window, size - window);
    await handle.close();
    const delimiter = `--${boundary[1] ?? boundary[2]}`;
    // Every part as {name, filename, start, end} in body offsets; a part body may span the middle.
    const parts: { name?: string; filename?: string; start: number; end: number }[] = [];
    const headText = head.toString("latin1");
    const tailText = tail.toString("latin1");
    const tailOffset = size - window;
    const starts: number[] = [];
    for (let at = headText.indexOf(delimiter); at >= 0; at = headText.indexOf(delimiter, at + 1)) starts.push(at);
    for (let at = tailText.indexOf(delimiter); at >= 0; at = tailText.indexOf(delimiter, at + 1))
      if (tailOffset + at > (starts.at(-1) ?? -1)) starts.push(tailOffset + at);
    for (let i = 0; i + 1 < starts.length; i++) {
      const text = starts[i] < window ? headText : tailText;
      const local = starts[i] < window ? starts[i] : starts[i] - tailOffset;
      const headerEnd = text.indexOf("\r\n\r\n", local);
      if (headerEnd < 0) continue;
      const header = text.slice(local, headerEnd);
      parts.push({
        name: /name="([^"]*)"/.exec(header)?.[1],
        filename: /filename="([^"]*)"/.exec(header)?.[1],
        start: (starts[i] < window ? 0 : tailOffset) + headerEnd + 4,
        end: starts[i + 1] - 2,
      });
    }
    const file = parts.find((p) => p.name === "file");
    const purposePart = parts.find((p) => p.name === "purpose");
    const purpose =
      purposePart &&
      (purposePart.start >= tailOffset
        ? tailText.slice(purposePart.start - tailOffset, purposePart.end - tailOffset)
        : headText.slice(purposePart.start, purposePart.end));
    if (!file || !purpose) return deps.sendJson(res, 400, deps.errorBody("the upload needs the fields file and purpose"));
    const stored: StoredFile = {
      id,
      path,
      purpose,
      filename: file.filename ?? "upload.jsonl",
      bytes: file.end - file.start,
      createdAt: now(),
      start: file.start,
    };
    files.set(id, stored);
    await deps.options().hold?.upload?.();
    deps.sendJson(res, 200, fileObject(stored));
  }

  /** A stored file's bytes as a stream. */
  const readStored = (f: StoredFile) => createReadStream(f.path, { start: f.start ?? 0, end: (f.start ?? 0) + f.bytes - 1, highWaterMark: 1 << 20 });

  /** Requests in a file: its non-empty lines (counted on bytes, without parsing). */
  async function countLines(f: StoredFile): Promise<number> {
    let count = 0;
    let last = 10;
    for await (const chunk of readStored(f)) {
      const bytes = chunk as Buffer;
      for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) count++;
      last = bytes[bytes.length - 1];
    }
    return count + (last === 10 || f.bytes === 0 ? 0 : 1);
  }

  /** Answer the batch's requests (all, or the first `limit`); the rest get `unrun` as their error. */
  async function run(batch: BatchState, limit: number | undefined, unrun: { code: string; message: string }) {
    const input = files.get(batch.input_file_id)!;
    const outPath = join(await folder(), `${batch.id}-output`);
    const out = createWriteStream(outPath);
    const errors: string[] = [];
    let i = 0;
    for await (const text of createInterface({ input: readStored(input), crlfDelay: Infinity })) {
      if (!text.trim()) continue;
      const line = JSON.parse(text) as BatchLine;
      const id = `batch_req_${batch.id}_${i}`;
      if ((limit !== undefined && i >= limit) || batch.cancelled) {
        errors.push(JSON.stringify({ id, custom_id: line.custom_id, response: null, error: unrun }));
        batch.request_counts.failed++;
      } else {
        const { status, body } = await deps.answer(line);
        const entry = JSON.stringify({ id, custom_id: line.custom_id, response: { status_code: status, request_id: `req_${i}`, body }, error: null });
        if (status === 200) {
          if (!out.write(entry + "\n")) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
          batch.request_counts.completed++;
        } else {
          errors.push(entry);
          batch.request_counts.failed++;
        }
      }
      i++;
    }
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    const size = (await stat(outPath)).size;
    if (size > 0) {
      const id = `file-test-${++n}`;
      files.set(id, { id, path: outPath, purpose: "batch_output", filename: `${batch.id}_output.jsonl`, bytes: size, createdAt: now() });
      batch.output_file_id = id;
    }
    if (errors.length > 0) batch.error_file_id = (await store("batch_output", `${batch.id}_error.jsonl`, errors.join("\n") + "\n")).id;
  }

  async function createBatch(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
    const input = files.get(body.input_file_id);
    if (!input) return deps.sendJson(res, 400, deps.errorBody(`No file with id ${body.input_file_id}`));
    if (body.endpoint !== "/v1/chat/completions") return deps.sendJson(res, 400, deps.errorBody(`unsupported endpoint ${body.endpoint}`));
    const fault = deps.options().createFaults?.shift();
    if (fault === "unreached") return void res.socket?.destroy();
    const total = await countLines(input);
    const batch: BatchState = {
      id: `batch_test_${++n}`,
      input_file_id: input.id,
      endpoint: body.endpoint,
      completion_window: body.completion_window,
      metadata: body.metadata ?? null,
      status: "validating",
      created_at: now(),
      request_counts: { total, completed: 0, failed: 0 },
      polls: 0,
      cancelled: false,
    };
    batches.set(batch.id, batch);
    if (fault === "drop") return void res.socket?.destroy();
    if (fault === "502") return deps.sendJson(res, 502, deps.errorBody("Bad Gateway", "server_error"));
    await deps.options().hold?.create?.();
    deps.sendJson(res, 200, batchObject(batch));
  }

  /** A cursor page as the API lists: `limit` items after the one named `after`, newest first. */
  function page<T extends { id: string }>(res: ServerResponse, query: URLSearchParams, items: T[], shape: (item: T) => unknown) {
    const limit = Math.max(1, Math.min(Number(query.get("limit") ?? 20) || 20, 10_000));
    const after = query.get("after");
    const start = after ? items.findIndex((item) => item.id === after) + 1 : 0;
    const data = items.slice(start, start + limit);
    deps.sendJson(res, 200, {
      object: "list",
      data: data.map(shape),
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: start + limit < items.length,
    });
  }

  /** One retrieve: move the batch on one step. */
  async function advance(batch: BatchState) {
    const behaviour = deps.options();
    if (batch.status === "validating") {
      if (behaviour.outcome === "failed") {
        batch.status = "failed";
        batch.errors = { object: "list", data: [{ code: "invalid_request", message: "The model `test-model-batch` does not support batching.", line: 1 }] };
        return;
      }
      batch.status = "in_progress";
      const limit = behaviour.outcome === "expired" ? (behaviour.expireAfter ?? Math.floor(batch.request_counts.total / 2)) : undefined;
      batch.running = run(batch, limit, { code: "batch_expired", message: "This request could not be executed before the completion window expired." });
      return;
    }
    if (batch.status === "in_progress" && ++batch.polls > behaviour.inProgressPolls) {
      await batch.running;
      batch.status = behaviour.outcome === "expired" ? "expired" : "completed";
      return;
    }
    if (batch.status === "cancelling") {
      await batch.running;
      batch.status = "cancelled";
    }
  }

  async function cancel(batch: BatchState) {
    if (["completed", "failed", "expired", "cancelled"].includes(batch.status)) return;
    batch.cancelled = true;
    // Nothing ran yet: every request is reported as cancelled once the batch is.
    batch.running ??= run(batch, 0, { code: "batch_cancelled", message: "This request was cancelled." });
    batch.status = "cancelling";
  }

  async function route(req: IncomingMessage, res: ServerResponse, path: string) {
    try {
      const parts = path.split("/").filter(Boolean); // ["v1", "files" | "batches", id?, action?]
      const query = new URL(req.url ?? "/", "http://localhost").searchParams;
      if (parts[1] === "files") {
        if (req.method === "POST" && parts.length === 2) return await upload(req, res);
        if (req.method === "GET" && parts.length === 2) {
          const purpose = query.get("purpose");
          return page(res, query, newestFirst([...files.values()].filter((f) => !purpose || f.purpose === purpose)), fileObject);
        }
        const file = files.get(parts[2] ?? "");
        if (!file) return notFound(res, "file");
        if (req.method === "GET" && parts.length === 3) return deps.sendJson(res, 200, fileObject(file));
        if (req.method === "DELETE" && parts.length === 3) {
          files.delete(file.id);
          return deps.sendJson(res, 200, { id: file.id, object: "file", deleted: true });
        }
        if (req.method === "GET" && parts[3] === "content") {
          await deps.options().hold?.download?.();
          res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.bytes });
          return void readStored(file).pipe(res);
        }
      }
      if (parts[1] === "batches") {
        if (req.method === "POST" && parts.length === 2) return await createBatch(req, res);
        if (req.method === "GET" && parts.length === 2) return page(res, query, newestFirst(batches.values()), batchObject);
        const batch = batches.get(parts[2] ?? "");
        if (!batch) return notFound(res, "batch");
        if (req.method === "GET" && parts.length === 3) {
          await advance(batch);
          return deps.sendJson(res, 200, batchObject(batch));
        }
        if (req.method === "POST" && parts[3] === "cancel") {
          await cancel(batch);
          return deps.sendJson(res, 200, batchObject(batch));
        }
      }
      deps.sendJson(res, 404, deps.errorBody(`no route ${req.method} ${path}`));
    } catch (error) {
      deps.sendJson(res, 500, deps.errorBody(`test server: ${(error as Error).message}`, "server_error"));
    }
  }

  return {
    route,
    files: () => files,
    batches: () => [...batches.values()].map((b) => ({ id: b.id, inputFileId: b.input_file_id, metadata: b.metadata, status: b.status })),
    async dispose() {
      await Promise.allSettled([...batches.values()].map((b) => b.running));
      if (dir) await rm(await dir, { recursive: true, force: true });
    },
  };
}
