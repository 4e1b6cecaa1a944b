/**
 * Tokeniser for concept extraction and lexical measures. It only reads the turn text
 * (which is never altered); tokens are lower-cased copies of the words.
 */

/** One word of a turn. */
export interface Token {
  /** Lower-cased word as written (apostrophes normalised to '). */
  word: string;
  /** Punctuation (comma, dash, bracket…) separated this word from the previous one. */
  breakBefore: boolean;
}

// Letters/digits with inner apostrophes or hyphens ("council's", "e-mail", "don't").
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*(?:-[\p{L}\p{N}]+)*/gu;
// Sentence ends: a noun compound never spans them and contextual rules restart.
const SENTENCE_END = /[.!?;:\n]+/;

const isSpace = (c: number) => c === 32 || c === 9 || c === 13 || c === 10 || c === 160;
const normaliseWord = (w: string) => {
  const lower = w.toLowerCase();
  return lower.includes("’") ? lower.replace(/’/g, "'") : lower;
};

/** Split text into sentences of tokens. */
export function tokenize(text: string): Token[][] {
  const sentences: Token[][] = [];
  for (const part of text.split(SENTENCE_END)) {
    const tokens: Token[] = [];
    let last = 0;
    for (const match of part.matchAll(WORD)) {
      // Any non-space character between two words (comma, dash, bracket) is a break.
      let breakBefore = false;
      if (tokens.length > 0) {
        for (let k = last; k < match.index && !breakBefore; k++) breakBefore = !isSpace(part.charCodeAt(k));
      }
      tokens.push({ word: normaliseWord(match[0]), breakBefore });
      last = match.index + match[0].length;
    }
    if (tokens.length > 0) sentences.push(tokens);
  }
  return sentences;
}

/** All words of a text, lower case, in order (for MTLD and words per utterance). */
export function words(text: string): string[] {
  return [...text.matchAll(WORD)].map((m) => normaliseWord(m[0]));
}
