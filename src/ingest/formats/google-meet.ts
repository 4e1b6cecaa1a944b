import { parseOffset } from "../clock.js";
import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import { looksLikeName } from "../speaker-label.js";
import { ImportError, type Importer, type ImportInput, type ImportOptions, type ImportResult } from "../types.js";

const EXPECTED =
  'a Google Meet transcript: a title line, "Attendees" and their names, "Transcript", then `00:00:00` time lines with `Name: text` lines (or `Name`, `00:00:00`, text)';
/** Meet's time line: the offset into the meeting, alone on its line. */
const STAMP = /^\s*(\d{1,2}:\d{2}:\d{2})\s*$/;
const SAID = /^([^:]{1,60}?):(?:\s+(.*))?$/;
/** The title Meet gives the document ("Weekly sync (2024-03-05 10:02 GMT+1) - Transcript") and its section headings. */
const HEADING = /^(?:Attendees|Transcript|.+ - Transcript)$/;
const FOOTER = /^Meeting ended after \d{1,2}:\d{2}:\d{2}/;

/**
 * Google Meet transcripts, as Meet saves them to Google Docs and users download them as text:
 * a title line, "Attendees" with the names (comma-separated), "Transcript" (and Meet's note that
 * the transcript was computer generated), then blocks that start with a time line `00:05:00`:
 *   older   `Name: text` lines under each time line (a line without a name continues the turn)
 *   newer   `Name`, then the time line, then the words (one or more lines)
 * A time line dates the turn that follows it; the other turns of its block stay untimed (Meet
 * stamps blocks, not turns). When the Attendees list is there, only attendees (and speakers the
 * newer headers name) start a `Name: text` turn, so "Note: ..." inside an answer stays words;
 * without it a label must look like a name. Everything before the first time line is kept in
 * session metadata `preamble` (the title also as the session title, the names as `attendees`);
 * "Meeting ended after 01:02:03" and the lines after it go to metadata `footer`. Words under a time line before any
 * speaker are an error naming the line: their speaker is unknown.
 */
export function parseGoogleMeet(path: string, text: string, options: ImportOptions = {}): ImportResult {
  const lines = text.split(/\r\n|\n|\r/);
  const builder = new SessionBuilder(sessionIdFromPath(path), { source: { file: path, format: "google-meet" } }, options.agents);
  const warnings: string[] = [];
  /** Index of the first non-blank line after line i (lines.length when none). */
  const nextLine = (i: number): number => {
    let k = i + 1;
    while (k < lines.length && lines[k]!.trim() === "") k++;
    return k;
  };
  const isHeader = (i: number): boolean => {
    const line = lines[i]!.trim();
    const next = lines[nextLine(i)];
    return !STAMP.test(line) && !HEADING.test(line) && !FOOTER.test(line) && looksLikeName(line) && next !== undefined && STAMP.test(next);
  };
  const firstBody = lines.findIndex((l, i) => STAMP.test(l) || (l.trim() !== "" && isHeader(i)));
  if (firstBody < 0) throw new ImportError({ file: path, line: 1, problem: "no `00:00:00` time line found", expected: EXPECTED });
  // Newer files start with a name header; in older ones a short line before a time line is words.
  const newer = isHeader(firstBody);
  const preamble = lines.slice(0, firstBody).filter((l) => l.trim() !== "");
  const attendees = attendeeNames(preamble);
  if (preamble.length > 0) builder.metadata.preamble = preamble.join("\n");
  if (attendees.length > 0) builder.metadata.attendees = attendees;
  const speakers = new Set(attendees);

  let current: { speaker: string; text: string[]; start?: number; line: number } | undefined;
  let stamp: number | undefined;
  const footer: string[] = [];
  const flush = () => {
    // A header with no words under it (the speaker said nothing transcribable) is no turn; its name stays a participant.
    if (current && current.text.join("").trim() !== "")
      builder.turn(current.speaker, { text: current.text.join("\n").trim(), start: current.start, metadata: { line: current.line } });
    current = undefined;
  };
  const open = (name: string, line: number, first?: string) => {
    flush();
    speakers.add(name);
    current = { speaker: builder.participant(name), text: first ? [first] : [], start: stamp, line };
    stamp = undefined;
  };
  for (let i = firstBody; i < lines.length; i++) {
    const line = lines[i]!.replace(/\s+$/, "");
    if (line.trim() === "") continue;
    const time = STAMP.exec(line);
    if (time) {
      stamp = parseOffset(time[1]!);
      continue;
    }
    if (footer.length > 0 || FOOTER.test(line.trim())) {
      flush();
      footer.push(line.trim());
      continue;
    }
    if (newer && isHeader(i)) {
      // Newer shape: the name, then the time line, then the words.
      const at = nextLine(i);
      stamp = parseOffset(STAMP.exec(lines[at]!)![1]!);
      open(line.trim(), i + 1);
      i = at;
      continue;
    }
    // In the newer shape only name headers start turns: `Today: the export.` is words.
    const said = newer ? null : SAID.exec(line.trim());
    const name = said?.[1]?.trim();
    if (said && name && (speakers.has(name) || (attendees.length === 0 && looksLikeName(name)))) {
      open(name, i + 1, said[2]);
      continue;
    }
    if (!current) throw new ImportError({ file: path, line: i + 1, problem: `words before any speaker: ${JSON.stringify(line.trim())}`, expected: EXPECTED });
    if (said && name && looksLikeName(name))
      warnings.push(`${path}:${i + 1}: "${name}" is not in the Attendees list; the line is kept as words of the turn before`);
    current.text.push(line);
  }
  flush();
  if (footer.length > 0) builder.metadata.footer = footer.join("\n");
  if (builder.turnCount === 0) throw new ImportError({ file: path, line: firstBody + 1, problem: "no speaker found after the time line", expected: EXPECTED });
  const title = preamble[0]?.trim();
  return { sessions: [builder.build(title && !/^(Attendees|Transcript)$/.test(title) ? title : undefined)], codes: [], warnings };
}

/** The names under "Attendees" (up to "Transcript"), comma-separated or one a line. */
function attendeeNames(preamble: readonly string[]): string[] {
  const from = preamble.findIndex((l) => l.trim() === "Attendees");
  if (from < 0) return [];
  const to = preamble.findIndex((l, i) => i > from && l.trim() === "Transcript");
  return preamble
    .slice(from + 1, to < 0 ? undefined : to)
    .flatMap((l) => l.split(","))
    .map((n) => n.trim())
    .filter((n) => n !== "");
}

export const googleMeetImporter: Importer = {
  name: "google-meet",
  description: "Google Meet transcript saved from Google Docs as .txt (Attendees, Transcript, 00:00:00 blocks)",
  extensions: [".txt"],
  input: "file",
  detect(_path, head) {
    const lines = head.split(/\r?\n/).map((l) => l.trim());
    const stamps = lines.filter((l) => STAMP.test(l)).length;
    const headings = lines.slice(0, 40).filter((l) => HEADING.test(l)).length;
    return stamps >= 1 && headings >= 1 ? 0.95 : 0;
  },
  async parse(input: ImportInput, options: ImportOptions) {
    return parseGoogleMeet(input.path, await input.readText(), options);
  },
};
