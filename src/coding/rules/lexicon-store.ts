import { answerStore } from "../../util/answer-store.js";
import { imperativeAnswers } from "./text.js";

/**
 * The rules coder's lookups in compromise's lexicon (is a word a base-form verb?), kept between
 * runs in `<study>/.cache/rules-lexicon.v8` (util/answer-store.ts): building the lexicon takes
 * 0.3-1 s, which a run coding one new session of a large study (issue 11) paid although earlier
 * runs had asked about nearly all its words. An answer depends on the word, compromise and the
 * rules coder's code: the store is kept per version of both (util/code-version.ts).
 */
const store = answerStore("rules-lexicon", () => [imperativeAnswers()]);

/** Add the answers stored by earlier runs of this study. */
export const loadLexiconAnswers = (study: string): Promise<void> => store.load(study);

/** Store the answers when some are not in the study's file yet. */
export const saveLexiconAnswers = (study: string): Promise<void> => store.save(study);
