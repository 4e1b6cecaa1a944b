import type { Session } from "../transcript/schema.js";

/**
 * A session as one REFI-QDA text source, and back. REFI-QDA positions count characters (Unicode
 * code points) from 0, end exclusive, over the source file exactly as stored: with --crlf a line
 * break is two characters, which is how MAXQDA counts them.
 */

/** Where one turn's words sit in the rendered text, in code points. */
export interface TurnSpan {
  turn: string;
  /** First character of the words (after "Speaker: "). */
  start: number;
  /** One past the last character of the words. */
  end: number;
  /** First character of the turn's line, its speaker label included. */
  lineStart: number;
}

/** Number of code points in a string (a surrogate pair counts once). */
export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) i++;
    n++;
  }
  return n;
}

/** "Speaker: text" lines, one turn each; a turn's own line breaks are kept (as `eol`). */
export function renderSession(session: Session, eol: "\n" | "\r\n" = "\n"): { text: string; spans: TurnSpan[] } {
  const names = new Map(session.participants.map((p) => [p.id, p.name]));
  const parts: string[] = [];
  const spans: TurnSpan[] = [];
  let at = 0;
  session.turns.forEach((turn, i) => {
    const label = `${names.get(turn.speaker) ?? turn.speaker}: `;
    const words = eol === "\r\n" ? turn.text.replace(/\r?\n/g, "\r\n") : turn.text;
    const line = (i > 0 ? eol : "") + label + words;
    const lineStart = at + (i > 0 ? eol.length : 0);
    const start = lineStart + codePoints(label);
    at += codePoints(line);
    spans.push({ turn: turn.id, start, end: at, lineStart });
    parts.push(line);
  });
  return { text: parts.join("") + (parts.length ? eol : ""), spans };
}

/** One turn found in a text source. */
export interface TextTurn {
  speaker: string;
  /** The words, line breaks as "\n". */
  text: string;
  /** Code-point range of the words in the source, and of the whole turn from its line start. */
  start: number;
  end: number;
  lineStart: number;
}

/**
 * "Name: words" where Name is short and not a clock time ("10:30 …" is not a speaker). One space
 * (or tab) after the colon belongs to the label; any more are the speaker's own and are kept.
 */
const SPEAKER_LINE = /^([^\s:][^:\t]{0,59}?):(?:[ \t](.*)|())$/s;

/** How a text source was read: the turns found, and what a reader should be told about it. */
export interface SegmentedText {
  turns: TextTurn[];
  /** True when "Name: words" lines start the turns; false for a document, one turn per paragraph. */
  bySpeaker: boolean;
  /** A paragraph is a line (false: a block between blank lines, in hard-wrapped text). */
  byLine: boolean;
  /** In speaker mode, the turns (paragraphs) before the first speaker line: kept, with no speaker. */
  unattributed: number;
  /** In paragraph mode, lines that looked like "Name: words" but were too few to read as speakers. */
  labelLike: number;
}

/** Longest line of hard-wrapped text; a longer line is a paragraph of its own (a word processor's). */
const WRAP = 100;

/**
 * Turns of a plain-text source; no word is ever left out of a turn. A paragraph is a line, as
 * NVivo and MAXQDA write a document's paragraphs, unless every line is short (at most 100
 * characters) and blank lines occur: hard-wrapped text, whose paragraphs are the blocks between
 * blank lines. The source is read as speaker turns only when its "Name: words" lines dominate:
 * more of them than paragraphs that start without one, or at least two names that each start two
 * or more lines (a conversation's speakers recur; a "Note:" line in prose does not make it a
 * transcript) and more than half as many as those paragraphs (a list of records whose "Title:
 * subtitle" lines recur among many other lines is a document). Then a speaker line starts a turn
 * and the lines after it continue it, and each paragraph before the first speaker line (a title,
 * an introduction) is a turn with no speaker. Otherwise each paragraph is a turn with no speaker,
 * label-like lines included as written. `speakers`, when known (a Colloquy export lists them),
 * are the only names that start a turn, so a turn's own "Note: …" line stays inside it; and then
 * any of their lines makes the source speaker turns.
 */
export function segmentText(text: string, speakers?: ReadonlySet<string>): SegmentedText {
  const lines: { text: string; start: number }[] = [];
  let at = 0;
  for (const match of text.matchAll(/([^\r\n]*)(\r\n|\n|\r|$)/g)) {
    if (match[0] === "" && match.index === text.length) break;
    lines.push({ text: match[1], start: at });
    at += codePoints(match[0]);
  }
  const speakerOf = (line: string): { name: string; words: string; offset: number } | undefined => {
    const m = SPEAKER_LINE.exec(line);
    if (!m || /^\d+$/.test(m[1].trim())) return undefined;
    const name = m[1].trim();
    if (speakers && !speakers.has(name)) return undefined;
    const words = m[2] ?? m[3] ?? "";
    return { name, words, offset: codePoints(line) - codePoints(words) };
  };
  const found = lines.map((l) => speakerOf(l.text));
  const labelled = found.filter((f) => f !== undefined);
  const blank = (i: number) => lines[i].text.trim() === "";
  const byLine = !lines.some((_, i) => blank(i)) || lines.some((l) => codePoints(l.text) > WRAP);
  // Paragraphs whose first line names no speaker.
  const unlabelled = lines.filter((_, i) => !blank(i) && (byLine || i === 0 || blank(i - 1)) && !found[i]).length;
  const uses = new Map<string, number>();
  for (const f of labelled) uses.set(f.name, (uses.get(f.name) ?? 0) + 1);
  const recurring = [...uses.values()].filter((n) => n >= 2).length;
  const bySpeaker = labelled.length > 0 && (speakers !== undefined || labelled.length > unlabelled || (recurring >= 2 && 2 * labelled.length > unlabelled));

  const turns: TextTurn[] = [];
  let unattributed = 0;
  let current: TextTurn | undefined;
  lines.forEach((line, i) => {
    const speaker = bySpeaker ? found[i] : undefined;
    if (speaker) {
      const start = line.start + speaker.offset;
      current = { speaker: speaker.name, text: speaker.words, start, end: start + codePoints(speaker.words), lineStart: line.start };
      turns.push(current);
    } else if (current?.speaker) {
      // A speaker's turn runs to the next speaker line, blank lines included; its range ends at its last words.
      current.text += `\n${line.text}`;
      if (line.text !== "") current.end = line.start + codePoints(line.text);
    } else if (line.text.trim() === "") {
      current = undefined;
    } else if (current && !byLine) {
      current.text += `\n${line.text}`;
      current.end = line.start + codePoints(line.text);
    } else {
      // A paragraph with no speaker: the whole source in paragraph mode, what precedes the first speaker otherwise.
      current = { speaker: "", text: line.text, start: line.start, end: line.start + codePoints(line.text), lineStart: line.start };
      turns.push(current);
      if (bySpeaker) unattributed++;
    }
  });
  for (const turn of turns) turn.text = turn.text.replace(/\n+$/, "");
  return { turns, bySpeaker, byLine, unattributed, labelLike: bySpeaker ? 0 : labelled.length };
}
