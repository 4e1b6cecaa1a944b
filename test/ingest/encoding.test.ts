import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import iconv from "iconv-lite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBuffer, decodeHead } from "../../src/ingest/encoding.js";
import { EncodingScanner, encodingOfBuffer } from "../../src/ingest/encoding-scan.js";
import { fileInput } from "../../src/ingest/input.js";
import { FormatError, importFiles } from "../../src/ingest/registry.js";
import { ImportError } from "../../src/ingest/types.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));
const fixture = (rel: string) => join(FIXTURES, rel);

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

const replacements = (texts: readonly string[]) => texts.join("\n").split("\uFFFD").length - 1;

describe("encodings: decoded correctly or refused, never U+FFFD", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-encoding-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("imports a Windows-1252 SRT without a replacement character and says which encoding it detected", async () => {
    // Read as UTF-8 (what the importer used to do), this file has 16 U+FFFD in its 4 cues, and
    // "Élodie:" no longer reads as a name.
    expect(replacements([(await readFile(fixture("srt/windows-1252.srt"))).toString("utf8")])).toBe(16);
    const [file] = await importFiles([fixture("srt/windows-1252.srt")]);
    const session = file!.result!.sessions[0]!;
    expect(replacements(session.turns.map((t) => t.text))).toBe(0);
    expect(session.turns.map((t) => t.text)).toEqual([
      "Bonjour à tous, on commence ?",
      "Oui. J’ai préparé le résumé de la réunion.",
      "Le budget – 1 200 € – est validé… enfin, presque.",
      "« Presque » ? Ça me va.",
    ]);
    expect(session.participants.map((p) => p.name)).toEqual(["Élodie", "Marc"]);
    expect(session.metadata!.source).toMatchObject({ format: "srt", encoding: "windows-1252" });
    expect(file!.result!.warnings[0]).toMatch(/windows-1252\.srt: not valid UTF-8; read as windows-1252 \(detected, confidence \d+%\).*--encoding/);
  });

  it("decodes a streamed Windows-1252 plain transcript line by line (lines(), not readText)", async () => {
    const input = fileInput(fixture("plain/windows-1252.txt"));
    const lines = await collect(input.lines());
    expect(lines[0]).toBe("Interview 3 – café study");
    expect(lines).toContain("Participant: It proposed a “crème brûlée” theme for the menu.");
    expect(input.decodedAs!()).toMatchObject({ name: "windows-1252", source: "detected" });
  });

  it("reads a Windows-1252 CSV (Excel's plain CSV) through readText", async () => {
    const [file] = await importFiles([fixture("csv/windows-1252.csv")]);
    expect(file!.result!.sessions[0]!.turns.map((t) => t.text)).toEqual([
      "Let’s start with the naïve version",
      "Sure – here’s a draft: “Café Lumière”",
      "Très bien",
    ]);
  });

  it("reads UTF-16 and UTF-32, with or without a byte-order mark, and detects the format under it", async () => {
    const files = await importFiles([fixture("vtt/utf-16le-bom.vtt"), fixture("plain/utf-16be-no-bom.txt"), fixture("plain/utf-32le-bom.txt")]);
    expect(files.map((f) => [f.format, f.error, f.result!.sessions[0]!.metadata!.source])).toEqual([
      ["vtt", undefined, expect.objectContaining({ encoding: "UTF-16LE" })],
      ["plain", undefined, expect.objectContaining({ encoding: "UTF-16BE" })],
      ["plain", undefined, expect.objectContaining({ encoding: "UTF-32LE" })],
    ]);
    expect(files[0]!.result!.sessions[0]!.turns[0]!.text).toBe("Guten Morgen, können wir anfangen?");
    expect(files[1]!.result!.sessions[0]!.turns.map((t) => t.text)).toEqual(["Welcome back — ready?", "Ready. Let’s go.", "First question…", "Go ahead."]);
    expect(files[2]!.result!.sessions[0]!.turns[0]!.text).toBe("Olá! Tudo bem? 🙂");
    expect(files[0]!.result!.warnings[0]).toMatch(/read as UTF-16LE \(byte-order mark\)/);
    expect(files[1]!.result!.warnings[0]).toMatch(/read as UTF-16BE \(no byte-order mark/);
    for (const f of files) expect(JSON.stringify(f)).not.toMatch(/\\u0000|\uFFFD/);
  });

  it("streams UTF-16 JSONL (PowerShell's Out-File) through the native importer", async () => {
    const [file] = await importFiles([fixture("native/utf-16le-bom.jsonl")]);
    expect(file!.error).toBeUndefined();
    expect(file!.result!.sessions[0]!.turns.map((t) => t.text)).toEqual(["Où en est le rapport ?", "Presque fini — deux sections restent."]);
  });

  it("stops on mixed encodings, naming the file, line, byte offset and --encoding, whether read whole or streamed", async () => {
    const path = fixture("plain/broken-mixed-encoding.txt");
    const message =
      /broken-mixed-encoding\.txt:2: byte 52 \(0xE9\) is not valid UTF-8, while other characters of the file are valid UTF-8.*--encoding windows-1252/;
    await expect(fileInput(path).readText()).rejects.toThrow(message);
    await expect(collect(fileInput(path).lines())).rejects.toThrow(message);
    await expect(collect(fileInput(path).lines())).rejects.toBeInstanceOf(ImportError);
    const [file] = await importFiles([path]);
    expect(file!.error).toMatch(message);
  });

  it("--encoding forces the decoding and still refuses bytes that encoding does not have", async () => {
    const forced = await importFiles([fixture("plain/windows-1252.txt")], { encoding: "windows-1252" });
    expect(forced[0]!.result!.warnings.filter((w) => /read as/.test(w))).toEqual([]);
    expect(forced[0]!.result!.sessions[0]!.metadata!.source).toMatchObject({ encoding: "windows-1252" });
    const utf8 = await importFiles([fixture("srt/windows-1252.srt")], { encoding: "utf-8" });
    expect(utf8[0]!.error).toMatch(/windows-1252\.srt:3: byte 34 \(0xC9\) is not valid UTF-8, but --encoding utf-8 was given/);
    const undefinedByte = join(dir, "undefined-byte.txt");
    await writeFile(undefinedByte, Buffer.from("Ann: a\nBob: b\x81\nAnn: c\n", "latin1"));
    expect((await importFiles([undefinedByte], { encoding: "windows-1252" }))[0]!.error).toMatch(
      /undefined-byte\.txt:2: byte 13 \(0x81\) is not a character in windows-1252/,
    );
    await expect(importFiles([undefinedByte], { encoding: "klingon-8" })).rejects.toThrow(FormatError);
    await expect(importFiles([undefinedByte], { encoding: "klingon-8" })).rejects.toThrow(/unknown encoding "klingon-8".*windows-1252/);
  });

  it("refuses broken UTF-16 and NUL bytes outside UTF-16/32, with the byte offset", () => {
    const lone = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("Ann: hi\n", "utf-16le"), Buffer.from([0x00, 0xd8]), iconv.encode("x\n", "utf-16le")]);
    expect(() => encodingOfBuffer(lone)).toThrow(/byte 18 starts an unpaired UTF-16LE surrogate/);
    expect(() => encodingOfBuffer(Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x42]))).toThrow(/ends with 1 stray byte/);
    expect(() => encodingOfBuffer(Buffer.from("Ann: hi\u0000there\nBob: yo\n"))).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/byte 7 is a NUL byte/),
        detail: expect.objectContaining({ fix: expect.stringMatching(/--encoding utf-16le/) }),
      }),
    );
  });

  it("judges a file streamed in chunks the same as whole: a character cut by a chunk boundary, a bad byte far in", async () => {
    // 64 KiB read chunks: the "é" at 65535..65536 straddles the first boundary.
    const prefix = "Ann: " + "a".repeat(65535 - 5);
    const ok = join(dir, "straddle.txt");
    await writeFile(ok, `${prefix}é\nBob: fine\nAnn: again\nBob: yes\n`);
    expect((await collect(fileInput(ok).lines()))[0]).toBe(`${prefix}é`);
    const bad = join(dir, "late-bad-byte.txt");
    const lines = Array.from({ length: 5000 }, (_, i) => `${i % 2 ? "Bob" : "Ann"}: line ${i} café`);
    const body = Buffer.from(lines.join("\n") + "\n");
    await writeFile(bad, Buffer.concat([body, Buffer.from([0xe9]), Buffer.from("\n")]));
    await expect(collect(fileInput(bad).lines())).rejects.toThrow(new RegExp(`late-bad-byte\\.txt:5001: byte ${body.length} \\(0xE9\\)`));
    const legacy = join(dir, "late-legacy.txt");
    await writeFile(legacy, iconv.encode(lines.join("\n").replace(/é/g, "e") + "\nAnn: déjà vu\n", "windows-1252"));
    expect((await collect(fileInput(legacy).lines())).at(-1)).toBe("Ann: déjà vu");
  });

  it("decodes any text in any Unicode encoding with a byte-order mark, whole or in arbitrary chunks", () => {
    const boms: Record<string, number[]> = {
      "utf-8": [0xef, 0xbb, 0xbf],
      "utf-16le": [0xff, 0xfe],
      "utf-16be": [0xfe, 0xff],
      "utf-32le": [0xff, 0xfe, 0, 0],
      "utf-32be": [0, 0, 0xfe, 0xff],
    };
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.constantFrom(...Object.keys(boms)),
        fc.array(fc.nat(), { maxLength: 6 }),
        (text, name, cuts) => {
          const bytes = Buffer.concat([Buffer.from(boms[name]!), iconv.encode(text, name, { addBOM: false })]);
          const whole = encodingOfBuffer(bytes);
          expect(whole.name).toBe(name);
          expect(decodeBuffer(bytes, whole)).toBe(text);
          const scanner = new EncodingScanner();
          let from = 0;
          for (const cut of [...cuts.map((c) => c % (bytes.length + 1))].sort((a, b) => a - b)) {
            scanner.push(bytes.subarray(from, cut));
            from = cut;
          }
          scanner.push(bytes.subarray(from));
          expect(scanner.finish()).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("shows detection a UTF-16 or legacy head as text", () => {
    expect(decodeHead(Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("WEBVTT\n", "utf-16le")]))).toBe("WEBVTT\n");
    expect(decodeHead(iconv.encode("Zoë: hi", "windows-1252"))).toBe("Zoë: hi");
  });
});
