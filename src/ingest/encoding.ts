import { isAscii, isUtf8 } from "node:buffer";
import chardet from "chardet";
import iconv from "iconv-lite";

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
 * at most one chunk and a 256 KiB sample, then decoded by a second, streaming pass.
 */

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

type Family = { kind: "utf8" } | { kind: "utf16" | "utf32"; littleEndian: boolean | undefined } | { kind: "sbcs"; undefinedBytes: number[] } | { kind: "other" };

/** How much of the start decides BOM-less UTF-16/32 (and what detect() sees decoded). */
const HEAD_BYTES = 4096;
/** Bytes of a legacy file chardet judges (from the first non-UTF-8 byte on). */
const SAMPLE_BYTES = 256 * 1024;
/** chardet answers taken without asking: the single-byte encodings of Europe and the Americas. */
const SINGLE_BYTE = /^(windows-125\d|iso-8859-\d{1,2}|koi8-[ru])$/i;

const key = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** The name iconv-lite knows, or undefined (for --encoding). */
export function knownEncoding(name: string): string | undefined {
  const trimmed = name.trim();
  return trimmed !== "" && iconv.encodingExists(trimmed) ? trimmed : undefined;
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

function familyOf(name: string): Family {
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
  const all = iconv.decode(Buffer.from(Array.from({ length: 256 }, (_, i) => i)), name);
  if (all.length === 256) {
    family = { kind: "sbcs", undefinedBytes: [...all].flatMap((c, i) => (c === "\uFFFD" ? [i] : [])) };
  }
  familyCache.set(k, family);
  return family;
}

/** A byte-order mark at the start of `head`, if any. */
function sniffBom(head: Uint8Array): { name: string; length: number } | undefined {
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
function sniffNulPattern(head: Uint8Array): string | undefined {
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
function utf8Boundary(data: Uint8Array): number {
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
function utf8SequenceAt(data: Uint8Array, i: number): number {
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

const hex = (bytes: ArrayLike<number>): string => Array.from(bytes).map((b) => `0x${b.toString(16).toUpperCase().padStart(2, "0")}`).join(" ");

/**
 * Judges a file's encoding from its bytes, pushed chunk by chunk. `done` turns true once the
 * answer cannot change (a problem was found), so a reader may stop early.
 */
export class EncodingScanner {
  private readonly pending: Buffer[] = [];
  private pendingBytes = 0;
  private family: Family | undefined;
  private chosen: TextEncoding | undefined;
  private offset = 0;
  private carry: Buffer = Buffer.alloc(0);
  private problem: EncodingProblem | undefined;
  // UTF-8 judging
  private validMultibyte = false;
  private firstInvalid: { offset: number; bytes: Uint8Array } | undefined;
  private firstNul: number | undefined;
  private readonly sample: Buffer[] = [];
  private sampleBytes = 0;
  /** First offset of each byte value 0x80..0xFF, for the undefined bytes of a detected single-byte encoding. */
  private readonly firstHigh = new Map<number, number>();
  // UTF-16 judging: a high surrogate waiting for its pair (its offset).
  private highSurrogate: number | undefined;

  constructor(private readonly forced?: string) {}

  get done(): boolean {
    return this.problem !== undefined;
  }

  push(chunk: Uint8Array): void {
    if (this.problem) return;
    if (!this.family) {
      this.pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this.pendingBytes += chunk.byteLength;
      if (this.pendingBytes >= HEAD_BYTES) this.start();
      return;
    }
    this.process(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), false);
  }

  /** The encoding, or the problem that stops the import. */
  finish(): TextEncoding {
    if (!this.family) this.start();
    if (!this.problem) this.process(Buffer.alloc(0), true);
    if (!this.problem) this.decide();
    if (this.problem) throw new EncodingFailure(this.problem);
    return this.chosen!;
  }

  private start(): void {
    const head = Buffer.concat(this.pending);
    this.pending.length = 0;
    if (this.forced) {
      this.family = familyOf(this.forced);
      this.chosen = { name: this.forced, source: "forced" };
      const bom = sniffBom(head);
      // A forced UTF-16/32 without endianness follows the mark, else little-endian.
      if ((this.family.kind === "utf16" || this.family.kind === "utf32") && this.family.littleEndian === undefined) {
        const le = !bom || bom.name.endsWith("le");
        this.family = { kind: this.family.kind, littleEndian: le };
        this.chosen.name = `${this.family.kind === "utf16" ? "utf-16" : "utf-32"}${le ? "le" : "be"}`;
      }
    } else {
      const bom = sniffBom(head);
      const nul = bom ? undefined : sniffNulPattern(head.subarray(0, HEAD_BYTES));
      const name = bom?.name ?? nul ?? "utf-8";
      this.family = familyOf(name);
      this.chosen = { name, source: bom ? "bom" : nul ? "nul-pattern" : "utf-8" };
    }
    this.process(head, false);
  }

  private fail(offset: number, problem: string, fix: string): void {
    const f = this.family!;
    const unit = f.kind === "utf16" ? 2 : f.kind === "utf32" ? 4 : 1;
    const littleEndian = (f.kind === "utf16" || f.kind === "utf32") && f.littleEndian !== false;
    this.problem ??= { offset, unit, littleEndian, problem, fix };
  }

  private process(chunk: Buffer, final: boolean): void {
    const family = this.family!;
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const base = this.offset - this.carry.length;
    let cut = data.length;
    if (!final) {
      if (family.kind === "utf8") cut = utf8Boundary(data);
      else if (family.kind === "utf16") cut = data.length - (data.length % 2);
      else if (family.kind === "utf32") cut = data.length - (data.length % 4);
    }
    this.carry = Buffer.from(data.subarray(cut));
    this.offset += chunk.length;
    const piece = data.subarray(0, cut);
    if (family.kind === "utf8") this.judgeUtf8(piece, base);
    else if (family.kind === "utf16" || family.kind === "utf32") this.judgeUtf(family.kind, family.littleEndian !== false, piece, base, final);
    else if (family.kind === "sbcs") this.judgeSingleByte(family.undefinedBytes, piece, base);
  }

  private judgeUtf8(piece: Buffer, base: number): void {
    const forced = this.chosen!.source === "forced";
    if (!forced && this.firstNul === undefined) {
      const nul = piece.indexOf(0);
      if (nul >= 0) this.firstNul = base + nul;
    }
    if (this.firstInvalid === undefined && isUtf8(piece)) {
      if (!this.validMultibyte && !isAscii(piece)) this.validMultibyte = true;
      return;
    }
    // Slow path from the first chunk that is not valid UTF-8 on: find every bad byte.
    for (let i = 0; i < piece.length; ) {
      const b = piece[i]!;
      if (b < 0x80) {
        i++;
        continue;
      }
      if (!this.firstHigh.has(b)) this.firstHigh.set(b, base + i);
      const len = utf8SequenceAt(piece, i);
      if (len > 0) {
        this.validMultibyte = true;
        for (let j = 1; j < len; j++) if (!this.firstHigh.has(piece[i + j]!)) this.firstHigh.set(piece[i + j]!, base + i + j);
        i += len;
        continue;
      }
      this.firstInvalid ??= { offset: base + i, bytes: Uint8Array.of(b) };
      i++;
    }
    if (this.firstInvalid !== undefined && this.sampleBytes < SAMPLE_BYTES) {
      const from = Math.max(0, this.firstInvalid.offset - base - 1024);
      const take = piece.subarray(from, from + SAMPLE_BYTES - this.sampleBytes);
      this.sample.push(Buffer.from(take));
      this.sampleBytes += take.length;
    }
    if (this.firstInvalid && (forced || this.validMultibyte || this.chosen!.source === "bom")) this.utf8Problem();
  }

  private utf8Problem(): void {
    const bad = this.firstInvalid!;
    const what = `byte ${bad.offset} (${hex(bad.bytes)}) is not valid UTF-8`;
    if (this.chosen!.source === "forced") {
      this.fail(bad.offset, `${what}, but --encoding ${this.chosen!.name} was given`, "text in the encoding given to --encoding; pass the file's real encoding, e.g. --encoding windows-1252");
    } else if (this.chosen!.source === "bom") {
      this.fail(bad.offset, `${what}, though the file starts with a UTF-8 byte-order mark`, "UTF-8 throughout: fix that byte in an editor, or pass --encoding windows-1252 (or the file's real encoding) to read it all in one legacy encoding");
    } else {
      this.fail(
        bad.offset,
        `${what}, while other characters of the file are valid UTF-8 (mixed encodings: no single encoding reads it correctly)`,
        "one encoding throughout: fix the bytes in an editor and save as UTF-8, or pass --encoding windows-1252 (or the file's real encoding) to read it all in that encoding",
      );
    }
  }

  private judgeUtf(kind: "utf16" | "utf32", le: boolean, piece: Buffer, base: number, final: boolean): void {
    const label = encodingLabel(this.chosen!.name);
    const fix = `${label} text; if the file is in another encoding, pass it with --encoding`;
    if (kind === "utf32") {
      for (let i = 0; i + 4 <= piece.length; i += 4) {
        const cp = le ? piece.readUInt32LE(i) : piece.readUInt32BE(i);
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return this.fail(base + i, `bytes ${base + i}..${base + i + 3} (${hex(piece.subarray(i, i + 4))}) are not a ${label} character`, fix);
      }
    } else {
      for (let i = 0; i + 2 <= piece.length; i += 2) {
        const unit = le ? piece.readUInt16LE(i) : piece.readUInt16BE(i);
        const high = unit >= 0xd800 && unit <= 0xdbff;
        const low = unit >= 0xdc00 && unit <= 0xdfff;
        if (this.highSurrogate !== undefined && !low) return this.fail(this.highSurrogate, `byte ${this.highSurrogate} starts an unpaired ${label} surrogate`, fix);
        if (low && this.highSurrogate === undefined) return this.fail(base + i, `byte ${base + i} is an unpaired ${label} surrogate`, fix);
        this.highSurrogate = high ? base + i : undefined;
      }
    }
    if (final) {
      const rest = this.carry.length;
      if (this.highSurrogate !== undefined) return this.fail(this.highSurrogate, `the file ends inside a ${label} surrogate pair`, fix);
      if (rest > 0 || piece.length % (kind === "utf16" ? 2 : 4) !== 0) {
        this.fail(base + piece.length - (piece.length % (kind === "utf16" ? 2 : 4)), `the file ends with ${rest || piece.length % (kind === "utf16" ? 2 : 4)} stray byte(s), not a whole ${label} character`, fix);
      }
    }
  }

  private judgeSingleByte(undefinedBytes: readonly number[], piece: Buffer, base: number): void {
    for (const b of undefinedBytes) {
      const at = piece.indexOf(b);
      if (at >= 0) {
        const name = this.chosen!.name;
        return this.fail(base + at, `byte ${base + at} (${hex([b])}) is not a character in ${name}`, "the file's real encoding, passed as --encoding <name>");
      }
    }
  }

  /** After the last chunk: UTF-8, a detected legacy encoding, or a problem. */
  private decide(): void {
    const chosen = this.chosen!;
    if (this.family!.kind !== "utf8" || chosen.source === "forced") return;
    if (this.firstNul !== undefined) {
      this.fail(this.firstNul, `byte ${this.firstNul} is a NUL byte: not a text file in UTF-8`, "a text file; if it is UTF-16 or UTF-32 text without a byte-order mark, pass --encoding utf-16le (or utf-16be, utf-32le, utf-32be)");
      return;
    }
    if (this.firstInvalid === undefined) return;
    // A legacy single-byte file: every non-ASCII byte is outside UTF-8.
    const bad = this.firstInvalid;
    const sample = Buffer.concat(this.sample);
    const matches = chardet.analyse(sample).filter((m) => m.name !== "ASCII" && !/^UTF/i.test(m.name));
    const single = chooseSingleByte(matches, sample);
    const top = matches[0];
    if (!single || (top && !SINGLE_BYTE.test(top.name) && top.confidence > single.confidence)) {
      const guess = top ? ` (it looks like ${top.name}: try --encoding ${top.name.toLowerCase()})` : "";
      this.fail(bad.offset, `byte ${bad.offset} (${hex(bad.bytes)}) is not valid UTF-8 and the file's encoding could not be told${guess}`, "UTF-8 text, or --encoding <name> naming the file's encoding (e.g. --encoding windows-1252)");
      return;
    }
    const name = single.name;
    const family = familyOf(name);
    this.chosen = { name, source: "detected", confidence: single.confidence };
    if (family.kind === "sbcs") {
      const undefinedAt = family.undefinedBytes.flatMap((b) => (this.firstHigh.has(b) ? [this.firstHigh.get(b)!] : [])).sort((x, y) => x - y)[0];
      if (undefinedAt !== undefined) {
        this.fail(undefinedAt, `the file is not UTF-8 and looks like ${name}, but byte ${undefinedAt} is not a character in ${name}`, "--encoding <name> naming the file's encoding");
      }
    }
  }
}

/** Scripts whose letters are nearly all non-ASCII bytes: chardet tells them apart reliably. */
const NON_LATIN = /^(windows-125[1356]|iso-8859-[5678]|koi8-[ru])$/i;
const WESTERN = /^(windows-1252|iso-8859-1|iso-8859-15)$/i;
/** Non-ASCII bytes a sample needs before a Latin encoding other than windows-1252 is believed. */
const LATIN_EVIDENCE_BYTES = 32;

/**
 * chardet's single-byte answer, weighed. Latin-script text has few non-ASCII letters, and on few
 * of them chardet's guesses scatter (in tests, "naïve café" came out as ISO-8859-2): such text is
 * read as windows-1252, by far the most common legacy encoding of transcripts (and a superset of
 * ISO-8859-1, as browsers treat it), unless another Latin encoding wins clearly on enough bytes.
 * Cyrillic, Greek, Hebrew and Arabic encodings are taken as chardet names them.
 */
function chooseSingleByte(matches: readonly { name: string; confidence: number }[], sample: Uint8Array): { name: string; confidence: number } | undefined {
  const single = matches.filter((m) => SINGLE_BYTE.test(m.name));
  const top = single[0];
  if (!top) return undefined;
  if (NON_LATIN.test(top.name)) return top;
  const western = single.find((m) => WESTERN.test(m.name))?.confidence ?? 0;
  let nonAscii = 0;
  for (const b of sample) if (b >= 0x80) nonAscii++;
  if (!WESTERN.test(top.name) && top.confidence >= 50 && top.confidence - western >= 20 && nonAscii >= LATIN_EVIDENCE_BYTES) return top;
  return { name: "windows-1252", confidence: western || top.confidence };
}

/** Decide the encoding of bytes held in memory. Throws EncodingFailure. */
export function encodingOfBuffer(bytes: Uint8Array, forced?: string): TextEncoding {
  const scanner = new EncodingScanner(forced);
  scanner.push(bytes);
  return scanner.finish();
}

/** A decoder that checks what the scan could not (forced multi-byte legacy encodings). */
class Decoder {
  private readonly utf8: TextDecoder | undefined;
  private readonly legacy: ReturnType<typeof iconv.getDecoder> | undefined;
  private readonly checked: boolean;
  private consumed = 0;

  constructor(private readonly encoding: TextEncoding) {
    const family = familyOf(encoding.name);
    if (family.kind === "utf8") this.utf8 = new TextDecoder("utf-8", { fatal: true });
    else this.legacy = iconv.getDecoder(encoding.name, { stripBOM: true });
    this.checked = family.kind === "other";
  }

  write(chunk: Uint8Array, last = false): string {
    let text: string;
    try {
      text = this.utf8 ? this.utf8.decode(chunk, { stream: !last }) : this.legacy!.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)) + (last ? (this.legacy!.end() ?? "") : "");
    } catch {
      // The scan said UTF-8; only a file changed since then gets here.
      throw new EncodingFailure({ offset: this.consumed, unit: 1, littleEndian: false, problem: "the file changed while it was read and is no longer valid UTF-8", fix: "a file that is not being written to" });
    }
    if (this.checked) {
      const bad = text.indexOf("\uFFFD");
      if (bad >= 0) {
        // Offset of the bad sequence: the bytes of the text before it, re-encoded (exact for valid text).
        const at = this.consumed + iconv.encode(text.slice(0, bad), this.encoding.name).length;
        throw new EncodingFailure({ offset: at, unit: 1, littleEndian: false, problem: `byte ${at} is not a valid ${this.encoding.name} sequence`, fix: "the file's real encoding, passed as --encoding <name>" });
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
  if (name) return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), name);
  const whole = bytes.subarray(0, utf8Boundary(bytes));
  return isUtf8(whole) ? Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength).toString("utf8") : iconv.decode(Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength), "windows-1252");
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
