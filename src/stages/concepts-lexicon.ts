import { isAbsolute, resolve } from "node:path";
import type { StudyContext } from "./context.js";

/** The lexicon the stage would use: the option's path, else the config's (relative to the study). */
export function conceptsLexiconPath(context: StudyContext, option?: string): string | undefined {
  const configured = context.config.concepts.lexicon;
  return option ?? (configured ? (isAbsolute(configured) ? configured : resolve(context.paths.root, configured)) : undefined);
}
