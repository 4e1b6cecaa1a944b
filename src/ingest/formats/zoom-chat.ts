import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import { ImportError, type Importer, type ImportResult } from "../types.js";

/**
 * Zoom meeting chat saved as text (`meeting_saved_chat.txt`, `chat.txt`), in the shapes Zoom has written:
 *   `09:15:32\t From  Alice Smith : Hello everyone`                 (older clients: text on the line)
 *   `10:01:35 From Alice Smith to Everyone:` + `\tHello everyone`   (newer: text on the next, indented, lines)
 *   `10:01:35 Alice Smith:\tHello everyone` (or a tab after the time) (recordings' chat files: no "From", a tab before the text)
 * with `to Everyone`, `to Bob(Direct Message)`, `to Bob(privately)` or `to Everyone (in Waiting Room)`
 * naming the recipient (kept in turn metadata `to`; a private message is flagged `private`).
 * Lines until the next header belong to the message (multi-line messages, "Replying to …" quotes
 * and "Reacted to … with 👍" lines are kept verbatim). Times are the local clock time of the
 * meeting: `timestamp` keeps it; `start` counts seconds from the first message, across midnight.
 */
const HEADER = /^(\d{1,2}:\d{2}:\d{2})\s+From\s+(.+?)\s*:(?:\s(.*))?$/;
/** The recordings' shape: the name ends at the first colon followed by a tab. */
const TAB_HEADER = /^(\d{1,2}:\d{2}:\d{2})[ \t]+([^\t]+?):\t(.*)$/;
const RECIPIENT = /^(.+?)\s+to\s+(.+?)$/;
const header = (line: string): RegExpExecArray | null => HEADER.exec(line) ?? TAB_HEADER.exec(line);

export const zoomChatImporter: Importer = {
  name: "zoom-chat",
  description: "Zoom meeting chat .txt (`hh:mm:ss From Name to Everyone:`)",
  extensions: [".txt"],
  input: "file",
  detect(_path, head) {
    const lines = head
      .split(/\r\n|\n|\r/)
      .filter((l) => l.trim() !== "")
      .slice(0, 200);
    const headers = lines.filter((l) => header(l) !== null).length;
    return headers >= 1 && headers * 3 >= Math.min(lines.length, 30) ? 0.95 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const builder = new SessionBuilder(sessionIdFromPath(file), { source: { file, format: "zoom-chat" } }, options.agents);
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    let current: { speaker: string; lines: string[]; timestamp: string; start: number; meta: Record<string, unknown> } | undefined;
    const preamble: string[] = [];
    let origin: number | undefined;
    let dayOffset = 0;
    let last = -1;
    const flush = () => {
      if (!current) return;
      const text = current.lines
        .map((l) => l.replace(/^\t/, ""))
        .join("\n")
        .replace(/\s+$/, "");
      builder.turn(current.speaker, { text, timestamp: current.timestamp, start: current.start, metadata: current.meta });
    };
    let lineNo = 0;
    for await (const line of input.lines()) {
      lineNo++;
      const m = header(line);
      if (!m) {
        if (current) current.lines.push(line);
        else if (line.trim() !== "") {
          preamble.push(line);
          result.warnings.push(`${file}:${lineNo}: text before the first "hh:mm:ss From …" line; kept in session metadata preamble`);
        }
        continue;
      }
      flush();
      const [h, min, sec] = m[1]!.split(":").map(Number) as [number, number, number];
      let seconds = h * 3600 + min * 60 + sec + dayOffset;
      // A clock that goes back by hours is the next day (a meeting across midnight).
      if (seconds < last - 6 * 3600) {
        dayOffset += 24 * 3600;
        seconds += 24 * 3600;
      }
      last = seconds;
      origin ??= seconds;
      const who = RECIPIENT.exec(m[2]!);
      const name = (who ? who[1]! : m[2]!).trim();
      const meta: Record<string, unknown> = {};
      if (who) {
        meta.to = who[2]!.trim();
        if (/\((Direct Message|privately)\)\s*$/i.test(who[2]!)) meta.private = true;
      }
      current = {
        speaker: builder.participant(name),
        lines: m[3] !== undefined && m[3].trim() !== "" ? [m[3]] : [],
        timestamp: m[1]!,
        start: seconds - origin,
        meta,
      };
    }
    flush();
    if (preamble.length > 0) builder.metadata.preamble = preamble.join("\n");
    const session = builder.build();
    // Text with no message line at all is not a Zoom chat: an empty session would hide that.
    if (session.turns.length === 0 && preamble.length > 0)
      throw new ImportError({
        file,
        line: 1,
        problem: "no line starts a chat message",
        expected: 'lines such as "10:01:35 From Alice to Everyone:" or "10:01:35 Alice:<TAB>text"',
      });
    if (session.turns.length === 0) result.warnings.push(`${file}: no "hh:mm:ss From Name:" lines; imported an empty session`);
    result.sessions.push(session);
    return result;
  },
};
