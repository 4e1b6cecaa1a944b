import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import { looksLikeName } from "../speaker-label.js";
import { plainCueText, splitVoices } from "./caption-text.js";
import { trimBlankEdgeLines } from "./slack-paste.js";
import { ImportError, type Importer, type ImportInput, type ImportOptions, type ImportResult } from "../types.js";

/**
 * WebVTT and SRT captions (meeting recordings). Speakers come from Teams-style voice tags
 * (`<v Alice Smith>Hello</v>`) or Zoom-style prefixes (`Alice Smith: Hello`). Each cue is a turn
 * with start/end in seconds and its start time verbatim as `timestamp`; with --merge-cues,
 * consecutive cues of one speaker become one turn (texts joined with "\n", the cue boundaries
 * kept in `metadata.cues`).
 *
 * Cue text is kept as written except caption markup and character references (caption-text.ts);
 * whenever that changed the text, the cue as written is kept in `metadata.raw`.
 *
 * Blocks follow the WebVTT parser (what browsers do), for SRT too:
 *  - a cue ends at an empty line, or where a line that is a timing line starts the next cue
 *    (Teams transcripts copied out of Word have no blank lines); a cue number alone on the line
 *    before such a timing line belongs to the next cue. A line of spaces is not empty: it is
 *    cue text (YouTube's automatic captions put one after every timing line), and blank edge
 *    lines of a cue are trimmed;
 *  - "\r\n", "\n" and a lone "\r" end lines;
 *  - a block that is not a cue (its timing line is broken, or it has none) is skipped with a
 *    warning naming its line; its text is kept in `metadata.skippedBlocks`. Only a file in which
 *    no cue can be read is refused;
 *  - timings: `00:01:02.500`, `01:02.500`, `00:01:02,500` (SRT) and Teams' `0:0:2.90` (fields
 *    unpadded; a short fraction there counts milliseconds, 2.090 s, as `0:0:6.90 --> 0:0:6.500`
 *    shows).
 *
 * A `Name:` prefix names the speaker only on the first line of a cue (or of a voice span), when
 * the label reads as a name (lower case and a "(she/her)"-style suffix allowed) and either recurs
 * as a label, is listed in --agents, or the file labels nearly all of its cues (the Zoom pattern);
 * otherwise, as for "Note: the room is booked", it stays text, with a warning naming its line.
 */

const TIME = String.raw`(?:\d+:)?\d{1,2}:\d{1,2}(?:[.,]\d{1,3})?`;
const timingPattern = new RegExp(String.raw`^\s*(${TIME})[ \t]*-->[ \t]*(${TIME})(?:[ \t]+(.*?))?\s*$`);
const labelPattern = /^([^:\n]{1,60}?):(?:[ \t]+|$)/;
const UNKNOWN = "Unknown speaker";
/** Share of a file's other cues that must carry a recurring label before a one-off label is believed. */
const LABELLED_FILE = 0.9;

interface Cue {
  id?: string;
  /** Line of the cue's block (its number or timing line). */
  line: number;
  /** Line of its first words (for warnings about them). */
  textLine: number;
  startText: string;
  start: number;
  end: number;
  speaker?: string;
  /** A `Name:` prefix not yet accepted or rejected (see resolveLabels). */
  label?: { name: string; rest: string };
  text: string;
  raw?: string;
}

/**
 * Cue times: "00:01:02.500", "01:02.500", "00:01:02,500", Teams' unpadded "0:0:2.90" (= 2.090 s).
 * Seconds or minutes past 59 ("00:00:60.000", written by tools that count seconds on) overflow into
 * the next field, as players read them (see `overflows`).
 */
export function parseCueTime(text: string): number | undefined {
  const m = /^(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?$/.exec(text.trim());
  if (!m) return undefined;
  const [, h, min, sec, frac] = m;
  const unpadded = [h, min, sec].some((f) => f !== undefined && f.length === 1);
  const fraction = frac === undefined ? 0 : unpadded ? Number(frac) / 1000 : Number(frac.padEnd(3, "0")) / 1000;
  return Number(h ?? 0) * 3600 + Number(min) * 60 + Number(sec) + fraction;
}

/** A time with a seconds or minutes field past 59. */
function overflows(text: string): boolean {
  const fields = text.trim().split(/[.,]/)[0]!.split(":");
  return fields.slice(-2).some((f, i, all) => Number(f) > 59 && (i === all.length - 1 || fields.length === 3));
}

/** WebVTT cue settings after the end time: `align:start position:10%`, each a name:value pair. */
const CUE_SETTINGS = /^(?:[a-z]+:\S+[ \t]*)*$/;

interface Timing {
  startText: string;
  start: number;
  end: number;
  /** Words written on the timing line after the end time (not cue settings): the cue's first line. */
  text?: string;
  overflow?: boolean;
}

function timingOf(line: string | undefined): Timing | undefined {
  const m = line === undefined ? null : timingPattern.exec(line);
  if (!m) return undefined;
  const start = parseCueTime(m[1]!);
  const end = parseCueTime(m[2]!);
  if (start === undefined || end === undefined) return undefined;
  const timing: Timing = { startText: m[1]!, start, end };
  if (m[3] !== undefined && !CUE_SETTINGS.test(m[3])) timing.text = m[3];
  if (overflows(m[1]!) || overflows(m[2]!)) timing.overflow = true;
  return timing;
}

/** A caption `Name:` label: 1-4 words of letters/digits (any case), optionally "(she/her)" or "(Host)" after. */
function captionLabel(label: string): boolean {
  const core = label.replace(/\s*\([^()]{1,30}\)\s*$/, "").trim();
  if (core === "" || core.length > 40 || /^\d+$/.test(core)) return false;
  const words = core.split(/\s+/);
  return words.length <= 4 && words.every((w) => /^[\p{L}\p{N}][\p{L}\p{N}'’.-]*$/u.test(w));
}

/** One cue's text lines into cues: one per voice span, markup removed, a `Name:` prefix noted. */
function cuesOf(payload: string[], base: Omit<Cue, "text" | "speaker" | "label" | "raw">): Cue[] {
  return splitVoices(trimBlankEdgeLines(payload).join("\n")).map((segment) => {
    const plain = plainCueText(segment.text);
    const cue: Cue = { ...base, text: plain.trim() };
    if (segment.speaker !== undefined) cue.speaker = segment.speaker;
    else {
      const m = labelPattern.exec(cue.text);
      if (m && captionLabel(m[1]!)) cue.label = { name: m[1]!.trim(), rest: cue.text.slice(m[0].length) };
    }
    // The cue as written, whenever more than its voice tag and edge spaces was changed.
    if (plain !== segment.text) cue.raw = segment.source.trim();
    return cue;
  });
}

interface Parsed {
  cues: Cue[];
  notes: string[];
  header: string[];
  skipped: { line: number; text: string }[];
  warnings: string[];
  /** Cues whose times count 60 or more seconds (or minutes) in a field. */
  overflows: number;
}

function parseCues(path: string, text: string, flavour: "vtt" | "srt"): Parsed {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  const out: Parsed = { cues: [], notes: [], header: [], skipped: [], warnings: [], overflows: 0 };
  let i = 0;
  if (flavour === "vtt") {
    if (!/^WEBVTT(?:[ \t].*)?$/.test(lines[0] ?? "")) {
      throw new ImportError({
        file: path,
        line: 1,
        problem: `first line is ${JSON.stringify((lines[0] ?? "").slice(0, 40))}`,
        expected: '"WEBVTT" (a WebVTT file), or --format srt / plain',
      });
    }
    // Header block: WEBVTT line plus any metadata lines up to the first blank line.
    while (i < lines.length && lines[i]!.trim() !== "" && !(i > 0 && timingOf(lines[i]))) out.header.push(lines[i++]!);
  }
  /** Does line `j` start a cue: a timing line, or a cue number right before one? */
  const startsCue = (j: number): boolean => timingOf(lines[j]) !== undefined || (/^\s*\d+\s*$/.test(lines[j]!) && timingOf(lines[j + 1]) !== undefined);
  let firstBad: { line: number; text: string } | undefined;
  while (i < lines.length) {
    if (lines[i]!.trim() === "") {
      i++;
      continue;
    }
    const blockStart = i;
    if (flavour === "vtt" && /^(NOTE|STYLE|REGION)(?:\s|$)/.test(lines[i]!)) {
      const block: string[] = [];
      while (i < lines.length && lines[i] !== "") block.push(lines[i++]!);
      if (block[0]!.startsWith("NOTE")) out.notes.push(block.join("\n"));
      continue;
    }
    let id: string | undefined;
    let timing = timingOf(lines[i]);
    if (!timing && timingOf(lines[i + 1])) {
      id = lines[i]!.trim();
      timing = timingOf(lines[++i]);
    }
    if (!timing) {
      // Not a cue: skip to the next empty line or the next cue, keeping its words.
      const block: string[] = [];
      do block.push(lines[i++]!);
      while (i < lines.length && lines[i] !== "" && !startsCue(i));
      const at = /-->/.test(block[0]!) || block.length === 1 ? 0 : 1;
      const bad = { line: blockStart + 1, text: block.join("\n") };
      firstBad ??= { line: blockStart + at + 1, text: block[at] ?? block[0]! };
      out.skipped.push(bad);
      out.warnings.push(
        `${path}:${bad.line}: skipped a block that is not a cue (${JSON.stringify(block[at]!.slice(0, 60))} is not a timing line like \`00:00:01${flavour === "srt" ? "," : "."}000 --> 00:00:04${flavour === "srt" ? "," : "."}000\`); its text is kept in the session metadata (skippedBlocks)`,
      );
      continue;
    }
    // The first non-empty line after the timing (a scan, not a slice: a slice per cue is quadratic).
    let firstText = i + 1;
    while (firstText < lines.length && lines[firstText]!.trim() === "") firstText++;
    const textLine = firstText < lines.length ? firstText + 1 : i + 1;
    i++;
    const payload: string[] = timing.text !== undefined ? [timing.text] : [];
    if (timing.overflow) out.overflows++;
    while (i < lines.length && lines[i] !== "" && !startsCue(i)) {
      if (/-->/.test(lines[i]!))
        out.warnings.push(`${path}:${i + 1}: ${JSON.stringify(lines[i]!.slice(0, 60))} looks like a timing line but is not one; kept as text of the cue above`);
      payload.push(lines[i++]!);
    }
    const base = { line: blockStart + 1, textLine, startText: timing.startText, start: timing.start, end: timing.end, ...(id !== undefined ? { id } : {}) };
    out.cues.push(...cuesOf(payload, base));
  }
  if (out.cues.length === 0 && firstBad) {
    throw new ImportError({
      file: path,
      line: firstBad.line,
      problem: `${JSON.stringify(firstBad.text.slice(0, 60))} is not a cue timing line, and no cue of the file could be read`,
      expected:
        flavour === "vtt" ? "a cue timing line like `00:00:01.000 --> 00:00:04.000`" : "a cue number, then a timing line like `00:00:01,000 --> 00:00:04,000`",
    });
  }
  return out;
}

/**
 * Decide which `Name:` prefixes name speakers (see the module comment). A rejected prefix stays
 * in the text, with a warning naming its line.
 */
function resolveLabels(path: string, cues: Cue[], agents: readonly string[], warnings: string[]): void {
  const counts = new Map<string, number>();
  for (const c of cues) if (c.label) counts.set(c.label.name, (counts.get(c.label.name) ?? 0) + 1);
  const known = new Set(agents.map((a) => a.trim().toLowerCase()));
  const recurring = new Set([...counts].filter(([, n]) => n >= 2).map(([name]) => name));
  const labelled = cues.filter((c) => c.speaker !== undefined || (c.label && recurring.has(c.label.name))).length;
  for (const cue of cues) {
    const label = cue.label;
    if (!label) continue;
    delete cue.label;
    const others = cues.length - 1;
    const accepted =
      recurring.has(label.name) ||
      known.has(label.name.toLowerCase()) ||
      (recurring.size === 0 && looksLikeName(label.name)) ||
      (others > 0 && labelled / others >= LABELLED_FILE);
    if (accepted) {
      cue.speaker = label.name;
      cue.text = label.rest;
    } else {
      warnings.push(`${path}:${cue.textLine}: "${label.name}:" looks like a speaker label but starts no other cue; kept as text`);
    }
  }
}

export function parseSubtitles(path: string, text: string, flavour: "vtt" | "srt", options: ImportOptions = {}): ImportResult {
  const { cues, notes, header, skipped, warnings, overflows } = parseCues(path, text, flavour);
  if (cues.length === 0) throw new ImportError({ file: path, line: 1, problem: "no cues found", expected: "at least one cue (timing line followed by text)" });
  if (overflows > 0)
    warnings.push(
      `${path}: ${overflows} cue timing(s) count 60 or more seconds or minutes in a field (e.g. 00:00:60.000); read as running into the next minute`,
    );
  resolveLabels(path, cues, options.agents ?? [], warnings);
  const metadata: Record<string, unknown> = { source: { file: path, format: flavour } };
  if (header.length > 1) metadata.vttHeader = header.slice(1).join("\n");
  if (notes.length > 0) metadata.notes = notes;
  if (skipped.length > 0) metadata.skippedBlocks = skipped;
  const builder = new SessionBuilder(sessionIdFromPath(path), metadata, options.agents);
  const unlabelled = cues.filter((c) => c.speaker === undefined).length;
  if (unlabelled > 0) warnings.push(`${path}: ${unlabelled} cue(s) name no speaker; attributed to "${UNKNOWN}"`);
  // Group consecutive cues of one speaker when merging; otherwise one cue per turn.
  const groups: Cue[][] = [];
  for (const cue of cues) {
    const last = groups[groups.length - 1];
    if (options.mergeCues && last && (last[0]!.speaker ?? UNKNOWN) === (cue.speaker ?? UNKNOWN)) last.push(cue);
    else groups.push([cue]);
  }
  // Captions cut one speaker's sentence into many cues: say how to join them, since each cue is a turn.
  const continuing = cues.filter((c, i) => i > 0 && c.speaker !== undefined && c.speaker === cues[i - 1]!.speaker).length;
  if (!options.mergeCues && continuing > 0)
    warnings.push(
      `${path}: ${continuing} cue(s) continue the previous cue's speaker; each is a turn (pass --merge-cues to join consecutive cues of one speaker)`,
    );
  for (const group of groups) {
    const first = group[0]!;
    const speaker = builder.participant(first.speaker ?? UNKNOWN);
    const turnMeta: Record<string, unknown> = { line: first.line };
    if (group.length === 1) {
      if (first.id !== undefined) turnMeta.cue = first.id;
      if (first.raw !== undefined) turnMeta.raw = first.raw;
    } else {
      let offset = 0;
      turnMeta.cues = group.map((c) => {
        const entry: Record<string, unknown> = { start: c.start, end: c.end, offset, line: c.line };
        if (c.id !== undefined) entry.id = c.id;
        if (c.raw !== undefined) entry.raw = c.raw;
        offset += c.text.length + 1;
        return entry;
      });
    }
    builder.turn(speaker, {
      text: group.map((c) => c.text).join("\n"),
      start: first.start,
      end: Math.max(...group.map((c) => c.end)),
      timestamp: first.startText,
      metadata: turnMeta,
    });
  }
  return { sessions: [builder.build()], codes: [], warnings };
}

export const vttImporter: Importer = {
  name: "vtt",
  description: "WebVTT captions (Teams <v Name> voice tags, Zoom `Name:` prefixes); --merge-cues",
  extensions: [".vtt"],
  input: "file",
  detect(path, head) {
    if (/^(\uFEFF)?WEBVTT/.test(head)) return 0.98;
    return /\.vtt$/i.test(path) ? 0.6 : 0;
  },
  async parse(input: ImportInput, options: ImportOptions) {
    return parseSubtitles(input.path, await input.readText(), "vtt", options);
  },
};

export const srtImporter: Importer = {
  name: "srt",
  description: "SRT subtitles (numbered cues, `00:00:01,000 --> 00:00:04,000`, optional `Name:` prefixes)",
  extensions: [".srt"],
  input: "file",
  detect(path, head) {
    const looks = /^\s*\d+\s*\r?\n\s*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}\s+-->\s+\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}/.test(head.replace(/^\uFEFF/, ""));
    if (looks) return /\.srt$/i.test(path) ? 0.97 : 0.9;
    return /\.srt$/i.test(path) ? 0.6 : 0;
  },
  async parse(input: ImportInput, options: ImportOptions) {
    return parseSubtitles(input.path, await input.readText(), "srt", options);
  },
};

/** A YouTube .sbv timing line: `0:00:01.599,0:00:04.160` (start and end, no arrow). */
const sbvTiming = /^(\s*\d{1,2}:\d{2}:\d{2}\.\d{1,3}),(\d{1,2}:\d{2}:\d{2}\.\d{1,3}\s*)$/;

/**
 * YouTube's .sbv captions: cues of a `start,end` timing line and text lines, separated by blank
 * lines, no numbers. Read as SRT once each timing line is written with an arrow (line for line,
 * so warnings name the file's own lines): `Name:` prefixes, --merge-cues and the rest as there.
 * YouTube's `>>` speaker-change marks stay in the text.
 */
export const sbvImporter: Importer = {
  name: "sbv",
  description: "YouTube .sbv captions (`0:00:01.599,0:00:04.160` timing lines, optional `Name:` prefixes); --merge-cues",
  extensions: [".sbv"],
  input: "file",
  detect(path, head) {
    const first = head
      .replace(/^\uFEFF/, "")
      .split("\n")
      .find((l) => l.trim() !== "");
    if (first !== undefined && sbvTiming.test(first)) return /\.sbv$/i.test(path) ? 0.97 : 0.9;
    return /\.sbv$/i.test(path) ? 0.6 : 0;
  },
  async parse(input: ImportInput, options: ImportOptions) {
    const lines = (await input.readText()).split(/\r\n|\r|\n/).map((line) => line.replace(sbvTiming, "$1 --> $2"));
    const result = parseSubtitles(input.path, lines.join("\n"), "srt", options);
    for (const session of result.sessions) session.metadata = { ...session.metadata, source: { file: input.path, format: "sbv" } };
    return result;
  },
};
