import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import type { Importer, ImportResult } from "../types.js";

/**
 * WhatsApp "Export chat" text files, both line shapes:
 *   Android  `31/12/2020, 23:59 - Alice: Happy new year`   (`12/31/20, 11:59 PM - …` in US locales)
 *   iOS      `[31/12/2020, 23:59:07] Alice: Happy new year` (often after U+200E, a left-to-right mark)
 * Dates are day-first or month-first by locale, with `/`, `.` or `-`, 2- or 4-digit years, or
 * year-first; times have `:` or `.` and maybe AM/PM in any of its spellings (`PM`, `p.m.`,
 * `p. m.`, after a narrow no-break space). Which order the file uses is decided once for the
 * whole file: a first number above 12 means day-first, a second above 12 month-first; with no
 * evidence, files with AM/PM are read month-first (US) and the others day-first.
 *
 * - A line without a date header continues the previous message (multi-line messages), verbatim.
 * - Exports do not escape message text, so a line inside a message can look like a header (a
 *   quoted or pasted message). After the first header, such a line starts a message only when it
 *   is consistent with the chat: its time is not more than `BACKWARDS_TOLERANCE_S` before the
 *   previous message's (clock changes, messages delivered late), and its sender has written
 *   before or the line has the file's header shape (`shapeOf`, the shape most headers have).
 *   Otherwise it stays in the message, with a warning naming the file and line.
 * - A header without `Name: ` (encryption notice, "Alice added Bob", "You left") is a `system`
 *   turn of the participant "WhatsApp"; so is any text before the first header.
 * - Media placeholders (`<Media omitted>`, `image omitted`, `<attached: …>`) and the invisible
 *   left-to-right marks stay in the text exactly as exported.
 * Turn `timestamp` is the local date-time as written (ISO, no zone: exports carry none);
 * `start` counts seconds from the first message.
 */

const DATE = String.raw`(\d{1,4})[./-](\d{1,2})[./-](\d{1,4})\.?`;
const TIME = String.raw`(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?(?:[\s\u202f\u00a0]*([AaPp])\.?[\s\u202f\u00a0]?[Mm]\.?)?`;
const ANDROID = new RegExp(String.raw`^\u200e?${DATE},?\s${TIME}\s[-–]\s(.*)$`);
const IOS = new RegExp(String.raw`^\u200e?\[${DATE},?\s${TIME}\]\s(.*)$`);
/** `Name: text`; a name is short and has no quotes (a system line can quote a group subject with a colon). */
const SENDER = /^([^:"“”]{1,60}?): ([\s\S]*)$/;

/**
 * How far (seconds) a header's time may go back before the previous message's and still start a
 * message: a daylight-saving change sets local times back an hour, and a message sent offline
 * is listed when it arrives, stamped when it was written. A quoted message is usually older.
 */
const BACKWARDS_TOLERANCE_S = 2 * 3600;

/**
 * Events WhatsApp writes into the chat under a sender (iOS puts the group or the person as the
 * sender and starts the text with U+200E): joins, adds, leaves, number changes, the encryption
 * notice. Such a line is a `system` turn, not that person's words. Media placeholders, which
 * also start with U+200E, stay messages.
 */
const SYSTEM_EVENT =
  /end-to-end encrypted|joined using|created (?:this )?group|added |removed |left$|changed (?:their phone number|the subject|this group|the group)|is now an admin|no longer an admin|security code|You joined|Messages you send to this group/i;

interface Header {
  date: [number, number, number];
  time: [number, number, number];
  pm?: boolean;
  rest: string;
  /** The header with its numbers abstracted (`shapeOf`). */
  shape: string;
}

function headerOf(line: string): Header | undefined {
  const m = IOS.exec(line) ?? ANDROID.exec(line);
  if (!m) return undefined;
  const period = m[7]?.toLowerCase();
  const rest = m[8]!;
  return {
    date: [Number(m[1]), Number(m[2]), Number(m[3])],
    time: [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)],
    pm: period === undefined ? undefined : period === "p",
    rest,
    shape: shapeOf(line.slice(0, line.length - rest.length)),
  };
}

/**
 * A header's layout without its values: brackets, separators, 2- or 4-digit year, seconds, the
 * AM/PM spelling and the space before it. Day, month and hour are padded in some locales and
 * not in others (`1/5/24, 9:41`), so every 1-2 digit number is the same `#`.
 */
function shapeOf(prefix: string): string {
  return prefix
    .replace(/^\u200e/, "")
    .replace(/\d{3,}/g, "Y")
    .replace(/\d{1,2}/g, "#")
    .replace(/[AaPp](?=\.?[\s\u202f\u00a0]?[Mm])/, (c) => (c === c.toUpperCase() ? "X" : "x"));
}

/** The shape most of the file's header-looking lines have (the first seen on a tie). */
function commonShape(headers: readonly Header[]): string | undefined {
  const counts = new Map<string, number>();
  for (const h of headers) counts.set(h.shape, (counts.get(h.shape) ?? 0) + 1);
  let best: string | undefined;
  for (const [shape, n] of counts) if (best === undefined || n > counts.get(best)!) best = shape;
  return best;
}

/** A duration in words for a warning: minutes, hours or days. */
function span(seconds: number): string {
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 2 * 86400) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

export const whatsappImporter: Importer = {
  name: "whatsapp",
  description: "WhatsApp chat export .txt (Android `date, time - Name: text` and iOS `[date, time] Name: text`)",
  extensions: [".txt"],
  input: "file",
  detect(_path, head) {
    const lines = head
      .split(/\r\n|\n|\r/)
      .filter((l) => l.trim() !== "")
      .slice(0, 200);
    if (lines.length === 0) return 0;
    const headers = lines.filter((l) => headerOf(l)).length;
    // Most lines start with a date header; continuation lines are the rest.
    return headers >= 2 && headers / lines.length >= 0.4 ? 0.95 : headers === 1 && lines.length <= 2 ? 0.6 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const lines: string[] = [];
    for await (const line of input.lines()) lines.push(line);
    const headers = lines.map(headerOf);
    const shape = commonShape(headers.filter((h): h is Header => h !== undefined));
    // Only lines in the file's own header shape are evidence for its date order (a quoted US date
    // must not turn a European file month-first).
    const order = dateOrder(headers.filter((h): h is Header => h !== undefined && h.shape === shape));
    const builder = new SessionBuilder(sessionIdFromPath(file), { source: { file, format: "whatsapp" } }, options.agents);
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    /** The message being read; `line` is its header's (1-based), 0 for text before the first header. */
    let current: { speaker: string; text: string[]; timestamp?: string; start?: number; system: boolean; line: number } | undefined;
    let origin: number | undefined;
    /** The epoch seconds of the last message that had a valid time, and who has written so far. */
    let last: number | undefined;
    const senders = new Set<string>();
    const flush = () => {
      if (current)
        builder.turn(current.speaker, {
          text: current.text.join("\n"),
          timestamp: current.timestamp,
          start: current.start,
          type: current.system ? "system" : "message",
        });
    };
    lines.forEach((line, i) => {
      const header = headers[i];
      if (!header) {
        // Continuation of a multi-line message; blank lines inside a message are part of it.
        if (current) current.text.push(line);
        else if (line.trim() !== "") current = { speaker: builder.participant("WhatsApp", { kind: "system" }), text: [line], system: true, line: 0 };
        return;
      }
      const when = localDateTime(header, order);
      const sender = SENDER.exec(header.rest);
      const name = sender?.[1]!.replace(/^\u200e/, "").trim();
      if (current && current.line > 0) {
        // A header-looking line inside a message: a header only if consistent with the chat.
        const back = when && last !== undefined ? last - when.epoch : 0;
        const known = name !== undefined && senders.has(name);
        // Two exports pasted together: the dates restart, and the lines after keep the file's header shape.
        const restart = back > BACKWARDS_TOLERANCE_S && header.shape === shape && startsRun(headers, i, shape, order, when!.epoch, last!);
        if (restart)
          result.warnings.push(`${file}:${i + 1}: the dates go back ${span(back)} here and go on as a chat (two exports pasted together?); read as messages`);
        const reason = restart
          ? undefined
          : back > BACKWARDS_TOLERANCE_S
            ? `its time is ${span(back)} before the message above`
            : !known && header.shape !== shape
              ? `${name === undefined ? "it has no sender" : `"${name}" has not written before`} and it is not in the file's header shape`
              : undefined;
        if (reason !== undefined) {
          result.warnings.push(
            `${file}:${i + 1}: "${line.length > 40 ? `${line.slice(0, 40)}…` : line}" looks like a message header, but ${reason}; kept as a line of the message from line ${current.line}`,
          );
          current.text.push(line);
          return;
        }
      }
      flush();
      if (!when) result.warnings.push(`${file}:${i + 1}: date "${line.slice(0, 24)}" is not a calendar date; message kept without a time`);
      let start: number | undefined;
      if (when) {
        origin ??= when.epoch;
        start = when.epoch - origin;
        last = when.epoch;
      }
      const text = sender?.[2] ?? "";
      const event = sender !== undefined && SYSTEM_EVENT.test(text) && (text.startsWith("\u200e") || /end-to-end/i.test(text));
      if (sender && event) {
        // Kept whole (sender and all) as WhatsApp's own line.
        current = { speaker: builder.participant("WhatsApp", { kind: "system" }), text: [header.rest], timestamp: when?.iso, start, system: true, line: i + 1 };
      } else if (sender) {
        senders.add(name!);
        current = { speaker: builder.participant(name!), text: [sender[2]!], timestamp: when?.iso, start, system: false, line: i + 1 };
      } else
        current = { speaker: builder.participant("WhatsApp", { kind: "system" }), text: [header.rest], timestamp: when?.iso, start, system: true, line: i + 1 };
    });
    flush();
    // A message's trailing blank lines are the gap before the next header, not its words.
    const session = builder.build();
    for (const t of session.turns) t.text = t.text.replace(/(\n[ \t]*)+$/, "");
    if (session.turns.length === 0) result.warnings.push(`${file}: no messages; imported an empty session`);
    result.sessions.push(session);
    return result;
  },
};

type Order = "dmy" | "mdy" | "ymd";

/**
 * Line `i` and the next line are both headers of the file's shape, and the next goes on from this
 * one's time while staying before `last` (the message above): the chat restarted earlier. A quoted
 * header is followed by the quote's text, or by a header that returns to the chat's own time.
 */
function startsRun(headers: readonly (Header | undefined)[], i: number, shape: string | undefined, order: Order, epoch: number, last: number): boolean {
  const next = headers[i + 1];
  const when = next && next.shape === shape ? localDateTime(next, order) : undefined;
  return when !== undefined && when.epoch >= epoch - BACKWARDS_TOLERANCE_S && when.epoch < last - BACKWARDS_TOLERANCE_S;
}

/** One date order for the whole file, from the evidence its dates give (see the importer's comment). */
function dateOrder(headers: readonly Header[]): Order {
  let dayFirst = false;
  let monthFirst = false;
  let twelveHour = false;
  for (const h of headers) {
    if (h.date[0] > 31) return "ymd";
    if (h.date[0] > 12) dayFirst = true;
    if (h.date[1] > 12) monthFirst = true;
    if (h.pm !== undefined) twelveHour = true;
  }
  if (dayFirst !== monthFirst) return dayFirst ? "dmy" : "mdy";
  return twelveHour ? "mdy" : "dmy";
}

function localDateTime(h: Header, order: Order): { iso: string; epoch: number } | undefined {
  const [a, b, c] = h.date;
  const [y, month, day] = order === "ymd" ? [a, b, c] : order === "dmy" ? [c, b, a] : [c, a, b];
  // Two-digit years are this century's: WhatsApp did not exist before 2009.
  const year = y < 100 ? y + 2000 : y;
  let [hour] = h.time;
  const [, minute, second] = h.time;
  if (h.pm !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (h.pm ? 12 : 0);
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const d = new Date(ms);
  // Reject 31/02 and 25:00 instead of letting Date roll them over.
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  return { iso: d.toISOString().slice(0, 19), epoch: ms / 1000 };
}
