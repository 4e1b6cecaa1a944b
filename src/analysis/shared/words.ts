/**
 * The one word-counting rule every Colloquy statistic uses (Unicode-aware, documented so that
 * numbers can be reproduced by hand):
 *  - a word is a maximal run of letters, combining marks and digits (any script: Latin, Cyrillic,
 *    Greek, Arabic, Hebrew, Devanagari, Hangul, …);
 *  - an apostrophe (' or ’) or hyphen between two such runs joins them ("don’t", "well-known"
 *    are one word each), and so does '.' or ',' before a digit ("3.5", "1,000" are one word);
 *  - Chinese characters (Han), Hiragana and Katakana are counted one word per character, since
 *    those scripts do not separate words by spaces;
 *  - punctuation, symbols and emoji are not words.
 * Scripts without spaces other than these (Thai, Lao, Khmer, Burmese) count each run as one word.
 */
const CJK = "\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}";
const WORD_CHAR = `[[\\p{L}\\p{M}\\p{N}]--[${CJK}]]`;
// The `v` flag (set subtraction) is built at runtime so the TypeScript target needs no bump.
const WORD = new RegExp(`${WORD_CHAR}+(?:(?:['\u2019\\-]|[.,](?=\\p{N}))${WORD_CHAR}+)*|[${CJK}]`, "gv");

/** Number of words in `text` under the rule above. */
export function countWords(text: string): number {
  if (text.length === 0) return 0;
  const ascii = countAsciiWords(text);
  if (ascii >= 0) return ascii;
  WORD.lastIndex = 0;
  let n = 0;
  while (WORD.exec(text) !== null) n++;
  return n;
}

const isWordCode = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigitCode = (c: number) => c >= 48 && c <= 57;
/** No-break space, en/em dash, curly quotes (’ joins like '), ellipsis: frequent in transcripts, never word characters. */
const TYPOGRAPHIC = new Set([0xa0, 0x2013, 0x2014, 0x2018, 0x2019, 0x201c, 0x201d, 0x2026]);

/**
 * The same rule as the regular expression, as a plain loop for ASCII text plus common typographic
 * punctuation (most transcripts); several times faster. Returns -1 at the first other non-ASCII
 * character so the caller falls back to the Unicode regex (a property test checks both agree).
 */
export function countAsciiWords(text: string): number {
  let n = 0;
  let inWord = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    // Common typographic punctuation stays on the fast path; any other non-ASCII character does not.
    if (c > 127 && !TYPOGRAPHIC.has(c)) return -1;
    if (isWordCode(c)) {
      if (!inWord) n++;
      inWord = true;
      continue;
    }
    if (inWord && i + 1 < length) {
      const next = text.charCodeAt(i + 1);
      // A joiner keeps the word going only when a word character follows ('-' and '\'' any, '.' and ',' a digit).
      if ((c === 45 || c === 39 || c === 0x2019) && isWordCode(next)) continue;
      if ((c === 46 || c === 44) && isDigitCode(next)) continue;
    }
    inWord = false;
  }
  return n;
}
