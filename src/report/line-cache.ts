import { join } from "node:path";
import { codeVersion } from "../util/code-version.js";
import { openKeyedLog } from "../util/keyed-log.js";

/**
 * What a line of an analysis file gave the bundle: its entries as compact JSON joined by commas
 * (empty when none), in UTF-8, and how many. Bytes, not a string: loaded from the cache, they are views
 * into its file's bytes (nothing made anew), and the data file's writer puts them in place without
 * encoding them again.
 */
export interface ShapedLine {
  text: Uint8Array;
  entries: number;
}

/**
 * An array of the bundle made from an analysis file's lines (one per session) and written into
 * the data file as text (src/report/site.ts splices `texts` in its place, at `path`). A line met
 * by an earlier build gives the same text, so the build keeps it (LineCache) instead of parsing
 * and shaping 20 MB of concepts and topics again when one session was added (issue 11).
 */
export interface ShapedLines {
  /** Where the entries go in the bundle ("concepts.firstMentions"). */
  path: string;
  /** The entries' texts in UTF-8 (as ShapedLine's). */
  texts: Uint8Array[];
  entries: number;
}

/** How a line of an analysis file becomes the text of its entries in the bundle (src/report/shape/analysis.ts has one per file read so). */
export interface LineShaper {
  /** The file's array written one entry per line (its registry `lineArrays`), read element by element in the descriptor's `shown`. */
  member: string;
  /** Where its entries go in the bundle. */
  path: string;
  /** The bundle entries of one entry of `member` as read (the `shown` fields, checked). */
  shape(entry: unknown): ShapedLine;
}

/**
 * How a whole analysis file becomes the text of its entries in the bundle (agreement files: their
 * sets, disagreement rows included, are read, checked and shaped again only when the bytes of
 * what the descriptor's `shown` names, provenance aside, changed; src/report/load.ts readAnalysisFiles).
 */
export interface WholeShaper {
  /** The bundle entries of one valid file's shown part (`file`: its name in analysis/); throws when it has nothing to draw. */
  shape(file: string, value: unknown): ShapedLine;
}

const isShaped = (v: unknown): v is ShapedLine =>
  typeof v === "object" && v !== null && (v as ShapedLine).text instanceof Uint8Array && Number.isInteger((v as ShapedLine).entries);

/**
 * What the dashboard's build made of each line of the analysis files it reads by their lines
 * (concepts.json's sessions, topics.json's trees), by the line's analysis and digest, and of each
 * file it shapes whole (WholeShaper), by its name and the digest of its shown members but its provenance, kept in
 * `<study>/.cache/report-lines.v8` under the code version that made it (util/code-version.ts): a
 * line is a function of its bytes and the code, so a kept text equals a fresh one. The file holds
 * the lines the last build used (a log: util/keyed-log.ts); a missing, torn or foreign file is
 * ignored, and deleting .cache/ is safe.
 */
export interface LineCache {
  get(key: string): ShapedLine | undefined;
  set(key: string, shaped: ShapedLine): void;
  /** Write the lines used by this build, when they are not what the file holds. */
  save(): Promise<void>;
}

export async function openLineCache(study: string): Promise<LineCache> {
  const log = await openKeyedLog<unknown>(join(study, ".cache", "report-lines.v8"), codeVersion());
  const used = new Map<string, ShapedLine>();
  const added: string[] = [];
  return {
    get(key) {
      const shaped = used.get(key) ?? log.stored.get(key);
      if (!isShaped(shaped)) return undefined;
      used.set(key, shaped);
      return shaped;
    },
    set(key, shaped) {
      used.set(key, shaped);
      added.push(key);
    },
    async save() {
      // A log: a build that met a few new lines appends them (the file is ~13 MB at 100,000 turns).
      await log.save(used, added);
      added.length = 0;
    },
  };
}
