import { answerStore } from "../../util/answer-store.js";
import { learntWords } from "./tagger.js";

/**
 * The tagger's word classes and singulars, kept between runs in `<study>/.cache/word-classes.v8`
 * (util/answer-store.ts). The tagger asks compromise about each distinct word once per process;
 * loading compromise alone takes 0.35-1 s, which a run that adds one session to a large study
 * (issue 11) paid although nearly every word of the new session was classified in an earlier
 * run. With the answers of earlier runs known, compromise is loaded only when a word is new.
 * A word's class depends on the word, compromise and the tagger's rules only (never on the
 * other words of a batch), so a stored answer equals a fresh one; the store is kept per version
 * of colloquy's code and compromise (util/code-version.ts).
 */
const store = answerStore("word-classes", () => [learntWords().classes, learntWords().singulars]);

/** Add the answers stored by earlier runs of this study to the tagger's. */
export const loadWordClasses = (study: string): Promise<void> => store.load(study);

/** Store the tagger's answers when it knows words the study's store does not hold. */
export const saveWordClasses = (study: string): Promise<void> => store.save(study);
