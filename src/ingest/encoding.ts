import { isUtf8 } from "node:buffer";
import { onFirstUse } from "../util/on-first-use.js";

/**
 * Which character encoding a transcript file is in, decided from its bytes, and decoding that
 * never inserts U+FFFD: a file is decoded correctly or not at all (an EncodingProblem naming the
 * byte offset of the first bad sequence and the fix, `--encoding <name>`).
 *
 * The rules, in order (`--encoding` skips them all, but its bytes are still checked):
 *  1. A byte-order mark: UTF-8, UTF-16 LE/BE, UTF-32 LE/BE.
 *  2. No mark, but NUL bytes in the pattern ASCII text has in UTF-16 or UTF-32 (every second or
 *     every fourth byte NUL): that encoding. Other NUL bytes stop the import (not text).
 *  3. Valid UTF-8 (ASCII included): UTF-8.
 *  4. Not valid UTF-8 and no valid multi-byte UTF-8 sequence anywhere: a legacy single-byte file,
 *     read as windows-1252 unless chardet names a single-byte encoding clearly (see
 *     chooseSingleByte); a multi-byte legacy answer (Shift_JIS, GB18030…) is not taken but
 *     suggested. A byte the chosen encoding does not define stops the import.
 *  5. Invalid UTF-8 next to valid multi-byte UTF-8: mixed encodings, which no guess decodes
 *     correctly: stop, naming the first bad byte.
 * Everything works on chunks, so a streamed file is judged by one pass over its bytes that holds
 * at most one chunk and a 256 KiB sample (EncodingScanner, encoding-scan.ts), then decoded by a
 * second, streaming pass (here).
 */

/**
 * iconv-lite, loaded on first use: only a file not in UTF-8 (or `--encoding`) needs it, and its
 * encoding tables (550 KB in the CLI's bundle) cost every import run ~20 ms to compile. `require`
 * keeps callers synchronous.
 */
const iconv = onFirstUse<typeof import("iconv-lite")>("iconv-lite");

/** How a file's text is decoded. */
export interface TextEncoding {
  /** An iconv-lite encoding name: "utf-8", "utf-16le", "windows-1252", … */
  name: string;
  /** How it was chosen: no evidence against UTF-8, a byte-order mark, the NUL pattern, chardet, or --encoding. */
  source: "utf-8" | "bom" | "nul-pattern" | "detected" | "forced";
  /** chardet's confidence (0..100) when detected. */
  confidence?: number;
}

/** Why a file cannot be decoded: where (byte offset) and how to fix it. */
export interface EncodingProblem {
  offset: number;
  /** Bytes per code unit of the encoding the offset was counted in (for the line number). */
  unit: 1 | 2 | 4;
  littleEndian: boolean;
  problem: string;
  fix: string;
}

export class EncodingFailure extends Error {
  constructor(readonly detail: EncodingProblem) {
    super(detail.problem);
    this.name = "EncodingFailure";
  }
}

export type Family =
  { kind: "utf8" } | { kind: "utf16" | "utf32"; littleEndian: boolean | undefined } | { kind: "sbcs"; undefinedBytes: number[] } | { kind: "other" };

/** How much of the start decides BOM-less UTF-16/32 (and what detect() sees decoded). */
export const HEAD_BYTES = 4096;

const key = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** The name iconv-lite knows, or undefined (for --encoding). */
export function knownEncoding(name: string): string | undefined {
  const trimmed = name.trim();
  return trimmed !== "" && iconv().encodingExists(trimmed) ? trimmed : undefined;
}

/** Display name: "UTF-16LE", "windows-1252". */
export function encodingLabel(name: string): string {
  const k = key(name);
  const utf = /^(utf)(8|16|32)(le|be)?$/.exec(k);
  if (utf) return `UTF-${utf[2]}${(utf[3] ?? "").toUpperCase()}`;
  if (k === "ucs2") return "UTF-16LE";
  return name;
}

const familyCache = new Map<string, Family>();

export function familyOf(name: string): Family {
  const k = key(name);
  if (k === "utf8" || k === "unicode11utf8") return { kind: "utf8" };
  const utf = /^(?:utf(16|32)|ucs(2|4))(le|be)?$/.exec(k);
  if (utf) {
    const kind = utf[1] === "32" || utf[2] === "4" ? "utf32" : "utf16";
    return { kind, littleEndian: utf[3] === "le" ? true : utf[3] === "be" ? false : undefined };
  }
  const cached = familyCache.get(k);
  if (cached) return cached;
  // Single-byte when every byte decodes to one character; the bytes that decode to U+FFFD are
  // the ones the encoding leaves undefined.
  let family: Family = { kind: "other" };
  const all = iconv().decode(Buffer.from(Array.from({ length: 256 }, (_, i) => i)), name);
  if (all.length === 256) {
    family = { kind: "sbcs", undefinedBytes: [...all].flatMap((c, i) => (c === "\uFFFD" ? [i] : [])) };
  }
  familyCache.set(k, family);
  return family;
}

/** A byte-order mark at the start of `head`, if any. */
export function sniffBom(head: Uint8Array): { name: string; length: number } | undefined {
  const [a, b, c, d] = head;
  if (a === 0xef && b === 0xbb && c === 0xbf) return { name: "utf-8", length: 3 };
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return { name: "utf-32le", length: 4 };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return { name: "utf-32be", length: 4 };
  if (a === 0xff && b === 0xfe) return { name: "utf-16le", length: 2 };
  if (a === 0xfe && b === 0xff) return { name: "utf-16be", length: 2 };
  return undefined;
}

/**
 * UTF-16/32 without a byte-order mark, from where the NUL bytes fall: ASCII text in UTF-16LE is
 * "A\0B\0", in UTF-32BE "\0\0\0A". Text mostly outside ASCII has too few NULs to tell, and is
 * then not recognised (pass --encoding).
 */
export function sniffNulPattern(head: Uint8Array): string | undefined {
  const n = head.length - (head.length % 4);
  if (n < 4) return undefined;
  const zeros = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) if (head[i] === 0) zeros[i % 4]!++;
  const per = n / 4;
  const z = zeros.map((count) => count / per);
  if (z[1]! > 0.9 && z[2]! > 0.9 && z[3]! > 0.9 && z[0]! < 0.5) return "utf-32le";
  if (z[0]! > 0.9 && z[1]! > 0.9 && z[2]! > 0.9 && z[3]! < 0.5) return "utf-32be";
  const even = (z[0]! + z[2]!) / 2;
  const odd = (z[1]! + z[3]!) / 2;
  if (odd > 0.5 && even < 0.1) return "utf-16le";
  if (even > 0.5 && odd < 0.1) return "utf-16be";
  return undefined;
}

/** Where a chunk's last complete UTF-8 sequence ends (a sequence cut by the chunk end waits for the next chunk). */
export function utf8Boundary(data: Uint8Array): number {
  const len = data.length;
  for (let k = 1; k <= Math.min(3, len); k++) {
    const b = data[len - k]!;
    if ((b & 0xc0) === 0x80) continue;
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      if (need > k) return len - k;
    }
    return len;
  }
  return len;
}

/** Length of the valid UTF-8 sequence at `i` (1 for ASCII), or 0 when the bytes there are not valid UTF-8. */
export function utf8SequenceAt(data: Uint8Array, i: number): number {
  const b = data[i]!;
  if (b < 0x80) return 1;
  let need: number;
  let min: number;
  if (b >= 0xc2 && b <= 0xdf) [need, min] = [2, 0x80];
  else if (b >= 0xe0 && b <= 0xef) [need, min] = [3, 0x800];
  else if (b >= 0xf0 && b <= 0xf4) [need, min] = [4, 0x10000];
  else return 0;
  if (i + need > data.length) return 0;
  let cp = b & (0xff >> (need + 1));
  for (let j = 1; j < need; j++) {
    const c = data[i + j]!;
    if ((c & 0xc0) !== 0x80) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return need;
}

export const hex = (bytes: ArrayLike<number>): string =>
  Array.from(bytes)
    .map((b) => `0x${b.toString(16).toUpperCase().padStart(2, "0")}`)
    .join(" ");

/** A decoder that checks what the scan could not (forced multi-byte legacy encodings). */
class Decoder {
  private readonly utf8: TextDecoder | undefined;
  private readonly legacy: ReturnType<ReturnType<typeof iconv>["getDecoder"]> | undefined;
  private readonly checked: boolean;
  private consumed = 0;

  constructor(private readonly encoding: TextEncoding) {
    const family = familyOf(encoding.name);
    if (family.kind === "utf8") this.utf8 = new TextDecoder("utf-8", { fatal: true });
    else this.legacy = iconv().getDecoder(encoding.name, { stripBOM: true });
    this.checked = family.kind === "other";
  }

  write(chunk: Uint8Array, last = false): string {
    let text: string;
    try {
      text = this.utf8
        ? this.utf8.decode(chunk, { stream: !last })
        : this.legacy!.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)) + (last ? (this.legacy!.end() ?? "") : "");
    } catch {
      // The scan said UTF-8; only a file changed since then gets here.
      throw new EncodingFailure({
        offset: this.consumed,
        unit: 1,
        littleEndian: false,
        problem: "the file changed while it was read and is no longer valid UTF-8",
        fix: "a file that is not being written to",
      });
    }
    if (this.checked) {
      const bad = text.indexOf("\uFFFD");
      if (bad >= 0) {
        // Offset of the bad sequence: the bytes of the text before it, re-encoded (exact for valid text).
        const at = this.consumed + iconv().encode(text.slice(0, bad), this.encoding.name).length;
        throw new EncodingFailure({
          offset: at,
          unit: 1,
          littleEndian: false,
          problem: `byte ${at} is not a valid ${this.encoding.name} sequence`,
          fix: "the file's real encoding, passed as --encoding <name>",
        });
      }
    }
    this.consumed += chunk.byteLength;
    return text;
  }
}

/** Decode bytes held in memory with a decided encoding (a byte-order mark is removed). */
export function decodeBuffer(bytes: Uint8Array, encoding: TextEncoding): string {
  return new Decoder(encoding).write(bytes, true);
}

/** Decode a stream of byte chunks with a decided encoding. */
export async function* decodeChunks(chunks: AsyncIterable<Uint8Array>, encoding: TextEncoding): AsyncGenerator<string> {
  const decoder = new Decoder(encoding);
  for await (const chunk of chunks) {
    const text = decoder.write(chunk);
    if (text !== "") yield text;
  }
  const rest = decoder.write(new Uint8Array(0), true);
  if (rest !== "") yield rest;
}

/**
 * The first bytes of a file as text, for format detection only: like the rules above, but a
 * file that is not UTF-8 is shown as windows-1252 (detection reads structure, not accents) and
 * nothing throws.
 */
export function decodeHead(bytes: Uint8Array, forced?: string): string {
  const name = forced ?? sniffBom(bytes)?.name ?? sniffNulPattern(bytes.subarray(0, HEAD_BYTES));
  if (name) return iconv().decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), name);
  const whole = bytes.subarray(0, utf8Boundary(bytes));
  return isUtf8(whole)
    ? Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength).toString("utf8")
    : iconv().decode(Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength), "windows-1252");
}

/**
 * Line counter for error messages: the 1-based line of byte `offset`, counting "\r\n", "\n" and
 * a lone "\r" as line ends, in code units of `unit` bytes.
 */
export class LineCounter {
  private line = 1;
  private lastCr = false;
  private seen = 0;

  constructor(
    private readonly offset: number,
    private readonly unit: 1 | 2 | 4,
    private readonly littleEndian: boolean,
  ) {}

  /** Feed bytes from the start of the file; returns true once `offset` is reached. */
  push(chunk: Uint8Array): boolean {
    const end = Math.min(chunk.length, this.offset - this.seen);
    for (let i = 0; i + this.unit <= end; i += this.unit) {
      const u = this.unitAt(chunk, i);
      if (u === 0x0a) {
        if (!this.lastCr) this.line++;
        this.lastCr = false;
      } else if (u === 0x0d) {
        this.line++;
        this.lastCr = true;
      } else this.lastCr = false;
    }
    this.seen += end;
    return this.seen >= this.offset;
  }

  get value(): number {
    return this.line;
  }

  private unitAt(chunk: Uint8Array, i: number): number {
    if (this.unit === 1) return chunk[i]!;
    // Only 0x0A/0x0D matter: the other bytes of the unit must be zero.
    const bytes = chunk.subarray(i, i + this.unit);
    const low = this.littleEndian ? bytes[0]! : bytes[this.unit - 1]!;
    const rest = this.littleEndian ? bytes.subarray(1) : bytes.subarray(0, this.unit - 1);
    return rest.every((b) => b === 0) ? low : -1;
  }
}
