// Judging a file's encoding from its bytes, in one streaming pass: the rules are listed in encoding.ts.
import { isAscii, isUtf8 } from "node:buffer";
import { onFirstUse } from "../util/on-first-use.js";
import {
  encodingLabel,
  EncodingFailure,
  familyOf,
  HEAD_BYTES,
  hex,
  sniffBom,
  sniffNulPattern,
  utf8Boundary,
  utf8SequenceAt,
  type EncodingProblem,
  type Family,
  type TextEncoding,
} from "./encoding.js";

/** chardet, loaded on first use: only a file not in UTF-8 needs it (as iconv-lite, encoding.ts). */
const chardet = onFirstUse<typeof import("chardet")>("chardet");
/** chardet answers taken without asking: the single-byte encodings of Europe and the Americas. */
const SINGLE_BYTE = /^(windows-125\d|iso-8859-\d{1,2}|koi8-[ru])$/i;

/** Bytes of a legacy file chardet judges (from the first non-UTF-8 byte on). */
const SAMPLE_BYTES = 256 * 1024;

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
    for (let i = 0; i < piece.length;) {
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
      this.fail(
        bad.offset,
        `${what}, but --encoding ${this.chosen!.name} was given`,
        "text in the encoding given to --encoding; pass the file's real encoding, e.g. --encoding windows-1252",
      );
    } else if (this.chosen!.source === "bom") {
      this.fail(
        bad.offset,
        `${what}, though the file starts with a UTF-8 byte-order mark`,
        "UTF-8 throughout: fix that byte in an editor, or pass --encoding windows-1252 (or the file's real encoding) to read it all in one legacy encoding",
      );
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
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
          return this.fail(base + i, `bytes ${base + i}..${base + i + 3} (${hex(piece.subarray(i, i + 4))}) are not a ${label} character`, fix);
      }
    } else {
      for (let i = 0; i + 2 <= piece.length; i += 2) {
        const unit = le ? piece.readUInt16LE(i) : piece.readUInt16BE(i);
        const high = unit >= 0xd800 && unit <= 0xdbff;
        const low = unit >= 0xdc00 && unit <= 0xdfff;
        if (this.highSurrogate !== undefined && !low)
          return this.fail(this.highSurrogate, `byte ${this.highSurrogate} starts an unpaired ${label} surrogate`, fix);
        if (low && this.highSurrogate === undefined) return this.fail(base + i, `byte ${base + i} is an unpaired ${label} surrogate`, fix);
        this.highSurrogate = high ? base + i : undefined;
      }
    }
    if (final) {
      const rest = this.carry.length;
      if (this.highSurrogate !== undefined) return this.fail(this.highSurrogate, `the file ends inside a ${label} surrogate pair`, fix);
      if (rest > 0 || piece.length % (kind === "utf16" ? 2 : 4) !== 0) {
        this.fail(
          base + piece.length - (piece.length % (kind === "utf16" ? 2 : 4)),
          `the file ends with ${rest || piece.length % (kind === "utf16" ? 2 : 4)} stray byte(s), not a whole ${label} character`,
          fix,
        );
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
      this.fail(
        this.firstNul,
        `byte ${this.firstNul} is a NUL byte: not a text file in UTF-8`,
        "a text file; if it is UTF-16 or UTF-32 text without a byte-order mark, pass --encoding utf-16le (or utf-16be, utf-32le, utf-32be)",
      );
      return;
    }
    if (this.firstInvalid === undefined) return;
    // A legacy single-byte file: every non-ASCII byte is outside UTF-8.
    const bad = this.firstInvalid;
    const sample = Buffer.concat(this.sample);
    const matches = chardet()
      .analyse(sample)
      .filter((m) => m.name !== "ASCII" && !/^UTF/i.test(m.name));
    const single = chooseSingleByte(matches, sample);
    const top = matches[0];
    if (!single || (top && !SINGLE_BYTE.test(top.name) && top.confidence > single.confidence)) {
      const guess = top ? ` (it looks like ${top.name}: try --encoding ${top.name.toLowerCase()})` : "";
      this.fail(
        bad.offset,
        `byte ${bad.offset} (${hex(bad.bytes)}) is not valid UTF-8 and the file's encoding could not be told${guess}`,
        "UTF-8 text, or --encoding <name> naming the file's encoding (e.g. --encoding windows-1252)",
      );
      return;
    }
    const name = single.name;
    const family = familyOf(name);
    this.chosen = { name, source: "detected", confidence: single.confidence };
    if (family.kind === "sbcs") {
      const undefinedAt = family.undefinedBytes.flatMap((b) => (this.firstHigh.has(b) ? [this.firstHigh.get(b)!] : [])).sort((x, y) => x - y)[0];
      if (undefinedAt !== undefined) {
        this.fail(
          undefinedAt,
          `the file is not UTF-8 and looks like ${name}, but byte ${undefinedAt} is not a character in ${name}`,
          "--encoding <name> naming the file's encoding",
        );
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
