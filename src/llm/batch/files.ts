import { open, mkdir } from "node:fs/promises";
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

/**
 * Write `lines` to `<dir>/<prefix>-1.jsonl`, `-2`, … starting a new file before either limit
 * would be passed. Returns the files in order; none when there are no lines.
 */
export async function writeRequestFiles(lines: AsyncIterable<BatchRequestLine> | Iterable<BatchRequestLine>, dir: string, prefix: string, limits: BatchLimits): Promise<RequestFile[]> {
  await mkdir(dir, { recursive: true });
  const files: RequestFile[] = [];
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  let current: RequestFile | undefined;
  // Lines are encoded straight into one reused buffer: no joined strings for the GC to collect.
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  const flush = async () => {
    if (!handle || used === 0) return;
    let offset = 0;
    while (offset < used) offset += (await handle.write(buffer, offset, used - offset)).bytesWritten;
    used = 0;
  };
  const close = async () => {
    await flush();
    await handle?.close();
    handle = undefined;
  };
  try {
    for await (const line of lines) {
      const text = requestLine(line);
      const bytes = Buffer.byteLength(text);
      if (bytes > limits.maxBytes) throw new Error(`the request for ${line.key} alone is ${bytes} bytes, over the ${limits.maxBytes}-byte limit of a batch file`);
      if (!current || current.keys.length >= limits.maxRequests || current.bytes + bytes > limits.maxBytes) {
        await close();
        current = { path: join(dir, `${prefix}-${files.length + 1}.jsonl`), keys: [], bytes: 0 };
        files.push(current);
        handle = await open(current.path, "w");
      }
      current.keys.push(line.key);
      current.bytes += bytes;
      if (used + bytes > buffer.length) await flush();
      if (bytes > buffer.length) await handle!.write(text);
      else used += buffer.write(text, used);
    }
  } finally {
    await close();
  }
  return files;
}
