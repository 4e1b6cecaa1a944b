import { SessionBuilder, sessionIdFromPath } from "../builder.js";
import { ImportError, type Importer, type ImportInput, type ImportOptions, type ImportResult } from "../types.js";

const EXPECTED = 'a Praat TextGrid (File type = "ooTextFile", Object class = "TextGrid", long or short text format)';

/** A value of Praat's text format: a number, a string, or a flag such as <exists>. */
type Token = { kind: "number"; value: number; line: number } | { kind: "string"; value: string; line: number } | { kind: "flag"; value: string; line: number };

/**
 * The values of a Praat text file, in order. Praat's reader skips what is not a value, so the
 * long format's labels (`xmin =`, `intervals [2]:`) and the short format's bare values read
 * alike; `[…]` indices and `!` comments are skipped; a string's `""` is one quote.
 */
function tokens(text: string, file: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "\n") line++;
    if (c === '"') {
      const startLine = line;
      let value = "";
      i++;
      for (;;) {
        if (i >= text.length) throw new ImportError({ file, line: startLine, problem: "a string is not closed", expected: EXPECTED });
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (text[i] === "\n") line++;
        value += text[i++];
      }
      out.push({ kind: "string", value, line: startLine });
      continue;
    }
    if (c === "<") {
      const end = text.indexOf(">", i);
      out.push({ kind: "flag", value: text.slice(i + 1, end < 0 ? undefined : end), line });
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (c === "[") {
      const end = text.indexOf("]", i);
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (c === "!") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
      continue;
    }
    const number = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(text.slice(i, i + 40));
    if (number && (i === 0 || /[\s=]/.test(text[i - 1]!))) {
      out.push({ kind: "number", value: Number(number[0]), line });
      i += number[0].length;
      continue;
    }
    i++;
  }
  return out;
}

/**
 * Praat TextGrids (phonetics, conversation analysis): one session; each interval tier is a
 * speaker (its name), each interval with words a turn with its start and end, all tiers' turns
 * in time order (overlaps kept). Empty intervals are silence. Point tiers (events such as
 * laughs) are no one's speech: their marks are kept in session metadata `pointTiers`, with a
 * warning. Long and short text formats, any encoding the importer reads (UTF-16 is common).
 */
export function parseTextGrid(path: string, text: string, options: ImportOptions = {}): ImportResult {
  const values = tokens(text, path);
  let at = 0;
  const next = <K extends Token["kind"]>(kind: K, what: string): Extract<Token, { kind: K }> => {
    const token = values[at++];
    if (!token || token.kind !== kind)
      throw new ImportError({ file: path, line: token?.line ?? values[values.length - 1]?.line ?? 1, problem: `expected ${what} here`, expected: EXPECTED });
    return token as Extract<Token, { kind: K }>;
  };
  if (next("string", '"ooTextFile"').value !== "ooTextFile" || next("string", '"TextGrid"').value !== "TextGrid")
    throw new ImportError({ file: path, line: 1, problem: "not a TextGrid header", expected: EXPECTED });
  next("number", "the grid's xmin");
  next("number", "the grid's xmax");
  const exists = values[at]?.kind === "flag" ? next("flag", "<exists>").value : "exists";
  const size = exists === "exists" ? next("number", "the number of tiers").value : 0;
  const builder = new SessionBuilder(sessionIdFromPath(path), { source: { file: path, format: "textgrid" } }, options.agents);
  const turns: { tier: number; speaker: string; start: number; end: number; text: string; line: number }[] = [];
  const points: Record<string, { time: number; mark: string }[]> = {};
  for (let t = 0; t < size; t++) {
    const kind = next("string", 'a tier class ("IntervalTier" or "TextTier")').value;
    const name = next("string", "the tier's name").value;
    next("number", "the tier's xmin");
    next("number", "the tier's xmax");
    const count = next("number", "the tier's number of intervals or points").value;
    for (let k = 0; k < count; k++) {
      if (kind === "IntervalTier") {
        const start = next("number", "an interval's xmin").value;
        const end = next("number", "an interval's xmax").value;
        const words = next("string", "an interval's text");
        if (words.value.trim() === "") continue;
        turns.push({ tier: t, speaker: builder.participant(name), start, end, text: words.value, line: words.line });
      } else {
        const time = next("number", "a point's time").value;
        (points[name] ??= []).push({ time, mark: next("string", "a point's mark").value });
      }
    }
  }
  turns.sort((a, b) => a.start - b.start || a.tier - b.tier);
  for (const turn of turns) builder.turn(turn.speaker, { text: turn.text, start: turn.start, end: turn.end, metadata: { line: turn.line } });
  const warnings: string[] = [];
  if (Object.keys(points).length > 0) {
    builder.metadata.pointTiers = Object.entries(points).map(([tier, marks]) => ({ tier, points: marks }));
    warnings.push(
      `${path}: point tier(s) ${Object.keys(points)
        .map((n) => `"${n}"`)
        .join(", ")} hold events, not speech: kept in session metadata pointTiers`,
    );
  }
  if (turns.length === 0)
    throw new ImportError({ file: path, line: 1, problem: "no interval holds any words", expected: "interval tiers with text, one per speaker" });
  return { sessions: [builder.build()], codes: [], warnings };
}

export const textgridImporter: Importer = {
  name: "textgrid",
  description: "Praat TextGrid (one interval tier per speaker; long or short text format)",
  extensions: [".textgrid"],
  input: "file",
  detect(path, head) {
    if (/"ooTextFile"/.test(head) && /"TextGrid"/.test(head)) return 0.97;
    return /\.textgrid$/i.test(path) ? 0.6 : 0;
  },
  async parse(input: ImportInput, options: ImportOptions) {
    return parseTextGrid(input.path, await input.readText(), options);
  },
};
