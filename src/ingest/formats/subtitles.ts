import { parseOffset } from "../clock.js";
import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import { looksLikeName } from "../speaker-label.js";
import { ImportError, type Importer, type ImportInput, type ImportOptions, type ImportResult } from "../types.js";

/**
 * WebVTT and SRT captions (meeting recordings). Speakers come from Teams-style voice tags
 * (`<v Alice Smith>Hello</v>`) or Zoom-style prefixes (`Alice Smith: Hello`). Each cue is a turn
 * with start/end in seconds and its start time verbatim as `timestamp`; with --merge-cues,
 * consecutive cues of one speaker become one turn (texts joined with "\n", the cue boundaries
 * kept in `metadata.cues`).
 *
 * Text is kept as written except caption markup: voice tags, `<c>`/`<i>`/`<b>`/`<u>` spans and
 * inline `<00:00:01.000>` timestamps are removed; when anything beyond the voice tag is removed,
 * the raw payload is kept in `metadata.raw`.
 */

const timingPattern = /^\s*(\S+)\s+-->\s+(\S+)(?:\s+(.*))?$/;
const voicePattern = /^<v(?:\.[^\s>]*)?\s+([^>]*)>/;
const UNKNOWN = "Unknown speaker";

interface Cue {
  id?: string;
  line: number;
  startText: string;
  start: number;
  end: number;
  speaker?: string;
  text: string;
  raw?: string;
}

/** Remove caption markup; reports whether anything besides voice tags was removed. */
function stripMarkup(payload: string): { text: string; speaker?: string; lossy: boolean } {
  let text = payload;
  let speaker: string | undefined;
  const voice = voicePattern.exec(text);
  if (voice) {
    // An empty voice tag (`<v >`) names nobody: the cue is unlabelled.
    speaker = voice[1]!.trim() || undefined;
    text = text.slice(voice[0].length);
  }
  text = text.replace(/<\/v>/g, "");
  const cleaned = text.replace(/<\/?(?:c|i|b|u|lang|ruby|rt)(?:[.\s][^>]*)?>|<\d{1,2}:\d{2}(?::\d{2})?[.,]\d{3}>/g, "");
  return { text: cleaned, ...(speaker !== undefined ? { speaker } : {}), lossy: cleaned !== text };
}

function parseCues(path: string, text: string, flavour: "vtt" | "srt"): { cues: Cue[]; notes: string[]; header: string[] } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const cues: Cue[] = [];
  const notes: string[] = [];
  const header: string[] = [];
  let i = 0;
  if (flavour === "vtt") {
    if (!/^WEBVTT(?:[ \t].*)?$/.test(lines[0] ?? "")) {
      throw new ImportError({ file: path, line: 1, problem: `first line is ${JSON.stringify((lines[0] ?? "").slice(0, 40))}`, expected: '"WEBVTT" (a WebVTT file), or --format srt / plain' });
    }
    // Header block: WEBVTT line plus any metadata lines up to the first blank line.
    while (i < lines.length && lines[i]!.trim() !== "") header.push(lines[i++]!);
  }
  while (i < lines.length) {
    if (lines[i]!.trim() === "") {
      i++;
      continue;
    }
    const blockStart = i;
    const block: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== "") block.push(lines[i++]!);
    if (flavour === "vtt" && /^(NOTE|STYLE|REGION)(?:\s|$)/.test(block[0]!)) {
      if (block[0]!.startsWith("NOTE")) notes.push(block.join("\n"));
      continue;
    }
    let t = 0;
    let id: string | undefined;
    if (!block[0]!.includes("-->")) {
      id = block[0]!.trim();
      t = 1;
    }
    const timing = block[t] !== undefined ? timingPattern.exec(block[t]!) : null;
    const start = timing ? parseOffset(timing[1]!) : undefined;
    const end = timing ? parseOffset(timing[2]!) : undefined;
    if (!timing || start === undefined || end === undefined) {
      throw new ImportError({
        file: path,
        line: blockStart + t + 1,
        problem: `${JSON.stringify((block[t] ?? block[0]!).slice(0, 60))} is not a cue timing line`,
        expected: flavour === "vtt" ? "a cue timing line like `00:00:01.000 --> 00:00:04.000`" : "a cue number, then a timing line like `00:00:01,000 --> 00:00:04,000`",
      });
    }
    // Several voices in one cue: each line starting with a voice tag begins its own cue.
    const payload = block.slice(t + 1);
    let group: string[] = [];
    const flush = (): void => {
      if (group.length === 0) return;
      const raw = group.join("\n");
      const stripped = stripMarkup(raw);
      let speaker = stripped.speaker;
      let body = stripped.text;
      if (speaker === undefined) {
        const zoom = /^([^:]{1,40}?):\s(.*)$/s.exec(body);
        if (zoom && looksLikeName(zoom[1]!)) {
          speaker = zoom[1]!.trim();
          body = zoom[2]!;
        }
      }
      const cue: Cue = { line: blockStart + 1, startText: timing[1]!, start, end, text: body };
      if (id !== undefined) cue.id = id;
      if (speaker !== undefined) cue.speaker = speaker;
      if (stripped.lossy) cue.raw = raw;
      cues.push(cue);
      group = [];
    };
    for (const line of payload) {
      if (voicePattern.test(line) && group.length > 0) flush();
      group.push(line);
    }
    if (group.length === 0) group.push("");
    flush();
  }
  return { cues, notes, header };
}

export function parseSubtitles(path: string, text: string, flavour: "vtt" | "srt", options: ImportOptions = {}): ImportResult {
  const { cues, notes, header } = parseCues(path, text, flavour);
  if (cues.length === 0) throw new ImportError({ file: path, line: 1, problem: "no cues found", expected: "at least one cue (timing line followed by text)" });
  const metadata: Record<string, unknown> = { source: { file: path, format: flavour } };
  if (header.length > 1) metadata.vttHeader = header.slice(1).join("\n");
  if (notes.length > 0) metadata.notes = notes;
  const builder = new SessionBuilder(sessionIdFromPath(path), metadata, options.agents);
  const warnings: string[] = [];
  const unlabelled = cues.filter((c) => c.speaker === undefined).length;
  if (unlabelled > 0) warnings.push(`${path}: ${unlabelled} cue(s) name no speaker; attributed to "${UNKNOWN}"`);
  // Group consecutive cues of one speaker when merging; otherwise one cue per turn.
  const groups: Cue[][] = [];
  for (const cue of cues) {
    const last = groups[groups.length - 1];
    if (options.mergeCues && last && (last[0]!.speaker ?? UNKNOWN) === (cue.speaker ?? UNKNOWN)) last.push(cue);
    else groups.push([cue]);
  }
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
