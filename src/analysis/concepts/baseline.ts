import nlp from "compromise";
import { isStopWord } from "./stopwords.js";
import { singular } from "./tagger.js";

type Term = { text: string; normal?: string; tags: string[] };

/**
 * The slow reference: compromise's full pipeline, `nlp(text).nouns()`, reduced to concepts by
 * the same rule as the fast extractor (runs of nouns inside each noun phrase, stop-words
 * removed, last word singular). Used by bench/concepts.ts and the tests to measure how far the
 * fast extractor agrees with compromise; not used by the CLI.
 */
export function baselineConcepts(text: string): string[] {
  const phrases = nlp(text)
    .nouns()
    .json({ terms: { tags: true, normal: true } }) as { terms: Term[] }[];
  const out: string[] = [];
  for (const phrase of phrases) {
    let run: Term[] = [];
    const flush = () => {
      if (run.length > 0) {
        const words = run.map((t) => (t.normal ?? t.text).toLowerCase().replace(/['’]s$/, ""));
        if (run[run.length - 1].tags.includes("Plural")) words[words.length - 1] = singular(words[words.length - 1]);
        out.push(words.join(" "));
      }
      run = [];
    };
    for (const term of phrase.terms) {
      const word = (term.normal ?? term.text).toLowerCase().replace(/['’]s$/, "");
      const noun = term.tags.includes("Noun") && !term.tags.includes("Pronoun");
      if (/[,;—–-]\s*$/.test(term.text) && noun && !isStopWord(word)) {
        run.push(term);
        flush();
        continue;
      }
      if (noun && !isStopWord(word)) run.push(term);
      else flush();
      if (term.tags.includes("Possessive")) flush();
    }
    flush();
  }
  return out;
}

/** compromise's default noun phrases, as the baseline figure measures them. */
export function compromiseNouns(text: string): string[] {
  return nlp(text).nouns().out("array") as string[];
}
