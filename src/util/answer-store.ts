import { join } from "node:path";
import { codeVersion } from "./code-version.js";
import { readStampedFile, writeStampedFile } from "./stamped-file.js";

/**
 * In-process caches of answers that depend on one key alone (a word's class, a word's
 * lexicon entry), kept between runs in `<study>/.cache/<name>.v8`, so that a run that adds
 * one session to a large study does not load a slow library (compromise: 0.35-1 s) to ask
 * again what earlier runs already asked (issue 11). The file is used only under the code version
 * that wrote it (util/code-version.ts: colloquy's modules, which turn the library's answers into
 * ours, the library's version and V8's serializer); a missing, torn or foreign file is ignored,
 * and deleting .cache/ is safe.
 * Entries are only ever added, never changed, so a store holds the same answers a fresh
 * process would compute.
 */
export interface AnswerStore {
  /** Add the answers stored by earlier runs of this study to the maps (entries already there win). */
  load(study: string): Promise<void>;
  /** Write the maps when they hold answers the study's file does not. */
  save(study: string): Promise<void>;
}

export function answerStore(name: string, maps: () => readonly Map<string, unknown>[]): AnswerStore {
  const path = (study: string) => join(study, ".cache", `${name}.v8`);
  /** Entries the study's file holds (as read or last written): equal to the maps' size, nothing to add. */
  const stored = new Map<string, number>();
  const size = () => maps().reduce((n, m) => n + m.size, 0);
  return {
    async load(study) {
      stored.set(study, 0);
      const lists = (await readStampedFile<{ maps: unknown }>(path(study), "version", codeVersion()))?.maps;
      if (!Array.isArray(lists) || lists.length !== maps().length) return;
      try {
        maps().forEach((map, i) => {
          for (const [key, value] of lists[i] as [string, unknown][]) if (!map.has(key)) map.set(key, value);
        });
        stored.set(
          study,
          (lists as unknown[][]).reduce((n, list) => n + list.length, 0),
        );
      } catch {
        // Lists that are not lists of pairs (a foreign file): the rest is asked again.
      }
    },
    async save(study) {
      // Entries are only added, so after load equal sizes mean the file holds every answer.
      if (stored.get(study) === size()) return;
      await writeStampedFile(path(study), "version", codeVersion(), { maps: maps().map((m) => [...m]) });
      stored.set(study, size());
    },
  };
}
