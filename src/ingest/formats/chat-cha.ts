import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import type { Importer, ImportResult } from "../types.js";

/** `*CHI:\ttext`: a main tier (an utterance) by the speaker with that code. */
const MAIN = /^\*([^:\s]+):\s?(.*)$/;
/** `%mor:\t…`: a dependent tier of the utterance above. */
const DEPENDENT = /^%([^:\s]+):\s?(.*)$/;
/** `@Languages:\teng` or a bare `@Begin`. */
const HEADER = /^@([^:\t]+?)(?::\s?(.*))?$/;
/** A media bullet `\u0015start_end\u0015` (milliseconds) at the end of an utterance. */
const BULLET = /\s*\u0015(\d+)_(\d+)\u0015\s*/g;

interface Speaker {
  name: string;
  role?: string;
  id?: string[];
}

/**
 * CHAT transcripts (.cha, CHILDES/TalkBank): `@` header lines, `*SPK:` utterances and `%tier:`
 * dependent tiers, with lines starting with a tab continuing the line above (joined with one
 * space, as CLAN reads them).
 * - Speakers come from `@Participants: CHI Ross Target_Child, MOT Mother`: the code, an optional
 *   name and a role; the participant is named by its name, else its code, with the role as
 *   role and the code (and its `@ID` fields) in participant metadata.
 * - Utterance text is kept as transcribed, CHAT codes included (`[/]`, `&-um`, `xxx`): they are
 *   the transcriber's words about the speech. Only the media bullet (`\u0015` start_end `\u0015`,
 *   milliseconds) is taken out, into the turn's start and end.
 * - Dependent tiers (`%mor`, `%gra`, `%com`, `%act`…) go to turn metadata `tiers` by name.
 * - Every header is kept, in order, in session metadata `headers` ({header, value}); one that
 *   comes between utterances (`@Comment`, `@G`, `@Bg`) also says `beforeTurn`.
 * As CLAN's CHECK reports rather than drops them, a line of another shape is kept as a
 * continuation of the line above, with a warning naming the line.
 */
export const chatChaImporter: Importer = {
  name: "cha",
  description: "CHAT .cha transcripts (CHILDES/TalkBank): @headers, *SPK: utterances, %tiers",
  extensions: [".cha"],
  input: "file",
  detect(path, head) {
    const cha = /\.cha$/i.test(path);
    const begin = /^(?:\uFEFF)?(@UTF8\s*\r?\n)?@Begin\b/m.test(head);
    const mains = (head.match(/^\*[A-Z0-9]{2,4}:\t/gm) ?? []).length;
    if (begin && (mains > 0 || /^@Participants:/m.test(head))) return cha ? 1 : 0.9;
    return cha ? 0.4 : mains >= 2 && /^@/m.test(head) ? 0.5 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    // Logical lines: a tab-initial line continues the one above.
    const logical: { text: string; line: number }[] = [];
    let lineNo = 0;
    for await (const raw of input.lines()) {
      lineNo++;
      if (raw.trim() === "") continue;
      const last = logical[logical.length - 1];
      if (/^[\t ]/.test(raw) && last) last.text += " " + raw.trim();
      else if (/^[@*%]/.test(raw) || !last) logical.push({ text: raw, line: lineNo });
      else {
        result.warnings.push(`${file}:${lineNo}: line starts with none of @ * % or a tab; kept as a continuation of line ${last.line}`);
        last.text += " " + raw.trim();
      }
    }
    const headers: { header: string; value?: string; beforeTurn?: number }[] = [];
    const speakers = new Map<string, Speaker>();
    const metadata: Record<string, unknown> = { source: { file, format: "cha" }, headers };
    const builder = new SessionBuilder(sessionIdFromPath(file), metadata, options.agents);
    const codes = new Map<string, string>();
    let current: { speaker: string; code: string; text: string; start?: number; end?: number; tiers: Record<string, string> } | undefined;
    const flush = () => {
      if (!current) return;
      const meta: Record<string, unknown> = {};
      if (Object.keys(current.tiers).length > 0) meta.tiers = current.tiers;
      builder.turn(current.speaker, { text: current.text, start: current.start, end: current.end, metadata: meta });
      current = undefined;
    };
    for (const { text, line } of logical) {
      let m = MAIN.exec(text);
      if (m) {
        flush();
        const code = m[1]!;
        let speaker = speakers.get(code);
        if (!speaker) {
          if (speakers.size > 0) result.warnings.push(`${file}:${line}: speaker *${code} is not in @Participants; named by its code`);
          speaker = { name: code };
          speakers.set(code, speaker);
        }
        const id = builder.participant(speaker.name, { role: speaker.role });
        codes.set(id, code);
        let start: number | undefined;
        let end: number | undefined;
        const words = m[2]!
          .replace(BULLET, (_all, a: string, b: string) => {
            start ??= Number(a) / 1000;
            end = Number(b) / 1000;
            return " ";
          })
          .trim();
        current = { speaker: id, code, text: words, start, end, tiers: {} };
        continue;
      }
      m = DEPENDENT.exec(text);
      if (m) {
        if (current) current.tiers[m[1]!] = current.tiers[m[1]!] === undefined ? m[2]! : `${current.tiers[m[1]!]}\n${m[2]!}`;
        else headers.push({ header: `%${m[1]!}`, value: m[2]!, beforeTurn: builder.turnCount });
        continue;
      }
      m = HEADER.exec(text);
      if (m) {
        const header = m[1]!;
        const value = m[2];
        const started = current !== undefined || builder.turnCount > 0;
        flush();
        headers.push({ header, ...(value !== undefined ? { value } : {}), ...(started ? { beforeTurn: builder.turnCount } : {}) });
        if (header === "Participants" && value) readParticipants(value, speakers);
        if (header === "ID" && value) {
          const fields = value.split("|");
          const s = speakers.get(fields[2] ?? "");
          if (s) s.id = fields;
        }
      }
    }
    flush();
    if (builder.turnCount === 0) result.warnings.push(`${file}: no *SPEAKER: utterances; imported an empty session`);
    const session = builder.build();
    // The CHAT code (and @ID fields) of each participant, once all headers are read.
    for (const p of session.participants) {
      const code = codes.get(p.id)!;
      const fields = speakers.get(code)?.id;
      p.metadata = { code, ...(fields ? { id: fields } : {}) };
    }
    result.sessions.push(session);
    return result;
  },
};

/** `CHI Ross Target_Child, MOT Mother`: code, optional name (words between), role (last word). */
function readParticipants(value: string, speakers: Map<string, Speaker>): void {
  for (const entry of value.split(",")) {
    const words = entry.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const code = words[0]!;
    const role = words.length > 1 ? words[words.length - 1] : undefined;
    const name = words.length > 2 ? words.slice(1, -1).join(" ") : code;
    speakers.set(code, { name, ...(role ? { role } : {}) });
  }
}
