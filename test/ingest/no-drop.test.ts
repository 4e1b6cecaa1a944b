import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { XMLParser } from "fast-xml-parser";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { directoryInput, fileInput } from "../../src/ingest/input.js";
import { importers } from "../../src/ingest/registry.js";
import { ImportError, type Importer, type ImportResult } from "../../src/ingest/types.js";
import { assertNothingDropped } from "../support/coverage.js";
import { docxText } from "../support/docx.js";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";

/**
 * "Nothing is silently dropped": for every fixture of every format, every character of every
 * input body ends up in some turn's text or in explicit metadata. Markup the format defines
 * (Slack dividers, time lines, cue timings, CSV headers) is the only thing allowed to vanish;
 * where a markup line carries words (a speaker header, a `Name:` prefix) those words must
 * still be found, as participant names/roles or code labels.
 *
 * Fixtures that are broken on purpose (they exist to test error messages) must fail with an
 * ImportError; everything else must import.
 *
 * Fixtures in another encoding name it (`windows-1252.srt`, `utf-16be-no-bom.txt`): the test
 * decodes them by that name with Node's own decoders, independently of the importers' detection.
 */

const FIXTURES = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));
const byName = new Map(importers.map((i) => [i.name, i]));

/** A markup line: when it matches, only its capture groups (trimmed, non-empty) must survive. */
type Markup = RegExp;

const TIME = String.raw`\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:\s*[AaPp]\.?[Mm]\.?)?`;
// Standard `00:00:01.000` and Teams' unpadded `0:0:2.90`; settings after the end time are markup.
const CUE_TIME = String.raw`(?:\d{1,2}:)?\d{1,2}:\d{1,2}[.,]\d{1,3}`;
const CUE_TIMING = new RegExp(String.raw`^\s*${CUE_TIME}\s*--?>\s*${CUE_TIME}.*$`);
// A timing line with words after the end time (not `name:value` settings): the timing is markup, the words are cue text.
const TIMING_BEFORE_TEXT = new RegExp(String.raw`^\s*${CUE_TIME}\s*-->\s*${CUE_TIME}\s*`);

const WA_DATE = String.raw`\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\.?`;
const WA_TIME = String.raw`\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:[\s\u202f]*[AaPp]\.?\s?[Mm]\.?)?`;

/** Per text format: markup lines. Kept tight: a pattern that swallowed words could hide a drop. */
const MARKUP: Record<string, Markup[]> = {
  "slack-paste": [
    /^\s*New\s*$/, // Slack's new-messages divider
    new RegExp(String.raw`^\s*(?:APP|BOT)?\s*${TIME}\s*$`), // time line (timestamps aside)
    new RegExp(String.raw`^(\S(?:.*?\S)?)\s*\(([^()]*)\)\s+(?:(?:APP|BOT)\s+)?${TIME}(?:\s+(\S.*?))?\s*$`), // compact header + code label
    /^(\S(?:.*?\S)?)\s*\(([^()]*)\)\s*$/, // Name (Role) header
  ],
  plain: [
    new RegExp(String.raw`^\s*\[${TIME}\]\s*\*\*([^*]+?):?\*\*:?\s*(.*)$`), // [00:01:23] **Speaker:** text (Markdown)
    new RegExp(String.raw`^\*\*(.+?)\*\*\s{2,}${TIME}\s*$`), // **Name**  1:23 (Otter Markdown)
    new RegExp(String.raw`^\s*\[${TIME}\]\s*([^:]+?):\s*(.*)$`), // [00:01:23] Speaker: text
    new RegExp(String.raw`^(.+?)\s*\(${TIME}\):\s*(.*)$`), // Speaker 1 (00:00): text
    new RegExp(String.raw`^(.+?)\s{2,}${TIME}\s*$`), // Name  1:23
    /^([^:]{1,60}):\s*(.*)$/, // Speaker: text
  ],
  vtt: [/^WEBVTT.*$/, /^\s*\d+\s*$/, CUE_TIMING, /^<v(?:\.[^ >]*)?\s+([^>]+)>(.*?)(?:<\/v>)?$/, /^([^:]{1,60}):\s*(.*)$/],
  srt: [/^\s*\d+\s*$/, CUE_TIMING, /^([^:]{1,60}):\s*(.*)$/],
  textgrid: [
    /^\s*(?:File type|Object class|class) = "[^"]*"\s*$/,
    /^\s*(?:xmin|xmax|number|time|size|intervals: size|points: size) = [-+\d.eE]+\s*$/,
    /^\s*tiers\? <exists>\s*$/,
    /^\s*(?:item|intervals|points) \[\d*\]:\s*$/,
    /^\s*(?:text|mark|name) = "(.*)"\s*$/, // the words, marks and tier (speaker) names
  ],
  sbv: [/^\s*\d{1,2}:\d{2}:\d{2}\.\d{1,3},\d{1,2}:\d{2}:\d{2}\.\d{1,3}\s*$/, /^([^:]{1,60}):\s*(.*)$/],
  // CHAT: the media bullet (\u0015start_end\u0015) becomes start/end; codes, text, tier values and headers must survive.
  cha: [/^\*([^:\s]+):\s?(.*?)\s*(?:\u0015\d+_\d+\u0015)?\s*$/, /^%[^:\s]+:\s?(.*)$/, /^@([^:\t]+?)(?::\s?(.*))?$/, /^\t(.*?)\s*(?:\u0015\d+_\d+\u0015)?\s*$/],
  // Zoom chat: the clock time is markup; sender, recipient and text must survive.
  "zoom-chat": [
    /^\d{1,2}:\d{2}:\d{2}\s+From\s+(.+?)\s+to\s+(.+?)\s*:(?:\s(.*))?$/,
    /^\d{1,2}:\d{2}:\d{2}\s+From\s+(.+?)\s*:(?:\s(.*))?$/,
    /^\d{1,2}:\d{2}:\d{2}[ \t]+([^\t]+?)\s+to\s+([^\t]+?):\t(.*)$/, // recordings' `hh:mm:ss Name  to  Host(Direct:<TAB>text`
    /^\d{1,2}:\d{2}:\d{2}[ \t]+([^\t]+?):\t(.*)$/, // recordings' `hh:mm:ss Name:<TAB>text`
  ],
  // Teams .docx (its paragraphs' text): offsets and cue timings are markup; the names must survive.
  "teams-docx": [/^(\S.*?)(?:\t+|\s{2,})\d{1,2}(?::\d{1,2}){1,2}\s*$/, /^\s*\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?\s*-->\s*\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d+)?\s*$/],
  // Google Meet: time lines are markup (kept as start times); the speaker and the words must survive.
  "google-meet": [/^\s*\d{1,2}:\d{2}:\d{2}\s*$/, /^([^:]{1,60}?):\s+(.*)$/],
  // Date and time headers are markup (kept as timestamps); the sender and the text must survive.
  whatsapp: [new RegExp(String.raw`^\u200e?\[?${WA_DATE},?\s${WA_TIME}\]?\s(?:[-–]\s)?(?:\u200e?([^:"“”]{1,60}?): )?(.*)$`)],
};

const VOICE_TAG = /<v(?:\.[^\s>]*)?(?:\s+([^>]*))?>/;

/** The pieces of a text fixture that must survive: each line, or a markup line's captures. */
function textPieces(format: string, text: string): string[] {
  const patterns = MARKUP[format] ?? [];
  const out: string[] = [];
  for (const raw of text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/)) {
    if (raw.trim() === "") continue;
    if (format === "vtt" && VOICE_TAG.test(raw)) {
      const line = raw.replace(TIMING_BEFORE_TEXT, "");
      // Voice tags anywhere in a line are markup: the names and the words between them must survive.
      out.push(...[...line.matchAll(new RegExp(VOICE_TAG, "g"))].flatMap((m) => (m[1]?.trim() ? [m[1].trim()] : [])));
      out.push(...line.split(/<v(?:\.[^\s>]*)?(?:\s+[^>]*)?>|<\/v>/).filter((part) => part.trim() !== ""));
      continue;
    }
    const line = raw;
    const match = patterns.map((p) => p.exec(line)).find((m) => m);
    if (!match) out.push(line);
    else out.push(...match.slice(1).filter((g): g is string => g !== undefined && g.trim() !== ""));
  }
  return out;
}

/** Time columns hold timestamps (kept as numbers, e.g. "6.0" -> 6): timestamps aside. */
const TIME_COLUMN = /^(start|end|time|time_stamp|timestamp|begin|stop)$/i;

/** Yes/no kind columns: their true/false is the participant's kind, checked in speaker-kinds.test.ts. */
const BOOLEAN_KIND_COLUMN = /^is_(ai|bot|agent)$/i;

/** CSV/TSV: every cell of every data row (header names are column labels, not words). */
function csvPieces(text: string): string[] {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), { skipEmptyLines: true });
  const [header = [], ...rows] = parsed.data;
  return rows.flatMap((row) => row.filter((_, i) => !TIME_COLUMN.test((header[i] ?? "").trim()) && !BOOLEAN_KIND_COLUMN.test((header[i] ?? "").trim())));
}

/** XML formats (Transcriber, ELAN, EXMARaLDA): every text node; attributes are ids, times and settings. */
const XML_FORMATS = new Set(["transcriber", "elan", "exmaralda"]);
const xml = new XMLParser({ preserveOrder: true, trimValues: false, processEntities: true, htmlEntities: true, parseTagValue: false });

function xmlPieces(text: string): string[] {
  const out: string[] = [];
  const walk = (nodes: unknown): void => {
    if (!Array.isArray(nodes)) return;
    for (const node of nodes as Record<string, unknown>[]) {
      for (const [key, value] of Object.entries(node)) {
        if (key === "#text") out.push(String(value));
        else if (key !== ":@") walk(value);
      }
    }
  };
  walk(xml.parse(text));
  return out;
}

/** JSON formats: every string in the input, except these structural values. */
const STRUCTURAL_KEYS = new Set([
  "role",
  "type",
  "id",
  "ts",
  "thread_ts",
  "parent_user_id",
  "user",
  "bot_id",
  "team_id",
  "content_type",
  "status",
  "recipient",
  "parent",
  "children",
  "current_node",
  "conversation_id",
  "tool_call_id",
  "mimetype",
  "filetype",
  "client_msg_id",
  "creator",
  "members",
  "detail",
  "schemaVersion",
  "speaker",
  "addressees",
  "index",
  "kind",
  "subtype",
  "users",
  "name_raw",
  "role_type",
]);

function jsonPieces(value: unknown, key = ""): string[] {
  if (typeof value === "string") return STRUCTURAL_KEYS.has(key) ? [] : [value];
  if (Array.isArray(value)) return value.flatMap((v) => jsonPieces(v, key));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => jsonPieces(v, k));
  return [];
}

/**
 * JSON or JSONL text as a list of values. A JSONL line that is not JSON is left out: importers
 * skip such lines with a warning naming the line (tested in their own tests).
 */
function parseJsonish(text: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    return text
      .split(/\r?\n/)
      .filter((l) => l.trim() !== "")
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as unknown];
        } catch {
          return [];
        }
      });
  }
}

/** A fixture's text, decoded by the encoding its file name states (UTF-8 otherwise); BOMs removed. */
function decodeByName(path: string, bytes: Buffer): string {
  const name = relative(FIXTURES, path);
  const encoding = /utf-?(16|32)(le|be)|windows-125\d/i.exec(name)?.[0]?.toLowerCase();
  if (encoding?.startsWith("utf32") || encoding?.startsWith("utf-32")) {
    // WHATWG decoders have no UTF-32: code points by hand.
    const le = encoding.endsWith("le");
    const points: number[] = [];
    for (let i = 0; i + 4 <= bytes.length; i += 4) points.push(le ? bytes.readUInt32LE(i) : bytes.readUInt32BE(i));
    return String.fromCodePoint(...points).replace(/^\uFEFF/, "");
  }
  if (encoding?.startsWith("windows-1252")) return [...bytes].map((b) => WINDOWS_1252_C1.get(b) ?? String.fromCharCode(b)).join("");
  return new TextDecoder(encoding ?? "utf-8").decode(bytes).replace(/^\uFEFF/, "");
}

/**
 * windows-1252 is ISO-8859-1 except 0x80..0x9F. Spelled out here because Node 20's TextDecoder
 * decodes "windows-1252" as ISO-8859-1 (’ would come out as the control U+0092).
 */
const WINDOWS_1252_C1 = new Map<number, string>(
  [
    ...[
      0x80, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8e, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c,
      0x9e, 0x9f,
    ].entries(),
  ].map(([i, b]) => [b, "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"[i]!]),
);

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await readdir(dir)).sort()) {
    const path = join(dir, e);
    if ((await stat(path)).isDirectory()) out.push(...(await files(path)));
    else out.push(path);
  }
  return out;
}

interface Case {
  format: string;
  path: string;
  importer: Importer;
}

async function cases(): Promise<Case[]> {
  const out: Case[] = [];
  for (const format of (await readdir(FIXTURES)).sort()) {
    const importer = byName.get(format);
    if (!importer) continue;
    if (importer.input === "directory") {
      for (const e of (await readdir(join(FIXTURES, format))).sort()) out.push({ format, path: join(FIXTURES, format, e), importer });
    } else for (const path of await files(join(FIXTURES, format))) out.push({ format, path, importer });
  }
  return out;
}

const all = await cases();

/** The input strings a fixture's import must keep. */
async function piecesOf(c: Case): Promise<string[]> {
  if (c.importer.input === "directory") {
    // Slack export: join/leave events are skipped by design (counted in warnings), and a channel
    // listed in channels.json without a folder has no messages to keep.
    const folders = new Set((await readdir(c.path, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name));
    const out: string[] = [];
    for (const f of await files(c.path)) {
      let values = parseJsonish(await readFile(f, "utf8"));
      values = values.map((v) =>
        Array.isArray(v)
          ? v.filter(
              (m: { subtype?: string; name?: string }) =>
                !/_(join|leave)$/.test(m?.subtype ?? "") && !(/channels\.json$/.test(f) && m?.name && !folders.has(m.name)),
            )
          : v,
      );
      out.push(...values.flatMap((v) => jsonPieces(v)));
    }
    return out;
  }
  if (c.format === "teams-docx" && c.path.endsWith(".docx")) return textPieces(c.format, docxText(await readFile(c.path)).join("\n"));
  if (c.format === "parquet") {
    // Every non-empty cell, as text (numbers as written by String()).
    const rows = await parquetReadObjects({ file: await asyncBufferFromFile(c.path) });
    return rows.flatMap((row) =>
      Object.values(row)
        .filter((v) => v !== null && v !== "")
        .map(String),
    );
  }
  const text = decodeByName(c.path, await readFile(c.path));
  if (c.format === "csv") return csvPieces(text);
  if (MARKUP[c.format]) return textPieces(c.format, text);
  if (XML_FORMATS.has(c.format)) return xmlPieces(text);
  let values = parseJsonish(text.replace(/^\uFEFF/, ""));
  // A failed batch request (response null) holds no speech: its error is reported as a warning.
  if (c.format === "chat-jsonl") values = values.filter((v) => !(v && typeof v === "object" && "response" in v && v.response === null));
  // Messenger writes UTF-8 bytes as Latin-1 escapes: the words to find are the decoded ones.
  if (c.format === "messenger")
    return values.flatMap((v) => jsonPieces(v)).map((p) => (/^[\u0000-\u00ff]*$/.test(p) ? Buffer.from(p, "latin1").toString("utf8") : p));
  return values.flatMap((v) => jsonPieces(v));
}

describe("no input words are dropped by any importer", () => {
  it("covers every importer with at least one fixture", () => {
    const covered = new Set(all.map((c) => c.format));
    expect(importers.map((i) => i.name).filter((n) => !covered.has(n))).toEqual([]);
  });

  it.each(all.map((c) => [`${c.format}: ${relative(FIXTURES, c.path)}`, c] as const))("%s", async (_label, c) => {
    let result: ImportResult;
    try {
      result = await c.importer.parse(c.importer.input === "directory" ? directoryInput(c.path) : fileInput(c.path), {});
    } catch (error) {
      // Fixtures that exist to test errors say so in their name.
      expect(error).toBeInstanceOf(ImportError);
      expect(relative(FIXTURES, c.path)).toMatch(/broken|bad/);
      return;
    }
    const pieces = await piecesOf(c);
    if (!/empty/.test(c.path)) expect(pieces.length).toBeGreaterThan(0);
    assertNothingDropped(pieces, result);
  });

  it("the check can fail: a dropped line is reported", () => {
    const result: ImportResult = {
      sessions: [{ id: "s", participants: [{ id: "a", name: "A", kind: "human" }], turns: [{ id: "t0", index: 0, speaker: "a", text: "kept" }] }],
      codes: [],
      warnings: [],
    };
    expect(() => assertNothingDropped(["kept", "lost words"], result)).toThrow(/lost words/);
    expect(textPieces("slack-paste", "Maria Lopez (Client) 6:35 PM Gives opinion\nNew\nhello")).toEqual(["Maria Lopez", "Client", "Gives opinion", "hello"]);
  });
});
