import { createRequire } from "node:module";

/**
 * Text preparation shared by the rules: normalised lower-case text, sentences and words.
 * compromise's lexicon (24k words) tells which sentence-initial words are base-form verbs,
 * i.e. imperatives. Its part-of-speech tagger and even its tokenizer cost ~1 ms per turn, far
 * over the >= 5,000 turns/s budget, so sentences are split by a regex pass (below) and the
 * analysis is cached per distinct text (chat repeats "ok", "thanks", "yes" constantly).
 */

/** One sentence of a turn, in its original wording and lower-cased with normalised quotes. */
export interface Sentence {
  raw: string;
  lower: string;
  /** Word tokens of `lower` (letters, digits, apostrophes). */
  words: string[];
  question: boolean;
}

export interface TurnText {
  raw: string;
  /** Lower-cased, curly quotes straightened, whitespace collapsed. */
  lower: string;
  sentences: Sentence[];
  words: string[];
}

/** Straighten typographic quotes so patterns can use plain apostrophes. */
export function normalise(text: string): string {
  return text
    .replace(/[\u2018\u2019\u02bc\u2032]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, " ")
    .trim();
}

const wordPattern = /[a-z0-9]+(?:'[a-z]+)?/g;

export function wordsOf(lower: string): string[] {
  return lower.match(wordPattern) ?? [];
}

/** A sentence boundary candidate: terminal punctuation, then space and another character. */
const maybeSeveral = /[.!?]\s+\S|\n/;

/** Words whose trailing period is not a sentence end ("Dr. Smith", "e.g. this"). */
const abbreviations = new Set(
  "mr mrs ms dr prof sr jr st vs etc e.g i.e eg ie approx inc ltd dept fig jan feb apr jun jul aug sep sept oct nov dec".split(" "),
);

/**
 * Split a turn into sentences. compromise's tokenizer does this well but costs ~1 ms per turn on
 * a loaded machine, five times the whole per-turn budget, so we split with one regex pass and
 * the abbreviation list above (decimals, URLs and file names have no space after the period).
 * Chat boundaries without a capital letter ("thing? what do u think") are boundaries too.
 */
export function splitSentences(text: string): string[] {
  if (!maybeSeveral.test(text)) return [text];
  const parts: string[] = [];
  let start = 0;
  const boundary = /([.!?]+["')\]]*)(\s+)(?=\S)|\n+/g;
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) {
    const end = m.index + (m[1]?.length ?? 0);
    if (m[1]?.startsWith(".") && m[1].length === 1) {
      const before = /([A-Za-z.]+)$/.exec(text.slice(start, m.index))?.[1]?.toLowerCase() ?? "";
      // "Dr." or an initial ("J. Smith") does not end a sentence; neither does a lower-case continuation.
      if (abbreviations.has(before) || /^[a-z]$/.test(before) || /^[a-z]/.test(text.slice(m.index + m[0].length))) continue;
    }
    const piece = text.slice(start, end).trim();
    if (piece) parts.push(piece);
    start = m.index + m[0].length;
  }
  const tail = text.slice(start).trim();
  if (tail) parts.push(tail);
  return parts.length > 0 ? parts : [text];
}

/** Chat often drops the question mark: "how long do we have again", "which endpoint gives me…". */
const whOpening = /^(\w+,? )?(what|when|where|which|who|whom|whose|why|how|any)\b(?! (if|a|an|the)\b)/;
/** "is it ok", "do we have": an auxiliary counts only with a subject after it ("is great" is a fragment). */
const auxOpening =
  /^(\w+,? )?(is|are|was|were|do|does|did|can|could|will|should|shall|have|has) (you|u|we|i|they|it|this|that|there|he|she|anyone|everyone|someone|y'all)\b/;

/** Trailing laughter or emoji after a question ("what are we building lol"). */
const trailingNoise = /(\s+(lol|haha+|lmao|:\)|:d))+\s*$|[\s\p{Extended_Pictographic}\u200d\ufe0f]+$/u;

function isQuestion(lower: string): boolean {
  const core = lower.replace(trailingNoise, "");
  if (/\?[\s"')\]]*$/.test(core)) return true;
  if (/[.!]$/.test(core)) return false;
  return whOpening.test(core) || auxOpening.test(core);
}

function sentence(piece: string): Sentence {
  const raw = piece.trim();
  const lower = normalise(raw).toLowerCase();
  return { raw, lower, words: wordsOf(lower), question: isQuestion(lower) };
}

const cache = new Map<string, TurnText>();
const CACHE_LIMIT = 20_000;

/** Analyse a turn's text (cached: identical texts such as "ok" are analysed once). */
export function analyseText(raw: string): TurnText {
  const hit = cache.get(raw);
  if (hit) return hit;
  // Split before collapsing whitespace: line breaks separate list items and sentences.
  const text = normalise(raw);
  const lines = raw.replace(/[ \t]+/g, " ").trim();
  const sentences = text
    ? splitSentences(lines)
        .map(sentence)
        .filter((s) => s.lower.length > 0)
    : [];
  const lower = text.toLowerCase();
  const result: TurnText = { raw, lower, sentences, words: wordsOf(lower) };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(raw, result);
  return result;
}

/**
 * compromise's lexicon, loaded on first use: building it takes 0.3-1 s, which every CLI command
 * would otherwise pay at start-up just because the rules module is imported. `require` keeps the
 * coder synchronous (the CommonJS build has the same 24k-word lexicon as the ES build).
 */
let lexicon: Record<string, string | string[]> | undefined;
function compromiseLexicon(): Record<string, string | string[]> {
  if (!lexicon) {
    const nlp = createRequire(import.meta.url)("compromise") as { world(): { model: { one: { lexicon: Record<string, string | string[]> } } } };
    lexicon = nlp.world().model.one.lexicon;
  }
  return lexicon;
}

/**
 * Work verbs that compromise's lexicon lists as nouns ("check", "review") but that open
 * imperatives in team chat ("check the logs", "review my PR").
 */
const extraImperatives = new Set(
  "add ask book build call change check clean commit copy create cut delete deploy describe double draft drop email fix focus follow grab include list log look loop mark merge move note open pick ping plan post prepare push put read rename reply restart revert review rewrite run schedule send set share ship show sketch skip sort split start stop submit summarize summarise switch tag test text try turn update upload use walk wrap write".split(
    " ",
  ),
);

/**
 * What compromise's lexicon says of words (a base-form verb or not), so that a run that knows
 * them from earlier runs (kept in the study's memo: study/memo.ts keepAnswers) never loads compromise. Once the lexicon is
 * loaded, every base-form verb in it is put here with {@link LEXICON_COMPLETE}: from then on (and
 * in later runs, from the store) a word that is not here is not one, and a session with words no
 * earlier run met does not load compromise again (0.25 s of a run that adds one session, issue 11).
 */
const lexiconAnswers = new Map<string, boolean>();

/** The key that says lexiconAnswers holds every base-form verb of the lexicon (not a word: words have no NUL). */
export const LEXICON_COMPLETE = "\0complete";

/** The lexicon's answers so far (the map itself: the code stage adds earlier runs' and keeps them). */
export function imperativeAnswers(): Map<string, boolean> {
  return lexiconAnswers;
}

const isInfinitive = (tag: unknown) => (Array.isArray(tag) ? tag.includes("Infinitive") : tag === "Infinitive");

/** True when `word` can open an imperative sentence (a base-form verb). */
export function isImperativeVerb(word: string): boolean {
  if (extraImperatives.has(word)) return true;
  const answer = lexiconAnswers.get(word);
  if (answer !== undefined) return answer;
  if (lexiconAnswers.has(LEXICON_COMPLETE)) return false;
  // Object.hasOwn: "constructor" is not in the lexicon, though every object answers to it.
  const lexicon = compromiseLexicon();
  for (const [entry, tag] of Object.entries(lexicon)) if (isInfinitive(tag)) lexiconAnswers.set(entry, true);
  lexiconAnswers.set(LEXICON_COMPLETE, true);
  return Object.hasOwn(lexicon, word) && isInfinitive(lexicon[word]);
}

/** Forget cached analyses and lexicon answers (benchmarks measure cold throughput with it). */
export function clearTextCache(): void {
  cache.clear();
  lexiconAnswers.clear();
}
