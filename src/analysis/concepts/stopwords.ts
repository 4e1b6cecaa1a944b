/**
 * Words that are never concepts even when a tagger calls them nouns: fillers and
 * backchannels of spoken conversation, pronoun-like nouns, and vague general nouns
 * ("thing", "lot", "way") that say nothing about what was discussed. Lower case.
 * A user lexicon can add to this list (`ignore`), never remove from it silently:
 * the report's provenance lists the lexicon used.
 */
export const FILLERS: ReadonlySet<string> = new Set([
  "um", "umm", "uh", "uhh", "erm", "er", "ah", "oh", "hmm", "hm", "mm", "mhm", "mmm", "uh-huh", "huh",
  "yeah", "yep", "yup", "yes", "no", "nope", "ok", "okay", "hey", "hi", "hello", "wow", "lol", "haha",
  "like", "well", "right", "sure", "please", "thanks", "thank",
]);

export const STOP_NOUNS: ReadonlySet<string> = new Set([
  "thing", "things", "stuff", "lot", "lots", "bit", "kind", "sort", "type", "way", "something", "anything",
  "everything", "nothing", "someone", "anyone", "everyone", "somebody", "anybody", "everybody", "nobody",
  "one", "ones", "guy", "guys", "folks",
  "i", "me", "my", "mine", "we", "us", "our", "ours", "you", "your", "yours", "he", "him", "his", "she",
  "her", "hers", "it", "its", "they", "them", "their", "theirs", "this", "that", "these", "those",
  "what", "which", "who", "whom", "whose", "there", "here", "etc",
]);

/** True when `word` (lower case) can never be a concept on its own. */
export function isStopWord(word: string, extra?: ReadonlySet<string>): boolean {
  // Single letters ("option b", "sin x") and tokens with digits (ids, "u02jonas", "3pm") are not concepts.
  return FILLERS.has(word) || STOP_NOUNS.has(word) || (extra?.has(word) ?? false) || word.length < 2 || /\d/.test(word);
}
