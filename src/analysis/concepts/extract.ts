import { isStopWord } from "./stopwords.js";
import { classify, classifyMany, isKnown, resolveClasses, singular, type WordClass, type WordInfo } from "./tagger.js";
import { tokenize, type Token } from "./tokens.js";
import { emptyLexicon, type Lexicon } from "./lexicon.js";

/**
 * Noun concepts of one text. A concept is a noun compound: a run of adjacent nouns
 * ("bike lane", "city council"), lower case, with its last word made singular
 * ("bike lanes" -> "bike lane"). Adjectives and determiners are not part of a concept
 * ("the new app" -> "app"), so the same thing is counted as one concept however it is
 * described. Stop-words and fillers split or drop a run; lexicon terms are kept whole.
 * Concepts are returned in order of mention, with repeats.
 */
export interface ConceptExtractor {
  extract(text: string): string[];
  /**
   * Teach the extractor a corpus's vocabulary up front (compromise is asked about new words in
   * batches; much faster than word by word). Optional: `extract` classifies unseen words itself.
   */
  prepare(texts: Iterable<string>): void;
  readonly lexicon: Lexicon;
}

// Words ending in 's that are contractions of is/has/us, never possessive nouns.
const NOT_POSSESSIVE = new Set(["it", "that", "there", "what", "he", "she", "let", "here", "who", "where", "how", "everyone", "someone"]);

interface Word {
  word: string;
  info: WordInfo;
  breakBefore: boolean;
  /** Set when the token was a lexicon term (already the concept text). */
  term?: string;
}

/** The longest lexicon term starting at token `at` (a plural last word matches too), if any. */
function matchTerm(tokens: readonly Token[], at: number, lexicon: Lexicon): string[] | undefined {
  for (const term of lexicon.terms) {
    if (at + term.length > tokens.length) continue;
    let ok = true;
    for (let k = 0; k < term.length && ok; k++) {
      const w = tokens[at + k].word;
      const isLast = k === term.length - 1;
      ok = w === term[k] || (isLast && (singular(w) === term[k] || w === `${term[k]}s` || w === `${term[k]}'s`));
      if (k > 0 && tokens[at + k].breakBefore) ok = false;
    }
    if (ok) return term;
  }
  return undefined;
}

/** Build the extractor (stateless apart from compromise's per-word cache). */
export function createConceptExtractor(lexicon: Lexicon = emptyLexicon()): ConceptExtractor {
  const prepare = (texts: Iterable<string>): void => {
    let batch = new Set<string>();
    for (const text of texts) {
      for (const sentence of tokenize(text)) {
        for (const { word } of sentence) {
          batch.add(word);
          if (word.endsWith("'s")) batch.add(word.slice(0, -2));
        }
      }
      // Bounded batches keep compromise's document small.
      if (batch.size >= 2000) {
        classifyMany(batch);
        batch = new Set();
      }
    }
    classifyMany(batch);
  };
  const extract = (text: string): string[] => {
    const concepts: string[] = [];
    const sentences = tokenize(text);
    const unseen: string[] = [];
    for (const sentence of sentences) {
      for (const { word } of sentence) {
        if (!isKnown(word)) unseen.push(word);
        if (word.endsWith("'s") && !isKnown(word.slice(0, -2))) unseen.push(word.slice(0, -2));
      }
    }
    if (unseen.length > 0) classifyMany(unseen);
    for (const sentence of sentences) {
      const items: Word[] = [];
      const possessiveAt = new Set<number>();
      for (let i = 0; i < sentence.length;) {
        const term = lexicon.terms.length > 0 ? matchTerm(sentence, i, lexicon) : undefined;
        if (term !== undefined) {
          const text = term.join(" ");
          items.push({ word: text, term: text, info: { cls: "noun", plural: false }, breakBefore: sentence[i].breakBefore });
          i += term.length;
          continue;
        }
        const token = sentence[i];
        let word = token.word;
        const stem = word.endsWith("'s") ? word.slice(0, -2) : undefined;
        if (stem !== undefined && !NOT_POSSESSIVE.has(stem)) {
          const info = classify(stem);
          if (info.cls === "noun" || info.cls === "nounVerb") {
            possessiveAt.add(items.length);
            word = stem;
            items.push({ word, info: { cls: "noun", plural: info.plural }, breakBefore: token.breakBefore });
            i++;
            continue;
          }
        }
        items.push({ word, info: classify(word), breakBefore: token.breakBefore });
        i++;
      }
      const classes: WordClass[] = resolveClasses(
        items.map((it) => it.info),
        possessiveAt,
      );
      let run: Word[] = [];
      const flush = () => {
        if (run.length > 0) {
          const last = run[run.length - 1];
          const parts = run.map((w) => w.word);
          if (last.term === undefined && last.info.plural) parts[parts.length - 1] = singular(last.word);
          concepts.push(parts.join(" "));
        }
        run = [];
      };
      items.forEach((item, i) => {
        if (item.breakBefore) flush();
        if (item.term !== undefined) {
          flush();
          concepts.push(item.term);
          return;
        }
        // Ignore lists name the singular ("herb" also ignores "herbs").
        const stop = isStopWord(item.word, lexicon.ignore) || (item.info.plural && isStopWord(singular(item.word), lexicon.ignore));
        if (classes[i] === "noun" && !stop) run.push(item);
        else flush();
        if (possessiveAt.has(i)) flush();
      });
      flush();
    }
    return concepts;
  };
  return { extract, prepare, lexicon };
}
