import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { decodeBuffer, decodeChunks, EncodingFailure, LineCounter, type TextEncoding } from "./encoding.js";
import { encodingOfBuffer, EncodingScanner } from "./encoding-scan.js";
import { ImportError, type ImportInput } from "./types.js";

/** Strip one leading UTF-8 byte-order mark (Excel writes one on every "CSV UTF-8" file). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Unreadable files become ImportErrors naming the file, like every other bad input. */
function readError(path: string, error: unknown): ImportError {
  const code = (error as NodeJS.ErrnoException).code;
  const problem = code === "ENOENT" ? "file not found" : code === "EISDIR" ? "is a folder" : `cannot read (${code ?? String(error)})`;
  return new ImportError({ file: path, problem, expected: "a readable text file" });
}

/** How a file is read: `encoding` forces one (`--encoding`); otherwise it is detected (encoding.ts). */
export interface FileInputOptions {
  encoding?: string;
}

/** The file's raw bytes, chunk by chunk (a read error becomes an ImportError naming the file). */
async function* fileChunks(path: string, end?: number): AsyncGenerator<Buffer> {
  const stream = createReadStream(path, end === undefined ? {} : { end });
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (error) {
    throw readError(path, error);
  } finally {
    stream.destroy();
  }
}

/** An EncodingFailure as an ImportError naming the file and the line of the bad byte. */
async function encodingError(path: string, failure: EncodingFailure, bytes?: Uint8Array): Promise<ImportError> {
  const { offset, unit, littleEndian, problem, fix } = failure.detail;
  const counter = new LineCounter(offset, unit, littleEndian);
  if (bytes) counter.push(bytes);
  else if (offset > 0) for await (const chunk of fileChunks(path, offset - 1)) if (counter.push(chunk)) break;
  return new ImportError({ file: path, line: counter.value, problem, expected: fix });
}

/** Rethrow decoding failures as ImportErrors; anything else unchanged. */
async function rethrow(path: string, error: unknown, bytes?: Uint8Array): Promise<never> {
  throw error instanceof EncodingFailure ? await encodingError(path, error, bytes) : error;
}

/** Judge a file's encoding in one streaming pass over its bytes. */
async function scanFile(path: string, forced: string | undefined): Promise<TextEncoding> {
  const scanner = new EncodingScanner(forced);
  for await (const chunk of fileChunks(path)) {
    scanner.push(chunk);
    if (scanner.done) break;
  }
  try {
    return scanner.finish();
  } catch (error) {
    return rethrow(path, error);
  }
}

/** A whole file decoded by the rules of encoding.ts, with the encoding it was read in. */
export async function readTextFile(path: string, options: FileInputOptions = {}): Promise<{ text: string; encoding: TextEncoding }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw readError(path, error);
  }
  try {
    const encoding = encodingOfBuffer(bytes, options.encoding);
    return { text: stripBom(decodeBuffer(bytes, encoding)), encoding };
  } catch (error) {
    return rethrow(path, error, bytes);
  }
}

/**
 * An ImportInput over a file on disk. Its bytes are decoded by the rules of encoding.ts (never
 * with U+FFFD put in silently); `lines()` streams, so line-based importers need not hold the raw
 * file: one pass judges the encoding, then each `lines()` decodes as it reads.
 */
export function fileInput(path: string, options: FileInputOptions = {}): ImportInput {
  let encoding: TextEncoding | undefined;
  let scanned: Promise<TextEncoding> | undefined;
  const judge = (): Promise<TextEncoding> => (scanned ??= scanFile(path, options.encoding).then((e) => (encoding = e)));
  return {
    path,
    kind: "file",
    readText: async () => {
      const read = await readTextFile(path, options);
      encoding = read.encoding;
      return read.text;
    },
    lines: () => streamLines(path, judge),
    readBytes: async () => {
      try {
        return await readFile(path);
      } catch (error) {
        return rethrow(path, error);
      }
    },
    decodedAs: () => encoding,
  };
}

/** Lines ending in "\r\n", "\n" or a lone "\r"; a final terminator starts no empty line. */
async function* streamLines(path: string, judge: () => Promise<TextEncoding>): AsyncIterable<string> {
  const encoding = await judge();
  let carry = "";
  let first = true;
  try {
    for await (const text of decodeChunks(fileChunks(path), encoding)) {
      carry += text;
      // A "\r" at the end may be the first half of "\r\n": keep it for the next chunk.
      const parts = carry.split(/\r\n|\r(?!$)|\n/);
      carry = parts.pop()!;
      for (const line of parts) {
        yield first ? stripBom(line) : line;
        first = false;
      }
    }
  } catch (error) {
    await rethrow(path, error);
  }
  if (carry.endsWith("\r")) carry = carry.slice(0, -1);
  else if (carry === "") return;
  yield first ? stripBom(carry) : carry;
}

/** An ImportInput over text in memory (tests, stdin, the library API); lines split exactly like fileInput's. */
export function textInput(path: string, text: string): ImportInput {
  const clean = stripBom(text);
  return {
    path,
    kind: "file",
    readText: async () => clean,
    lines: () => linesOf(clean),
    // The text's UTF-8 bytes: what a binary importer (.docx) would have read from such a file.
    readBytes: async () => Buffer.from(clean, "utf8"),
  };
}

async function* linesOf(text: string): AsyncIterable<string> {
  if (text === "") return;
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  yield* lines;
}

/** An ImportInput for a folder (Slack export): it has no text, so reading it is an ImportError naming it. */
export function directoryInput(path: string): ImportInput {
  const notText = (): ImportError =>
    new ImportError({ file: path, problem: "is a folder, not a text file", expected: "a folder importer (slack-export) to list its files itself" });
  return {
    path,
    kind: "directory",
    readText: async () => {
      throw notText();
    },
    lines: () => failingLines(notText),
    readBytes: async () => {
      throw notText();
    },
  };
}

async function* failingLines(error: () => ImportError): AsyncIterable<string> {
  throw error();
}
