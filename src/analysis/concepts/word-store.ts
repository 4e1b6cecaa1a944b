import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deserialize, serialize } from "node:v8";
import { sha256 } from "../../util/hash.js";
import { writeFileAtomic } from "../../util/fs.js";
import { learntWords, type WordInfo } from "./tagger.js";

/**
 * The tagger's word classes and singulars, kept between runs in `<study>/.cache/word-classes.v8`.
 * The tagger asks compromise about each distinct word once per process; loading compromise
 * alone takes 0.35-1 s, which a run that adds one session to a large study (issue 11) paid
 * although nearly every word of the new session was classified in an earlier run. With the
 * answers of earlier runs known, compromise is loaded only when a word is new.
 *
 * A word's class depends on the word, compromise and the tagger's rules only (never on the
 * other words of a batch), so a stored answer equals a fresh one; the file is used only under
 * the compromise version and tagger code that wrote it. A cache: a missing, torn or foreign file
 * is ignored, and deleting .cache/ is safe.
 */

interface WordFile {
  version: string;
  classes: [string, WordInfo][];
  singulars: [string, string][];
}

const storePath = (study: string) => join(study, ".cache", "word-classes.v8");

let version: string | undefined;
/** compromise's version and the tagger's code: what a stored answer depends on. */
function storeVersion(): string {
  if (version === undefined) {
    const here = fileURLToPath(import.meta.url);
    const tagger = readFileSync(join(dirname(here), `tagger${extname(here)}`));
    version = sha256(`${compromiseVersion()}\u0000${process.versions.v8}\u0000${sha256(tagger)}`);
  }
  return version;
}

/** The installed compromise's version, read from its package.json (resolving does not load it). */
function compromiseVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve("compromise"));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "compromise") return String(pkg.version);
    } catch {
      // No package.json here: look further up.
    }
    const up = dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
}

/** Entries the study's store holds (as read or last written): a save that would add none is skipped. */
const storedSizes = new Map<string, number>();
const size = () => learntWords().classes.size + learntWords().singulars.size;

/** Add the answers stored by earlier runs of this study to the tagger's. */
export async function loadWordClasses(study: string): Promise<void> {
  const { classes, singulars } = learntWords();
  storedSizes.set(study, 0);
  try {
    const file = deserialize(await readFile(storePath(study))) as WordFile;
    if (file?.version === storeVersion() && Array.isArray(file.classes) && Array.isArray(file.singulars)) {
      for (const [word, info] of file.classes) if (!classes.has(word)) classes.set(word, info);
      for (const [word, one] of file.singulars) if (!singulars.has(word)) singulars.set(word, one);
      storedSizes.set(study, file.classes.length + file.singulars.length);
    }
  } catch {
    // Missing or unreadable: the words are asked again.
  }
}

/** Store the tagger's answers when it knows words the study's store does not hold. */
export async function saveWordClasses(study: string): Promise<void> {
  // Every entry is kept (never replaced), so equal sizes mean the same entries.
  if (storedSizes.get(study) === size()) return;
  const { classes, singulars } = learntWords();
  await writeFileAtomic(storePath(study), serialize({ version: storeVersion(), classes: [...classes], singulars: [...singulars] } satisfies WordFile));
}
