/**
 * The unit a REFI-QDA project counts selection positions in. The specification says Unicode code
 * points (REFI-QDA 1.5 §10.2), and Colloquy writes them; NVivo counts UTF-16 code units (an emoji
 * outside the Basic Multilingual Plane counts 2), so read as code points its selections drift by
 * one character per emoji before them. The two readings differ only in a text with such
 * characters; there the one whose selections start and end on word boundaries wins, and when
 * that does not decide (no selection after the first such character), the tool's habit does.
 */

export type PositionUnit = "codepoints" | "utf16";

export interface PositionReading {
  unit: PositionUnit;
  /** Why, for the import summary: the tool, and how selections align under each reading. */
  reason: string;
}

interface Selections {
  text: string;
  selections: readonly { start: number; end: number }[];
}

/** Tools known to count UTF-16 units (measured on their exports: ../shared/corpora/qda/SOURCES.md). */
const UTF16_TOOLS = /\bnvivo\b/i;

const WORD = /[\p{L}\p{N}\p{M}]/u;

/** Whether JS index `i` of `text` is not inside a word (nor inside a surrogate pair). */
function atBoundary(text: string, i: number): boolean {
  if (i < 0 || i > text.length) return false;
  if (i === 0 || i === text.length) return true;
  const code = text.charCodeAt(i);
  if (code >= 0xdc00 && code <= 0xdfff) return false;
  return !(WORD.test(text[i - 1]) && WORD.test(text[i]));
}

/** JS (UTF-16) index of each code point offset, up to and including the end. */
export function codePointIndex(text: string): Uint32Array {
  const index = new Uint32Array(text.length + 1);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    index[n++] = i;
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) i++;
  }
  index[n] = text.length;
  return index.subarray(0, n + 1);
}

/** Code point offset of each UTF-16 index (a low surrogate maps to its pair's offset). */
function utf16ToCodePoint(text: string): Uint32Array {
  const out = new Uint32Array(text.length + 1);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    out[i] = n;
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) out[++i] = n;
    n++;
  }
  out[text.length] = n;
  return out;
}

const hasAstral = (text: string) => /[\uD800-\uDBFF]/.test(text);

/** Which unit a project's selections are in, and why. */
export function readPositionUnit(origin: string | undefined, sources: readonly Selections[]): PositionReading {
  const habit: PositionUnit = UTF16_TOOLS.test(origin ?? "") ? "utf16" : "codepoints";
  const tool = origin
    ? `${origin} ${habit === "utf16" ? "counts UTF-16 units" : "is taken to count code points, as the specification says"}`
    : "no origin tool named";
  let aligned = { codepoints: 0, utf16: 0 };
  let differing = 0;
  for (const source of sources) {
    if (!hasAstral(source.text) || source.selections.length === 0) continue;
    const cp = codePointIndex(source.text);
    for (const s of source.selections) {
      if (s.start === s.end || (cp[s.start] === s.start && cp[s.end] === s.end)) continue;
      const asCp = atBoundary(source.text, cp[s.start] ?? -1) && atBoundary(source.text, cp[s.end] ?? -1);
      const as16 = atBoundary(source.text, s.start) && atBoundary(source.text, s.end);
      differing++;
      aligned = { codepoints: aligned.codepoints + Number(asCp), utf16: aligned.utf16 + Number(as16) };
    }
  }
  if (differing === 0) return { unit: habit, reason: `${tool}; no selection comes after a character the two units count differently` };
  const unit = aligned.utf16 === aligned.codepoints ? habit : aligned.utf16 > aligned.codepoints ? "utf16" : "codepoints";
  return {
    unit,
    reason: `${tool}; of the ${differing} selection(s) the units read differently, ${aligned.utf16} start and end between words read as UTF-16 units, ${aligned.codepoints} read as code points`,
  };
}

/** The selections of a source in code points, read from `unit`. */
export function selectionsInCodePoints<T extends { start: number; end: number }>(text: string, selections: readonly T[], unit: PositionUnit): T[] {
  if (unit === "codepoints" || !hasAstral(text)) return [...selections];
  const map = utf16ToCodePoint(text);
  const at = (i: number) => (i >= 0 && i <= text.length ? map[i] : i - text.length + map[text.length]);
  return selections.map((s) => ({ ...s, start: at(s.start), end: at(s.end) }));
}
