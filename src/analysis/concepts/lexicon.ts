import { z } from "zod";
import { CliError } from "../../util/errors.js";
import { tokenize } from "./tokens.js";

/**
 * A user lexicon: multi-word terms kept as one concept ("design thinking", "bike lane")
 * and words never counted as concepts ("session", "facilitator").
 *
 * File formats:
 * - JSON: `{ "terms": ["design thinking"], "ignore": ["session"] }`
 * - plain text with sections, one entry a line, `#` comments:
 *   ```
 *   [terms]
 *   design thinking
 *   [ignore]
 *   session
 *   ```
 */
export interface Lexicon {
  /** Multi-word terms as lower-case word lists, longest first (greedy longest match). */
  terms: string[][];
  /** Lower-case words that are never concepts. */
  ignore: Set<string>;
  /** Where it came from (provenance). */
  source?: string;
}

export const emptyLexicon = (): Lexicon => ({ terms: [], ignore: new Set() });

const lexiconJsonSchema = z.object({ terms: z.array(z.string().min(1)).default([]), ignore: z.array(z.string().min(1)).default([]) }).strict();

/** Build a lexicon from term and ignore lists (normalised like turn text). */
export function makeLexicon(terms: readonly string[], ignore: readonly string[], source?: string): Lexicon {
  const termWords = terms
    .map((t) =>
      tokenize(t)
        .flat()
        .map((tok) => tok.word),
    )
    .filter((w) => w.length > 0)
    .sort((a, b) => b.length - a.length);
  const ignoreWords = new Set(
    ignore.flatMap((t) =>
      tokenize(t)
        .flat()
        .map((tok) => tok.word),
    ),
  );
  return { terms: termWords, ignore: ignoreWords, source };
}

/** Parse lexicon text; errors name the file and line and say how to fix them. */
export function parseLexicon(text: string, file: string): Lexicon {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new CliError(`${file}: not valid JSON (${(error as Error).message})`);
    }
    const parsed = lexiconJsonSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CliError(`${file}: ${issue.path.join(".") || "(root)"}: ${issue.message} (expected { "terms": [..], "ignore": [..] })`);
    }
    return makeLexicon(parsed.data.terms, parsed.data.ignore, file);
  }
  const terms: string[] = [];
  const ignore: string[] = [];
  let section: "terms" | "ignore" | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") return;
    const header = /^\[(.*)\]$/.exec(line);
    if (header) {
      const name = header[1].trim().toLowerCase();
      if (name !== "terms" && name !== "ignore") {
        throw new CliError(`${file}:${i + 1}: unknown section [${header[1]}]; use [terms] or [ignore]`);
      }
      section = name;
      return;
    }
    if (section === undefined) throw new CliError(`${file}:${i + 1}: "${line}" is outside a section; start with [terms] or [ignore]`);
    (section === "terms" ? terms : ignore).push(line);
  });
  return makeLexicon(terms, ignore, file);
}
