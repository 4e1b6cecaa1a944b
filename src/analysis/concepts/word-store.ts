import { readFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { answerStore } from "../../util/answer-store.js";
import { compromiseVersion } from "../../util/compromise-version.js";
import { sha256 } from "../../util/hash.js";
import { learntWords } from "./tagger.js";

/**
 * The tagger's word classes and singulars, kept between runs in `<study>/.cache/word-classes.v8`
 * (util/answer-store.ts). The tagger asks compromise about each distinct word once per process;
 * loading compromise alone takes 0.35-1 s, which a run that adds one session to a large study
 * (issue 11) paid although nearly every word of the new session was classified in an earlier
 * run. With the answers of earlier runs known, compromise is loaded only when a word is new.
 * A word's class depends on the word, compromise and the tagger's rules only (never on the
 * other words of a batch), so a stored answer equals a fresh one.
 */
const store = answerStore(
  "word-classes",
  () => {
    const here = fileURLToPath(import.meta.url);
    return `${compromiseVersion()}\u0000${sha256(readFileSync(join(dirname(here), `tagger${extname(here)}`)))}`;
  },
  () => [learntWords().classes, learntWords().singulars],
);

/** Add the answers stored by earlier runs of this study to the tagger's. */
export const loadWordClasses = (study: string): Promise<void> => store.load(study);

/** Store the tagger's answers when it knows words the study's store does not hold. */
export const saveWordClasses = (study: string): Promise<void> => store.save(study);
