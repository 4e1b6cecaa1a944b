import { ClockTimeline, parseClock } from "../clock.js";
import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import { looksLikeName } from "../speaker-label.js";
import { ImportError, type ImportedCode, type Importer, type ImportInput, type ImportOptions, type ImportResult } from "../types.js";

/**
 * Slack-paste transcripts: what you get by selecting a Slack channel and pasting it into a text
 * file, the way published human-AI team studies share their data.
 *
 *   Study notes before the first header          -> session.metadata.preamble
 *   Alice Smith (Client)                         header: name and role
 *     6:35 PM                                    human post (leading blanks)
 *   CEO (AI Agent)
 *   APP  6:36 PM                                 bot post: kind "ai"
 *   body lines…
 *   6:37                                         further post, same speaker (continuation)
 *   New                                          Slack's new-messages divider: dropped
 *   <File: plan.md>                              shared file: content kept, turn marked
 *   Bob (Client) 6:40 PM Gives opinion           compact form; trailing label = a code
 *
 * A bot may also post without a role (`CEO` then `APP  6:36 PM`): a name-like line counts as a
 * header only when an APP time line follows it.
 *
 * A `Name (Role)` line is a header only when the next line is a time line (or, in the compact
 * form, the time is on the same line): "Great idea (really)" in a body stays body text.
 */

/** `Name (Role)`; the name may have several words, the role no parentheses. */
const headerPattern = /^\s*(\S(?:.*?\S)?)\s*\(([^()]*)\)\s*$/;
/** `APP  6:36 PM`, `  6:35 PM`, `6:37`, `18:05`: an optional bot marker and a clock time alone on a line. */
const timeLinePattern = /^\s*(?:(APP|BOT)\s+)?(\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp]\.?[Mm]\.?)?)\s*$/;
/** `Name (Role) [APP] 6:35 PM [label]` on one line (AM/PM required so body lines are not mistaken). */
const compactPattern = /^\s*(\S(?:.*?\S)?)\s*\(([^()]*)\)\s+(?:(APP|BOT)\s+)?(\d{1,2}:\d{2}(?::\d{2})?\s*[AaPp]\.?[Mm]\.?)(?:\s+(\S.*?))?\s*$/;
/**
 * Slack writes a header's time line with a bot marker (`APP  6:36 PM`) or indented with AM/PM
 * (`  6:35 PM`); a bare `6:37` is a continuation. Only the former confirms a header, so
 * "Let's do it (today)" followed by a continuation time stays body text.
 */
function confirmsHeader(line: string, time: RegExpExecArray): boolean {
  return time[1] !== undefined || /^\s/.test(line) || /[AaPp]\.?[Mm]\.?\s*$/.test(line);
}
/**
 * In the compact form, what follows the time is a code label ("Gives opinion", "5",
 * "asks-suggestion") when it is short and has no sentence punctuation; otherwise it is the
 * start of the message ("Hi team, we need a logo.") and stays in the turn text.
 */
function looksLikeCodeLabel(text: string): boolean {
  return text.length <= 40 && text.split(/\s+/).length <= 5 && !/[,.!?;:"“”']/.test(text);
}
const dividerPattern = /^\s*New\s*$/;
const filePattern = /^\s*<File(?: Name)?:\s*(.*?)\s*>\s*$/;

interface Segment {
  /** 1-based line of the header or continuation time line. */
  line: number;
  timestamp?: string;
  start?: number;
  bot: boolean;
  body: string[];
}

interface OpenTurn {
  name: string;
  role?: string;
  codeLabel?: string;
  segments: Segment[];
}

/** Parse state fed one line at a time, so a long paste streams through. */
export class SlackPasteParser {
  private readonly preamble: string[] = [];
  private readonly dividerLines: number[] = [];
  private readonly warnings: string[] = [];
  private readonly codes: ImportedCode[] = [];
  private readonly timeline = new ClockTimeline();
  private readonly builder: SessionBuilder;
  /** A possible header waiting for its time line; `botOnly` when it has no (Role) and only `APP  h:mm` may confirm it. */
  private pendingHeader: { name: string; role?: string; text: string; line: number; botOnly: boolean } | undefined;
  private current: OpenTurn | undefined;
  private lineNo = 0;

  constructor(
    private readonly path: string,
    private readonly options: ImportOptions,
  ) {
    this.builder = new SessionBuilder(sessionIdFromPath(path), { source: { file: path, format: "slack-paste" } }, options.agents);
  }

  feed(line: string): void {
    this.lineNo++;
    if (this.pendingHeader) {
      const pending = this.pendingHeader;
      if (dividerPattern.test(line)) {
        this.dividerLines.push(this.lineNo);
        return;
      }
      this.pendingHeader = undefined;
      const time = timeLinePattern.exec(line);
      if (time && confirmsHeader(line, time) && (!pending.botOnly || time[1] !== undefined)) {
        this.openTurn(pending.name, pending.role, pending.line, time[2]!, time[1] !== undefined);
        return;
      }
      // Not confirmed: the candidate was an ordinary body line ("Great idea (really)").
      this.bodyLine(pending.text);
    }
    this.classify(line);
  }

  private classify(line: string): void {
    if (dividerPattern.test(line)) {
      this.dividerLines.push(this.lineNo);
      return;
    }
    const compact = compactPattern.exec(line);
    if (compact) {
      const trailing = compact[5];
      const isLabel = trailing !== undefined && looksLikeCodeLabel(trailing);
      this.openTurn(compact[1]!, compact[2]!, this.lineNo, compact[4]!, compact[3] !== undefined, isLabel ? trailing : undefined);
      // Text after the time that does not look like a code label is the post's first line.
      if (trailing !== undefined && !isLabel) this.bodyLine(trailing);
      return;
    }
    const header = headerPattern.exec(line);
    if (header) {
      this.pendingHeader = { name: header[1]!, role: header[2]!.trim(), text: line, line: this.lineNo, botOnly: false };
      return;
    }
    if (line.length <= 40 && line === line.trim() && looksLikeName(line) && !timeLinePattern.test(line)) {
      // A bot posting without a (Role): only a following `APP  h:mm` line makes this a header.
      this.pendingHeader = { name: line, text: line, line: this.lineNo, botOnly: true };
      return;
    }
    const time = timeLinePattern.exec(line);
    if (time && this.current) {
      this.current.segments.push({ line: this.lineNo, bot: time[1] !== undefined, body: [], ...this.place(time[2]!) });
      return;
    }
    this.bodyLine(line);
  }

  private bodyLine(line: string): void {
    if (this.current) this.current.segments[this.current.segments.length - 1]!.body.push(line);
    else this.preamble.push(line);
  }

  private place(clock: string): { timestamp: string; start?: number } {
    const parsed = parseClock(clock);
    if (!parsed) {
      this.warnings.push(`${this.path}:${this.lineNo}: "${clock}" is not a valid clock time; turn kept without a start time`);
      return { timestamp: clock.trim() };
    }
    return { timestamp: clock.trim(), start: this.timeline.place(parsed) };
  }

  private openTurn(name: string, role: string | undefined, line: number, clock: string, bot: boolean, codeLabel?: string): void {
    this.closeTurn();
    const turn: OpenTurn = { name, role: role?.trim(), segments: [{ line, bot, body: [], ...this.place(clock) }] };
    if (codeLabel !== undefined) turn.codeLabel = codeLabel;
    this.current = turn;
  }

  private closeTurn(): void {
    const turn = this.current;
    if (!turn) return;
    this.current = undefined;
    const bot = turn.segments.some((s) => s.bot);
    const speaker = this.builder.participant(turn.name, { role: turn.role, kind: bot ? "ai" : undefined });
    const groups = this.options.splitContinuations ? turn.segments.map((s) => [s]) : [turn.segments];
    let firstId: string | undefined;
    for (const group of groups) {
      const texts = group.map((s) => trimBlankEdgeLines(s.body).join("\n"));
      const text = texts.join("\n");
      const head = group[0]!;
      const metadata: Record<string, unknown> = { line: head.line };
      if (head.bot) metadata.app = true;
      const files: string[] = [];
      for (const segment of group) {
        for (const l of segment.body) {
          if (!l.includes("<File")) continue;
          const file = filePattern.exec(l)?.[1];
          if (file !== undefined) files.push(file);
        }
      }
      if (files.length > 0) metadata.files = files;
      if (group.length > 1) {
        // Where each further post starts in `text`, and when it was posted: the merge is reversible.
        let offset = texts[0]!.length + 1;
        metadata.continuations = group.slice(1).map((s, i) => {
          const entry = { line: s.line, timestamp: s.timestamp, start: s.start, offset };
          offset += texts[i + 1]!.length + 1;
          return entry;
        });
      }
      if (firstId !== undefined) metadata.continuationOf = firstId;
      if (turn.codeLabel !== undefined && firstId === undefined) metadata.transcriptCode = turn.codeLabel;
      // Edge blank lines were trimmed, so the text's first line is its first non-blank line.
      const firstLine = text.slice(0, (text.indexOf("\n") + 1 || text.length + 1) - 1);
      const id = this.builder.turn(speaker, {
        text,
        start: head.start,
        timestamp: head.timestamp,
        type: files.length > 0 && filePattern.test(firstLine) ? "file" : "message",
        metadata,
      });
      if (firstId === undefined && turn.codeLabel !== undefined) {
        this.codes.push({ session: this.builder.id, turn: id, coder: "human:transcript", label: turn.codeLabel });
      }
      firstId ??= id;
    }
  }

  finish(): ImportResult {
    if (this.pendingHeader) {
      const pending = this.pendingHeader;
      this.pendingHeader = undefined;
      this.bodyLine(pending.text);
    }
    this.closeTurn();
    if (this.builder.turnCount === 0) {
      throw new ImportError({
        file: this.path,
        line: 1,
        problem: "no Slack speaker header found",
        expected: "a `Name (Role)` line followed by a time line such as `APP  6:35 PM` or `  6:35 PM` (or the compact `Name (Role) 6:35 PM`)",
      });
    }
    const metadata = this.builder.metadata;
    const preamble = trimBlankEdgeLines(this.preamble).join("\n");
    if (preamble !== "") metadata.preamble = preamble;
    if (this.dividerLines.length > 0) metadata.slackDividerLines = this.dividerLines;
    return { sessions: [this.builder.build()], codes: this.codes, warnings: this.warnings };
  }
}

/** Drop whole blank lines at the start and end of a body (they separate posts); never touch the inside. */
export function trimBlankEdgeLines(lines: readonly string[]): string[] {
  let from = 0;
  let to = lines.length;
  while (from < to && lines[from]!.trim() === "") from++;
  while (to > from && lines[to - 1]!.trim() === "") to--;
  return lines.slice(from, to);
}

/** Parse a whole Slack paste held in memory (tests, library use). */
export function parseSlackPaste(path: string, text: string, options: ImportOptions = {}): ImportResult {
  const parser = new SlackPasteParser(path, options);
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) parser.feed(line);
  return parser.finish();
}

export const slackPasteImporter: Importer = {
  name: "slack-paste",
  description: "Slack channel pasted as text: `Name (Role)` headers, `APP  6:35 PM` / `  6:35 PM` time lines",
  extensions: [".md", ".txt", ".markdown"],
  input: "file",
  detect(path, head) {
    const lines = head.split(/\r?\n/);
    let confirmed = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (compactPattern.test(line)) confirmed++;
      else if (headerPattern.test(line) && i + 1 < lines.length) {
        const time = timeLinePattern.exec(lines[i + 1]!);
        if (time && confirmsHeader(lines[i + 1]!, time)) confirmed++;
      }
    }
    if (confirmed === 0) return 0;
    const textLike = /\.(md|markdown|txt)$/i.test(path);
    return Math.min(0.95, 0.6 + 0.1 * confirmed + (textLike ? 0.05 : 0));
  },
  async parse(input: ImportInput, options: ImportOptions) {
    const parser = new SlackPasteParser(input.path, options);
    for await (const line of input.lines()) parser.feed(line);
    return parser.finish();
  },
};
