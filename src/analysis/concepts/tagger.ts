import type compromise from "compromise";
import { onFirstUse } from "../../util/on-first-use.js";

/**
 * A fast, context-light part-of-speech layer over compromise.
 *
 * Why: compromise's full pipeline (`nlp(text).nouns()`) runs at ~0.1 MB/s, too slow for large
 * corpora. Conversational text has a small vocabulary (Heaps' law), so we ask compromise about
 * each distinct word once, in two frames ("word" alone and "the word"), cache the answer, and
 * settle the noun-or-verb words ("plan", "design", "bikes") from their left neighbour with a
 * few rules. bench/concepts.ts measures speed and agreement with the full pipeline.
 */
export type WordClass =
  | "noun" // noun in any frame (not a pronoun)
  | "nounVerb" // verb alone, noun after "the": decided by context
  | "adj"
  | "det"
  | "pron"
  | "possessive" // my, our, their…
  | "prep"
  | "modal" // could, would, might…: the next word is a verb ("could water")
  | "aux" // auxiliaries, copulas, contractions, "to"
  | "verb"
  | "adverb"
  | "num"
  | "other";

export interface WordInfo {
  cls: WordClass;
  /** compromise tagged it plural in its noun reading. */
  plural: boolean;
  /** Its verb reading is the base form ("garden", "plan"), not the -s form ("reminds"). */
  baseForm?: boolean;
  /** A noun that reads as a verb after a subject ("we water"): a verb after pronouns, modals, "to". */
  verbAfterSubject?: boolean;
}

type TermJson = { terms: { tags: string[] }[] };

function tagsOf(text: string, index: number): string[] | undefined {
  const json = nlp(text).json({ terms: { tags: true } }) as TermJson[];
  const terms = json.flatMap((s) => s.terms);
  return terms.length === index + 1 ? terms[index].tags : undefined;
}

/** Map compromise tags of a word (bare frame, "the" frame) to a class. Exported for tests. */
export function classFromTags(bare: readonly string[], afterThe: readonly string[] | undefined): WordInfo {
  const has = (t: string) => bare.includes(t);
  const nounAfterThe = (afterThe?.includes("Noun") ?? false) && !(afterThe?.includes("Pronoun") ?? false);
  const plural = has("Plural") || (afterThe?.includes("Plural") ?? false);
  if (has("Possessive") && has("Pronoun")) return { cls: "possessive", plural: false };
  if (has("Pronoun") || has("QuestionWord")) return { cls: "pron", plural: false };
  if (has("Determiner")) return { cls: "det", plural: false };
  if (has("Value")) return { cls: "num", plural: false };
  if (has("Noun")) return { cls: "noun", plural };
  if (has("Preposition")) return { cls: "prep", plural: false };
  if (has("Modal")) return { cls: "modal", plural: false };
  if (has("Auxiliary") || has("Copula")) return { cls: "aux", plural: false };
  if (has("Verb")) return { cls: nounAfterThe ? "nounVerb" : "verb", plural, baseForm: has("Infinitive") };
  if (has("Adjective")) return { cls: "adj", plural: false };
  if (has("Adverb")) return { cls: "adverb", plural: false };
  return { cls: nounAfterThe && !has("Expression") && !has("Conjunction") ? "nounVerb" : "other", plural };
}

const cache = new Map<string, WordInfo>();
const singularCache = new Map<string, string>();
type World = { model: unknown; methods: { two: { transform: { noun: { toSingular: (word: string, model: unknown) => string } } } } };

// compromise is loaded on first use: loading it takes ~0.35 s, and most commands never tag a word
// (every CLI command used to pay for it at start-up).
const library = onFirstUse<typeof compromise>("compromise");
let loadedWorld: World | undefined;
function nlp(text: string): ReturnType<typeof compromise> {
  return library()(text);
}
function world(): World {
  if (!loadedWorld) {
    nlp("");
    loadedWorld = library().world() as unknown as World;
  }
  return loadedWorld;
}

/** Class of one lower-case word from its tags in the three frames (bare, "the w", "we can w"). */
function infoFromFrames(bare: readonly string[], afterThe: readonly string[] | undefined, afterModal: readonly string[] | undefined): WordInfo {
  const info = classFromTags(bare, afterThe);
  if (info.cls === "noun") info.verbAfterSubject = afterModal?.includes("Verb") ?? false;
  return info;
}

// Auxiliary verbs compromise may read as nouns in isolation ("the do", "the will").
const AUXILIARIES: ReadonlySet<string> = new Set([
  "to",
  "do",
  "does",
  "did",
  "done",
  "be",
  "been",
  "being",
  "am",
  "is",
  "are",
  "was",
  "were",
  "have",
  "has",
  "had",
  "will",
  "shall",
]);

// Words whose class is fixed without asking compromise: contractions (don't, it's, we'll,
// let's) end in a verb part and are never nouns ("council's" is handled by the caller);
// auxiliaries and "to" come before verbs.
function fixedClass(word: string): WordInfo | undefined {
  if (word.includes("'") || AUXILIARIES.has(word)) return { cls: "aux", plural: false };
  // Question determiners: "which logo", "what colour" read like "the logo".
  if (word === "which" || word === "what" || word === "whose") return { cls: "det", plural: false };
  // "the round one clashes": a pronoun, so the next word is not read as its noun.
  if (word === "one" || word === "ones") return { cls: "pron", plural: false };
  return undefined;
}

/**
 * The tagger's answers so far (word -> class, plural -> singular): the maps themselves, so that
 * the stages can keep them between runs and add those of earlier runs. An entry is never
 * changed once made, and depends on the word alone.
 */
export function learntWords(): { classes: Map<string, WordInfo>; singulars: Map<string, string> } {
  return { classes: cache, singulars: singularCache };
}

/** Has this word been classified already? */
export function isKnown(word: string): boolean {
  return cache.has(word);
}

/** Class of one lower-case word, asking compromise once per distinct word. */
export function classify(word: string): WordInfo {
  let info = cache.get(word);
  if (info === undefined) {
    info = fixedClass(word) ?? infoFromFrames(tagsOf(word, 0) ?? [], tagsOf(`the ${word}`, 1), tagsOf(`we can ${word}`, 2));
    cache.set(word, info);
  }
  return info;
}

/**
 * Classify many new words with one compromise call: each word becomes three one-line
 * sentences ("w.", "the w.", "we can w."), so compromise's per-call cost is paid once per
 * batch instead of three times per word. When compromise splits the batch differently from
 * what we sent (an abbreviation swallowing a full stop) the batch is halved until it lines up;
 * a word compromise splits into several terms falls back to `classify`.
 */
export function classifyMany(words: Iterable<string>): void {
  const fresh = [...new Set(words)].filter((w) => !cache.has(w));
  const asked: string[] = [];
  for (const w of fresh) {
    const fixed = fixedClass(w);
    if (fixed) cache.set(w, fixed);
    else if (/^[\p{L}][\p{L}-]*$/u.test(w)) asked.push(w);
  }
  classifyBatch(asked);
}

function classifyBatch(asked: readonly string[]): void {
  if (asked.length === 0) return;
  if (asked.length === 1) {
    classify(asked[0]);
    return;
  }
  const text = asked.map((w) => `${w}.\nthe ${w}.\nwe can ${w}.`).join("\n");
  const sentences = (nlp(text).json({ terms: { tags: true, normal: true } }) as { terms: { normal: string; tags: string[] }[] }[]).map((s) => s.terms);
  if (sentences.length !== asked.length * 3) {
    // Sentences merged or split somewhere (an abbreviation): halve until it lines up.
    const half = Math.ceil(asked.length / 2);
    classifyBatch(asked.slice(0, half));
    classifyBatch(asked.slice(half));
    return;
  }
  asked.forEach((w, i) => {
    const [a, b, c] = sentences.slice(i * 3, i * 3 + 3);
    const aligned = a.length === 1 && b.length === 2 && c.length === 3 && a[0].normal === w && b[1].normal === w && c[2].normal === w;
    // A word compromise splits ("mm-hmm" -> mm, hmm) is asked on its own, as classify does.
    if (aligned) cache.set(w, infoFromFrames(a[0].tags, b[1].tags, c[2].tags));
    else classify(w);
  });
}

/** Singular form of a plural noun (compromise's inflector: "children" -> "child"), cached. */
export function singular(word: string): string {
  let s = singularCache.get(word);
  if (s === undefined) {
    s = world().methods.two.transform.noun.toSingular(word, world().model) || word;
    singularCache.set(word, s);
  }
  return s;
}

/** Classes after which a noun-or-verb word reads as a noun ("the plan", "new designs", "of bikes"). */
const NOUN_CONTEXT: ReadonlySet<WordClass> = new Set(["det", "adj", "possessive", "prep", "num"]);

/** Classes after which a noun that can be a verb reads as a verb ("we water", "could design", "to plan"). */
const VERB_CONTEXT: ReadonlySet<WordClass> = new Set(["pron", "aux", "modal", "adverb"]);

/**
 * Resolve the noun-or-verb words of a sentence from their left neighbour: noun after a
 * determiner, adjective, possessive, preposition, number or verb, and as a base form after a
 * singular noun ("community garden"); verb otherwise ("the game reminds", "robots water"). Nouns that can
 * be verbs ("design") become verbs after a pronoun, auxiliary or adverb ("we design"), and
 * any noun becomes a verb right after a modal ("could water").
 */
export function resolveClasses(infos: readonly WordInfo[], possessiveAt: ReadonlySet<number>): WordClass[] {
  const out: WordClass[] = [];
  for (let i = 0; i < infos.length; i++) {
    let cls = infos[i].cls;
    if (cls === "nounVerb") {
      const prev = i > 0 ? out[i - 1] : undefined;
      const afterPossessiveNoun = i > 0 && possessiveAt.has(i - 1);
      // After a verb it is the verb's object ("design bikes", "water plants").
      // A base form right after a singular noun is a compound ("community garden"): a singular
      // subject would take the -s form ("the game reminds").
      const compound = prev === "noun" && infos[i].baseForm === true && !infos[i - 1].plural;
      if (prev !== undefined && (NOUN_CONTEXT.has(prev) || prev === "verb" || afterPossessiveNoun || compound)) cls = "noun";
      else cls = "verb";
    } else if (cls === "noun" && i > 0 && (out[i - 1] === "modal" || (infos[i].verbAfterSubject && VERB_CONTEXT.has(out[i - 1])))) {
      cls = "verb";
    }
    out.push(cls);
  }
  return out;
}
