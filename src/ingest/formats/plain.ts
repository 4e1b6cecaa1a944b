import { parseOffset } from "../clock.js";
import { SessionBuilder, sessionIdFromPath, type TurnDraft } from "../builder.js";
import { looksLikeName as looksLikeNameLabel, timeToken } from "../speaker-label.js";
import { trimBlankEdgeLines } from "./slack-paste.js";
import { ImportError, type Importer, type ImportInput, type ImportOptions, type ImportResult } from "../types.js";

/**
 * Plain "Speaker: text" transcripts (interviews; Otter and Rev exports). A line starts a turn when
 * it is one of:
 *   [00:01:23] Alice: text        time prefix and speaker
 *   Speaker 1 (00:00): text       Rev style (text on this line and/or the following ones)
 *   Alice Smith  1:23             Otter style header line (two spaces or a tab before the time)
 *   Emma [0:00]                   name then bracketed time (text on this line and/or the following ones)
 *   Alice: text                   plain (王芳：你好 with a full-width colon)
 * each also with the name in Markdown bold (`**Alice Smith**  1:23`, `[00:01:23] **Alice:** text`,
 * `**Alice:** text`), as Otter and Descript write Markdown. Any other line continues the previous
 * turn (joined with "\n"). Lines before the first turn go to session.metadata.preamble; Otter's
 * footer line "Transcribed by https://otter.ai" goes to session.metadata.transcribedBy, but only
 * at the end of the file (the last non-blank lines): the same words mid-transcript were said.
 *
 * The plain `Name: text` form is the risky one ("Note: check this" inside an answer). A label that
 * looks like a name (speaker-label.ts) starts a turn, even when it starts only one line: moving a
 * person's words into someone else's turn is worse than a spare speaker. Evidence against a
 * once-only label keeps it as text of the previous turn, with a warning naming the line: it is a
 * word documents use as a label (Note, Example, Update, Step 2: documentLabel), or the file's
 * speakers carry time stamps and this label has none. --agents and --humans names are speakers.
 */

const T = timeToken;
const timedPrefix = new RegExp(String.raw`^\[(${T})\]\s*(?:([^:\[\]]{1,40}?):(?:\s|$))?(.*)$`);
const revHeader = new RegExp(String.raw`^([^:()\[\]]{1,40}?)\s*\((${T})\):(?:\s|$)(.*)$`);
/** `Emma [0:00]` / `**Emma** [0:00]` (Markdown exports), text after it or on the next lines. */
const bracketHeader = new RegExp(String.raw`^([^:()\[\]]{1,40}?)\s+\[(${T})\]:?(?:\s+(.*)|$)`);
const otterHeader = new RegExp(String.raw`^(\S[^:\t]{0,39}?)(?:\s{2,}|\t+)(${T})\s*$`);
/**
 * `Name: text`, or `Name：text` with the full-width colon Chinese and Japanese transcripts use
 * (with no space after it: an ASCII colon needs one, so "10:30" and "http://" stay text; a
 * full-width colon between digits is a time too, "10：30"). An ASCII colon with no space counts
 * after a letter of a script without case ("田中:はい", as such transcripts are often typed),
 * unless a digit or a slash follows it ("时间:10:30", "网址://").
 */
const plainLine = /^([^:：]{1,40}?)(?::(?:\s+|$)|(?<=\p{Lo}):(?![\d/])|(?<!\d)：\s*|：(?!\d)\s*)(.*)$/u;
/**
 * Words notes and documents put before a colon: a once-only `Note:` is part of a turn, not a person.
 * Chinese and Japanese ones too (注意：, 备注：, 例如：), since a script without case gives no other sign.
 */
const documentLabel =
  /^(?:注意|注|备注|備註|備考|附注|提示|提醒|警告|例|例如|举例|舉例|比如|更新|总结|總結|小结|小結|摘要|要約|概要|问题|問題|質問|回答|答案|结果|結果|结论|結論|时间|時間|日期|日時|地点|地點|場所|主题|主題|议题|議題|议程|議程|来源|來源|出典|参考|參考|链接|鏈接|リンク|翻译|翻譯|翻訳|补充|補充|说明|說明|説明|メモ|ノート|ヒント|まとめ|n\.?b\.?|p\.?s\.?|e\.?g\.?|i\.?e\.?|note|notes|example|examples|warning|caution|update|edit|edited|summary|tip|hint|important|reminder|source|sources|subject|re|fyi|todo|date|time|location|disclaimer|caveat|result|results|output|input|action|actions|topic|agenda|step|part|chapter|section|title|question|answer|status|comment|comments|keywords|tags|link|links|file|duration|attendees|transcript|definition|context|goal|task|bonus|fact|quote|translation|correction|spoiler|trigger warning|tl;?dr)(?:\s+\d+|\s+[A-Z])?$/i;

interface LineHead {
  name?: string;
  time?: string;
  /** Text after the header on the same line ("" when the text starts on the next line). */
  rest: string;
  timed: boolean;
}

/** `**Name**` / `__Name__` at a header's place (after an optional `[time]`), bold markers removed. */
const boldName = new RegExp(String.raw`^(\[${T}\]\s*)?(\*\*|__)([^*_\n]{1,40}?)(:?)\2`);
/** A transcription service's footer line ("Transcribed by https://otter.ai"): metadata, not speech, at the file's end. */
const footerLine = /^\s*Transcribed by https?:\/\/\S+\s*$/i;

/**
 * The line's speaker header, if it has one. `named` (lower case) are the --agents/--humans names:
 * speakers even when they do not look like names ("user_42", "P3 [muted]"), since the user said so.
 */
function headOf(rawLine: string, named: ReadonlySet<string> = new Set()): LineHead | undefined {
  const looksLikeName = (label: string) => looksLikeNameLabel(label) || named.has(label.trim().toLowerCase());
  const line = rawLine.replace(boldName, "$1$3$4");
  let m = timedPrefix.exec(line);
  if (m) return { name: m[2]?.trim(), time: m[1], rest: m[3]!, timed: true };
  m = revHeader.exec(line);
  if (m && looksLikeName(m[1]!)) return { name: m[1]!.trim(), time: m[2], rest: m[3]!, timed: true };
  m = bracketHeader.exec(line);
  if (m && looksLikeName(m[1]!)) return { name: m[1]!.trim(), time: m[2], rest: m[3] ?? "", timed: true };
  m = otterHeader.exec(line);
  if (m && looksLikeName(m[1]!)) return { name: m[1]!.trim(), time: m[2], rest: "", timed: true };
  m = plainLine.exec(line);
  if (m && looksLikeName(m[1]!) && !m[2]!.startsWith("//")) return { name: m[1]!.trim(), rest: m[2]!, timed: false };
  return undefined;
}

/**
 * Two passes over the lines, so a file can stream twice instead of being held: `count` learns
 * which names are speakers, `feed` builds the turns.
 */
export class PlainParser {
  private readonly known: Set<string>;
  /** The --agents and --humans names (lower case): speakers whatever they look like. */
  private readonly named: Set<string>;
  private readonly plainCounts = new Map<string, number>();
  /** Labels before a colon that do not look like names ("user_42:"): lines they start, and the first. */
  private readonly refused = new Map<string, { lines: number; first: number }>();
  /** Whether any header of the file has a time (then an untimed once-only label is text). */
  private timedHeaders = false;
  private builder: SessionBuilder;
  private readonly warnings: string[] = [];
  private readonly preamble: string[] = [];
  private readonly footer: string[] = [];
  private current: { name: string; time?: string; line: number; body: string[] } | undefined;
  private lastName: string | undefined;
  private lineNo = 0;
  /** Lines seen by `count`. */
  private counted = 0;
  /** First line of the file's footer: the footer lines (and blank lines) that end the file. */
  private footerFrom: number | undefined;

  constructor(
    private readonly path: string,
    options: ImportOptions,
  ) {
    this.named = new Set([...(options.agents ?? []), ...(options.humans ?? [])].map((a) => a.toLowerCase()));
    this.known = new Set(this.named);
    this.builder = new SessionBuilder(sessionIdFromPath(path), { source: { file: path, format: "plain" } }, options.agents);
  }

  /** First pass. */
  count(line: string): void {
    this.counted++;
    if (footerLine.test(line)) {
      this.footerFrom ??= this.counted;
      return;
    }
    if (line.trim() !== "") this.footerFrom = undefined;
    const h = headOf(line, this.named);
    if (!h) this.countRefused(line);
    if (!h?.name) return;
    const key = h.name.toLowerCase();
    if (h.timed) {
      this.known.add(key);
      this.timedHeaders = true;
    } else this.plainCounts.set(key, (this.plainCounts.get(key) ?? 0) + 1);
  }

  /** Second pass (call after every `count`). */
  feed(line: string): void {
    if (this.lineNo === 0) {
      for (const [name, n] of this.plainCounts) if (n >= 2 || (!this.timedHeaders && !documentLabel.test(name))) this.known.add(name);
    }
    this.lineNo++;
    if (this.footerFrom !== undefined && this.lineNo >= this.footerFrom && footerLine.test(line)) {
      this.footer.push(line.trim());
      return;
    }
    const h = headOf(line, this.named);
    const isTurn = h !== undefined && (h.timed || (h.name !== undefined && (this.known.has(h.name.toLowerCase()) || this.known.size === 0)));
    if (h && isTurn) {
      const name = h.name ?? this.lastName;
      if (name === undefined) {
        // A time stamp with no speaker before anyone has spoken: keep it as preamble text.
        this.preamble.push(line);
        return;
      }
      this.close();
      this.current = { name, line: this.lineNo, body: [h.rest], ...(h.time !== undefined ? { time: h.time } : {}) };
      this.lastName = name;
      return;
    }
    if (h?.name && !h.timed && this.current) {
      // Quoted with the colon the line has (注意：, not 注意:), so a search of the file finds it.
      const colon = line
        .slice(line.indexOf(h.name) + h.name.length)
        .trimStart()
        .startsWith("：")
        ? "："
        : ":";
      this.warnings.push(
        `${this.path}:${this.lineNo}: "${h.name}${colon}" looks like a speaker label but "${h.name}" starts no other line and ${this.timedHeaders ? "has no time stamp, as the file's speakers have" : "is a word notes use as a label"}; kept as text of ${this.current.name}'s turn (pass --humans "${h.name}" if it is a speaker)`,
      );
    }
    if (this.current) this.current.body.push(line);
    else this.preamble.push(line);
  }

  /** A `label: text` line whose label was not read as a name: counted, for the warning in `finish`. */
  private countRefused(line: string): void {
    const m = plainLine.exec(line.replace(boldName, "$1$3$4"));
    // A speaker label starts the line with a letter or digit: "- pros:" (a list item), `  "name":`
    // (JSON) and "> q:" (a quote) in an AI's answer are its text, not a speaker to warn about.
    if (!m || m[2]!.startsWith("//") || !/^[\p{L}\p{N}]/u.test(m[1]!)) return;
    const label = m[1]!.trim();
    const seen = this.refused.get(label);
    if (seen) seen.lines++;
    else this.refused.set(label, { lines: 1, first: this.counted });
  }

  private close(): void {
    const current = this.current;
    if (!current) return;
    const speaker = this.builder.participant(current.name);
    const start = current.time !== undefined ? parseOffset(current.time) : undefined;
    const draft: TurnDraft = { text: trimBlankEdgeLines(current.body).join("\n"), metadata: { line: current.line } };
    if (start !== undefined) draft.start = start;
    if (current.time !== undefined) draft.timestamp = current.time;
    this.builder.turn(speaker, draft);
    this.current = undefined;
  }

  finish(): ImportResult {
    this.close();
    if (this.builder.turnCount === 0) {
      throw new ImportError({
        file: this.path,
        line: 1,
        problem: "no speaker lines found",
        expected: "lines like `Alice: text`, `[00:01:23] Alice: text`, `Speaker 1 (00:00):` or `Alice  1:23`",
      });
    }
    // A label that starts several lines is likely a speaker whose name does not look like one
    // ("user_42", "q"): their words are in the turns before them, so say so and how to fix it.
    for (const [label, { lines, first }] of this.refused)
      if (lines >= 2)
        this.warnings.push(
          `${this.path}:${first}: "${label}:" starts ${lines} lines but does not look like a name, so they were kept as text of the turns before them; if "${label}" is a speaker, import again with --humans "${label}" (or --agents)`,
        );
    const text = trimBlankEdgeLines(this.preamble).join("\n");
    if (text !== "") this.builder.metadata.preamble = text;
    if (this.footer.length > 0) this.builder.metadata.transcribedBy = this.footer.join("\n");
    return { sessions: [this.builder.build()], codes: [], warnings: this.warnings };
  }
}

/** Parse a whole plain transcript held in memory (tests, library use). */
export function parsePlain(path: string, rawText: string, options: ImportOptions = {}): ImportResult {
  const lines = rawText.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  const parser = new PlainParser(path, options);
  for (const line of lines) parser.count(line);
  for (const line of lines) parser.feed(line);
  return parser.finish();
}

export const plainImporter: Importer = {
  name: "plain",
  description: "plain `Speaker: text` transcripts (interviews, Otter, Rev), optional [00:01:23] / (00:00) times",
  extensions: [".txt", ".md", ".text"],
  input: "file",
  detect(path, head) {
    const lines = head.split(/\r?\n/).filter((l) => l.trim() !== "");
    if (lines.length === 0) return 0;
    let timed = 0;
    const names = new Map<string, number>();
    for (const line of lines.slice(0, 500)) {
      const h = headOf(line);
      if (!h) continue;
      if (h.timed) timed++;
      if (h.name) names.set(h.name, (names.get(h.name) ?? 0) + 1);
    }
    const recurring = [...names.values()].filter((n) => n >= 2).length;
    const textLike = /\.(txt|text|md)$/i.test(path) ? 0.05 : 0;
    if (timed >= 2) return 0.7 + textLike;
    if (recurring >= 2 || (recurring >= 1 && names.size >= 2)) return 0.5 + textLike;
    if (names.size >= 1 && textLike > 0) return 0.2;
    return 0;
  },
  async parse(input: ImportInput, options: ImportOptions) {
    const parser = new PlainParser(input.path, options);
    for await (const line of input.lines()) parser.count(line);
    for await (const line of input.lines()) parser.feed(line);
    return parser.finish();
  },
};
