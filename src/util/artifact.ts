import { join, resolve } from "node:path";
import type { z } from "zod";

/**
 * How a file of a study is named and read: the parts of the artifact registry that both the study
 * (its own files: src/study/artifacts.ts) and the analyses (the files each writes: their
 * descriptor.ts) use to define their files. Pure: names and paths, no file access.
 */

/** The folders of a study, relative to its root. */
export const STUDY_FOLDERS = {
  sessions: "sessions",
  codes: "codes",
  analysis: "analysis",
  site: "site",
  cache: ".cache",
  inbox: "inbox",
  /** Copies of sessions before `colloquy run --overwrite` replaced them; never read as sessions. */
  backups: "backups",
  /** Codebooks the study made itself (from an imported REFI-QDA project), by id. */
  codebooks: "codebooks",
  /** Jobs that outlive a process: the batches submitted to an LLM provider (batches.json), the journals of running sessions. */
  jobs: ".colloquy",
} as const;

/** "bytes": whatever was there (fragments moved out of a JSONL file), not records. */
export type ArtifactFormat = "json" | "jsonl" | "csv" | "bytes";

/**
 * One kind of study file. `P` are the parameters that name one file of the kind (a session id,
 * a codebook id, …); `T` is the type of its contents (of each line, for JSONL; the text, for CSV).
 */
export interface Artifact<P extends string[] = string[], T = unknown> {
  /** Registry key, e.g. "stats". */
  readonly name: string;
  /** What the file holds. */
  readonly description: string;
  /** Command that writes it, named in "re-run …" hints. */
  readonly writtenBy: string;
  /** Folder inside the study ("" = the study root). */
  readonly folder: "" | (typeof STUDY_FOLDERS)[keyof typeof STUDY_FOLDERS];
  readonly format: ArtifactFormat;
  /** Schema of the whole file (JSON) or of each line (JSONL); null for CSV tables. */
  readonly schema: z.ZodType<T> | null;
  /** A JSON file's arrays of per-session entries (paths of keys from the top), each written one compact entry per line (util/json-layout.ts); the rest is indented. */
  readonly lineArrays?: readonly string[];
  /** File name inside `folder`, e.g. "agreement-bales-ipa.json" (codes: "bales-ipa/human%3Aalice.jsonl"). */
  file(...params: P): string;
  /** Path relative to the study root, for messages: "analysis/agreement-bales-ipa.json". */
  relative(...params: P): string;
  /** Absolute path in the study folder `study`. */
  path(study: string, ...params: P): string;
  /** The parameters of a name returned by {@link file}, or null when the name is not of this kind. */
  match(file: string): P | null;
}

export interface ArtifactDefinition<P extends string[], T> {
  name: string;
  description: string;
  writtenBy: string;
  folder: Artifact["folder"];
  format: ArtifactFormat;
  schema: z.ZodType<T> | null;
  lineArrays?: readonly string[];
  file: (...params: P) => string;
  match: (file: string) => P | null;
}

export function defineArtifact<P extends string[], T>(d: ArtifactDefinition<P, T>): Artifact<P, T> {
  const relative = (...params: P) => (d.folder ? `${d.folder}/${d.file(...params)}` : d.file(...params));
  return {
    ...d,
    relative,
    path: (study: string, ...params: P) => join(resolve(study), d.folder, d.file(...params)),
  };
}

/** A file with one fixed name. */
export function fixed(name: string): { file: () => string; match: (file: string) => [] | null } {
  return { file: () => name, match: (file) => (file === name ? [] : null) };
}

/** A file named prefix + one parameter + suffix (the parameter may not contain "/"). */
export function named(prefix: string, suffix: string): { file: (param: string) => string; match: (file: string) => [string] | null } {
  return {
    file: (param) => `${prefix}${param}${suffix}`,
    match: (file) => {
      if (!file.startsWith(prefix) || !file.endsWith(suffix) || file.length <= prefix.length + suffix.length) return null;
      const param = file.slice(prefix.length, file.length - suffix.length);
      return param.includes("/") ? null : [param];
    },
  };
}
