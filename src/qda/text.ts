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

/**
 * Turns of a plain-text source: a line "Speaker: text" starts a turn and the lines after it
 * continue it; a source where no line looks like that is one turn per paragraph (blank-line
 * separated), with no speaker. `speakers`, when known (a Colloquy export lists them), are the only
 * names that start a turn, so a turn's own "Note: …" line stays inside it.
 */
export function segmentText(text: string, speakers?: ReadonlySet<string>): { turns: TextTurn[]; bySpeaker: boolean } {
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
  const bySpeaker = lines.some((l) => speakerOf(l.text) !== undefined);
  const turns: TextTurn[] = [];
  if (bySpeaker) {
    for (const line of lines) {
      const found = speakerOf(line.text);
      const last = turns[turns.length - 1];
      if (found) {
        const start = line.start + found.offset;
        turns.push({ speaker: found.name, text: found.words, start, end: start + codePoints(found.words), lineStart: line.start });
      } else if (last) {
        last.text += `\n${line.text}`;
        // Trailing blank lines are not part of the turn: its range ends at its last words.
        if (line.text !== "") last.end = line.start + codePoints(line.text);
      }
      // Lines before the first speaker (a title) belong to no turn; codings there are reported.
    }
  } else {
    let current: TextTurn | undefined;
    for (const line of lines) {
      if (line.text.trim() === "") {
        current = undefined;
        continue;
      }
      if (!current) {
        current = { speaker: "", text: line.text, start: line.start, end: line.start + codePoints(line.text), lineStart: line.start };
        turns.push(current);
      } else {
        current.text += `\n${line.text}`;
        current.end = line.start + codePoints(line.text);
      }
    }
  }
  for (const turn of turns) turn.text = turn.text.replace(/\n+$/, "");
  return { turns, bySpeaker };
}
