import { createHash, type Hash } from "node:crypto";
import { open, mkdir, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

/**
 * Batch request files: JSONL, one `{"custom_id", "method", "url", "body"}` per line, split so
 * that no file exceeds the provider's limits. Written streaming (a 100,000-turn job is over a
 * gigabyte of prompts: it never sits in memory at once).
 */

/** One request of a batch: its response-cache key (used as custom_id) and the exact wire body. */
export interface BatchRequestLine {
  key: string;
  body: Record<string, unknown>;
}

/** Per-file limits; the defaults are OpenAI's (50,000 requests, 200 MB per batch input file). */
export interface BatchLimits {
  maxRequests: number;
  /** Bytes per file (UTF-8, newlines included). */
  maxBytes: number;
}

export const OPENAI_BATCH_LIMITS: BatchLimits = { maxRequests: 50_000, maxBytes: 200 * 1000 * 1000 };

export interface RequestFile {
  path: string;
  /** custom_ids in file order. */
  keys: string[];
  bytes: number;
  /** sha256 of the file's bytes (hex): names the batch made from it, so a lost reply to its creation can be found. */
  sha256: string;
}

/** The endpoint every line targets (the batch's `endpoint` must match it). */
export const BATCH_ENDPOINT = "/v1/chat/completions";

/**
 * One line, newline included. The body is serialised as JSON.stringify serialises it (what the
 * SDK sends online): byte for byte, but the long first message (the codebook's system prompt,
 * the same ~12 kB in every request) is escaped once and spliced in, since JSON.stringify is
 * compositional: stringify(body) = stringify(body with a marker there), marker replaced by
 * stringify(content).
 */
export function requestLine(line: BatchRequestLine): string {
  const head = `{"custom_id":${JSON.stringify(line.key)},"method":"POST","url":"${BATCH_ENDPOINT}","body":`;
  const messages = line.body.messages as Array<{ content: string }> | undefined;
  const first = messages?.[0];
  if (!first || typeof first.content !== "string" || first.content.length < MEMO_MIN_CHARS) return `${head}${JSON.stringify(line.body)}}\n`;
  const marked = JSON.stringify({ ...line.body, messages: [{ ...first, content: MARKER }, ...messages!.slice(1)] });
  const at = marked.indexOf(MARKER_JSON);
  if (at < 0) return `${head}${JSON.stringify(line.body)}}\n`;
  if (memo?.content !== first.content) memo = { content: first.content, json: JSON.stringify(first.content) };
  return `${head}${marked.slice(0, at)}${memo.json}${marked.slice(at + MARKER_JSON.length)}}\n`;
}

const MEMO_MIN_CHARS = 1024;
const MARKER = "\u0000colloquy-batch-marker\u0000";
const MARKER_JSON = JSON.stringify(MARKER);
let memo: { content: string; json: string } | undefined;

/** Bytes buffered before a write: few large writes, little memory. */
const CHUNK_BYTES = 8 * 1024 * 1024;
/** UTF-8 bytes per UTF-16 code unit, at most: a line of n units always fits in 3n bytes. */
const MAX_UTF8_PER_UNIT = 3;

/**
 * Write `lines` to `<dir>/<prefix>-1.jsonl`, `-2`, … starting a new file before either limit
 * would be passed. Returns the files in order; none when there are no lines.
 * Each line is encoded once, straight into a reused buffer, and its byte count is what encoding
 * returns (no separate byte-length scan of 13 kB lines). Two buffers take turns: one is written
 * to disk while the next fills, so building requests and disk writes overlap.
 */
export async function writeRequestFiles(
  lines: AsyncIterable<BatchRequestLine> | Iterable<BatchRequestLine>,
  dir: string,
  prefix: string,
  limits: BatchLimits,
  { chunkBytes = CHUNK_BYTES }: { chunkBytes?: number } = {},
): Promise<RequestFile[]> {
  await mkdir(dir, { recursive: true });
  const files: RequestFile[] = [];
  let handle: FileHandle | undefined;
  let current: RequestFile | undefined;
  // Hashed as written, in file order (the bytes go to disk in the order they are hashed).
  let hash: Hash | undefined;
  let buffer = Buffer.allocUnsafe(chunkBytes);
  let spare = Buffer.allocUnsafe(chunkBytes);
  let used = 0;
  let writing: Promise<void> = Promise.resolve();
  /** Start writing buffer[0, upTo) to the current file; the filled buffer becomes the spare once written. */
  const flush = async (upTo = used) => {
    await writing;
    if (!handle || upTo === 0) return;
    const full = buffer;
    const file = handle;
    hash!.update(full.subarray(0, upTo));
    writing = writeAll(file, full, upTo);
    // The bytes after upTo (a line bound for the next file) move to the fresh buffer.
    spare.set(full.subarray(upTo, used), 0);
    used -= upTo;
    buffer = spare;
    spare = full;
  };
  /** Finish the current file: its last bytes written, its hash known. */
  const closeFile = async () => {
    await writing;
    await handle?.close();
    if (current && hash) current.sha256 = hash.digest("hex");
    handle = undefined;
    hash = undefined;
  };
  const close = async () => {
    await flush();
    await closeFile();
  };
  try {
    for await (const line of lines) {
      const text = requestLine(line);
      let bytes: number;
      let large: Buffer | undefined;
      if (text.length * MAX_UTF8_PER_UNIT > buffer.length) {
        large = Buffer.from(text);
        bytes = large.length;
      } else {
        if (used + text.length * MAX_UTF8_PER_UNIT > buffer.length) await flush();
        bytes = buffer.write(text, used);
      }
      if (bytes > limits.maxBytes)
        throw new Error(`the request for ${line.key} alone is ${bytes} bytes, over the ${limits.maxBytes}-byte limit of a batch file`);
      if (!large) used += bytes;
      if (!current || current.keys.length >= limits.maxRequests || current.bytes + bytes > limits.maxBytes) {
        // Everything before this line belongs to the file being closed; the line moves on with the fresh buffer.
        await flush(large ? used : used - bytes);
        await closeFile();
        current = { path: join(dir, `${prefix}-${files.length + 1}.jsonl`), keys: [], bytes: 0, sha256: "" };
        files.push(current);
        handle = await open(current.path, "w");
        hash = createHash("sha256");
      }
      current.keys.push(line.key);
      current.bytes += bytes;
      if (large) {
        await flush();
        await writing;
        hash!.update(large);
        await writeAll(handle!, large, large.length);
      }
    }
  } finally {
    await close();
  }
  return files;
}

async function writeAll(file: FileHandle, data: Buffer, length: number): Promise<void> {
  let offset = 0;
  while (offset < length) offset += (await file.write(data, offset, length - offset)).bytesWritten;
}
