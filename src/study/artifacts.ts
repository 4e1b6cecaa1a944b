import { readFile } from "node:fs/promises";
import { defineArtifact, fixed, named, STUDY_FOLDERS, type Artifact } from "../util/artifact.js";
import { z } from "zod";
import { CliError, errorMessage } from "../util/errors.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { jsonWithLineArrays } from "../util/json-layout.js";
import { formatPath } from "../transcript/validate.js";
import { sessionSchema, type Session } from "../transcript/schema.js";
import { codeFailureSchema, staleCodeSchema, codesFileLineSchema, type CodeFailure, type CodesFileLine, type StaleCode } from "../coding/records.js";
import { provenanceSchema } from "../util/provenance-schema.js";
import { studyConfigSchema, type StudyConfig } from "./config.js";
import { batchLedgerSchema, type BatchLedger } from "../llm/batch/ledger.js";

/**
 * The artifact registry of the study's own files (config, state, sessions, codes, ...), each as
 * {name, path, schema}; the files each analysis writes are defined in its descriptor
 * (src/analysis/<analysis>/descriptor.ts) and the report's in src/report/files.ts, with the same
 * `defineArtifact` (src/util/artifact.ts). Writers and readers take paths from these and readers
 * validate with the schema, so a file name is spelled once in src/ and a wrong or old file is
 * reported naming its first invalid field.
 *
 * Folders of a study: colloquy.json, sessions/, codes/, analysis/, site/, .cache/, inbox/, backups/ (see
 * ARCHITECTURE.md). `artifacts.session.path(study, "d1")` is `<study>/sessions/d1.json`;
 * `artifacts.codes.path(study, "bales-ipa", "human:alice")` is `<study>/codes/bales-ipa/human%3Aalice.jsonl`.
 */

/** Coder ids may contain ':' or spaces (human:alice); file names percent-encode them, reversibly. */
export function coderFileName(coder: string): string {
  return encodeURIComponent(coder);
}

/** A codes file: `<codebook>/<encoded coder><suffix>`. */
function perCoder(
  suffix: string,
  not: readonly string[] = [],
): { file: (codebook: string, coder: string) => string; match: (file: string) => [string, string] | null } {
  return {
    file: (codebook, coder) => `${codebook}/${coderFileName(coder)}${suffix}`,
    match: (file) => {
      const parts = file.split("/");
      if (parts.length !== 2 || !parts[1].endsWith(suffix) || not.some((n) => parts[1].endsWith(n))) return null;
      const encoded = parts[1].slice(0, -suffix.length);
      if (!encoded) return null;
      try {
        return [parts[0], decodeURIComponent(encoded)];
      } catch {
        return null;
      }
    },
  };
}

/**
 * `.colloquy-state.json`: what the incremental pipeline remembers between runs. Plain objects
 * (unknown fields dropped on read), so `PipelineStateFile` can be the pipeline's own type.
 */
export const pipelineStateSchema = z.object({
  version: z.literal(1),
  /** Per stage: the fingerprint of the inputs it last finished with. */
  stages: z.record(z.string(), z.object({ fingerprint: z.string(), finishedAt: z.string(), seconds: z.number(), summary: z.string() })),
  /** Inbox files already imported: path relative to inbox/ -> content hash. */
  imported: z.record(z.string(), z.string()),
  /** Fingerprint of the import settings (path pattern, format) the inbox was imported with. */
  importSettings: z.string().optional(),
  /**
   * File hashes remembered with the file's stamp: path -> [size, mtimeMs, ctimeMs, ino, hash];
   * [size, mtimeMs, hash] in state files written before ctime and inode were stamped (such files
   * are hashed again, and the state stays readable).
   */
  hashes: z
    .record(z.string(), z.union([z.tuple([z.number(), z.number(), z.number(), z.number(), z.string()]), z.tuple([z.number(), z.number(), z.string()])]))
    .optional(),
  /**
   * The code stage's inputs when it last finished with every turn coded: each session file's
   * hash, and one fingerprint of everything else (codes, codebooks, coders, model), so the next
   * run codes only the sessions that are new or changed when nothing else is.
   */
  codeInputs: z
    .object({ sessions: z.record(z.string(), z.string()), rest: z.string(), coded: z.record(z.string(), z.array(z.string())).optional() })
    .optional(),
  /** The end-of-run dashboard warnings and the fingerprint of what they were worked out from. */
  emptyViews: z.object({ fingerprint: z.string(), warnings: z.array(z.string()) }).optional(),
});
export type PipelineStateFile = z.infer<typeof pipelineStateSchema>;

/** `.colloquy-imports.json`: source file#session -> study session id, so re-imports replace sessions. */
export const importMapSchema = provenanceSchema.extend({
  note: z.string().optional(),
  sessions: z.record(z.string(), z.string()),
});
export type ImportMapFile = z.infer<typeof importMapSchema>;

/** `.colloquy.lock`: the command writing to the study now (one writer at a time: src/study/lock.ts). */
export const studyLockSchema = z.object({
  pid: z.number().int(),
  host: z.string(),
  /** The machine's boot id (Linux): a lock of an earlier boot is stale, whatever process has its pid now. */
  boot: z.string().optional(),
  command: z.string(),
  startedAt: z.string(),
});
export type StudyLockFile = z.infer<typeof studyLockSchema>;

/** Every file a study holds. */
export const artifacts = {
  config: defineArtifact<[], StudyConfig>({
    name: "config",
    description: "study configuration: codebooks, coders, control condition, collapses, model settings",
    writtenBy: "colloquy init",
    folder: "",
    format: "json",
    schema: studyConfigSchema as z.ZodType<StudyConfig>,
    ...fixed("colloquy.json"),
  }),
  state: defineArtifact<[], PipelineStateFile>({
    name: "state",
    description: "stage fingerprints of the incremental pipeline (safe to delete: costs a re-run)",
    writtenBy: "colloquy study",
    folder: "",
    format: "json",
    schema: pipelineStateSchema,
    ...fixed(".colloquy-state.json"),
  }),
  codebook: defineArtifact<[string], unknown>({
    name: "codebook",
    description: "a codebook made from the codes of an imported REFI-QDA project (validated by the codebook loader)",
    writtenBy: "colloquy import <project.qdpx>",
    folder: "codebooks",
    format: "json",
    schema: null,
    ...named("", ".json"),
  }),
  importMap: defineArtifact<[], ImportMapFile>({
    name: "importMap",
    description: "source file#session -> session id, so re-imports replace sessions",
    writtenBy: "colloquy import",
    folder: "",
    format: "json",
    schema: importMapSchema,
    ...fixed(".colloquy-imports.json"),
  }),
  lock: defineArtifact<[], StudyLockFile>({
    name: "lock",
    description: "the command writing to the study right now (pid, host, start time); removed when it ends",
    writtenBy: "any command that writes to the study",
    folder: "",
    format: "json",
    schema: studyLockSchema,
    ...fixed(".colloquy.lock"),
  }),
  batches: defineArtifact<[], BatchLedger>({
    name: "batches",
    description: "LLM batches submitted for this study (ids, file ids, request keys; never a key): what `colloquy batch collect` picks up",
    writtenBy: "colloquy code --via batch / colloquy batch",
    folder: STUDY_FOLDERS.jobs,
    format: "json",
    schema: batchLedgerSchema,
    ...fixed("batches.json"),
  }),
  sessionJournal: defineArtifact<[id: string], unknown>({
    name: "sessionJournal",
    description:
      "a running session's journal: every post people made (synced before it was acknowledged) and every input the session consumed; `colloquy run --resume` continues the session from it; removed once the session is saved complete",
    writtenBy: "colloquy run",
    folder: STUDY_FOLDERS.jobs,
    format: "jsonl",
    schema: null,
    ...named("journal-", ".jsonl"),
  }),
  session: defineArtifact<[id: string], Session>({
    name: "session",
    description: "one session: participants, turns, metadata",
    writtenBy: "colloquy import / colloquy run",
    folder: STUDY_FOLDERS.sessions,
    format: "json",
    schema: sessionSchema as z.ZodType<Session>,
    file: (id) => `${id}.json`,
    match: (file) =>
      file.endsWith(".json") && !file.startsWith(".") && !file.includes("/") && file.length > ".json".length ? [file.slice(0, -".json".length)] : null,
  }),
  codes: defineArtifact<[codebook: string, coder: string], CodesFileLine>({
    name: "codes",
    description:
      "code records of one codebook by one coder: per run a header line, one line per coded turn, an end line (src/coding/codes-file.ts); read through src/coding/store.ts",
    writtenBy: "colloquy code",
    folder: STUDY_FOLDERS.codes,
    format: "jsonl",
    schema: codesFileLineSchema as z.ZodType<CodesFileLine>,
    ...perCoder(".jsonl", [".failures.jsonl", ".stale.jsonl"]),
  }),
  codeFailures: defineArtifact<[codebook: string, coder: string], CodeFailure>({
    name: "codeFailures",
    description: "turns a coder could not code, with the raw reply (never stored as codes)",
    writtenBy: "colloquy code",
    folder: STUDY_FOLDERS.codes,
    format: "jsonl",
    schema: codeFailureSchema,
    ...perCoder(".failures.jsonl"),
  }),
  staleCodes: defineArtifact<[codebook: string, coder: string], StaleCode>({
    name: "staleCodes",
    description: "codes whose turn was edited or removed, with the words they were attached to (never applied to another turn)",
    writtenBy: "colloquy import",
    folder: STUDY_FOLDERS.codes,
    format: "jsonl",
    schema: staleCodeSchema,
    ...perCoder(".stale.jsonl"),
  }),
  tornBytes: defineArtifact<[file: string, time: string], string>({
    name: "tornBytes",
    description:
      "unreadable bytes moved out of a codes or failures file (a write cut short by a crash, kill or full disk), one fragment per line; the file keeps every complete record",
    writtenBy: "colloquy code / colloquy repair",
    folder: STUDY_FOLDERS.codes,
    format: "bytes",
    schema: null,
    // Named by util/fs.ts (tornPathFor): `<JSONL file>.torn-<UTC time, ":" and "." as "-">`.
    file: (file, time) => `${file}.torn-${time}`,
    match: (file) => {
      const m = /^([^/]+\/[^/]+\.jsonl)\.torn-([0-9T-]+Z(?:-\d+)?)$/.exec(file);
      return m ? [m[1], m[2]] : null;
    },
  }),
  sessionBackup: defineArtifact<[id: string, kind: "replaced" | "failed", time: string], Session>({
    name: "sessionBackup",
    description: "a session as it was before `colloquy run --overwrite` replaced it (replaced), or the attempt of a failed overwrite (failed)",
    writtenBy: "colloquy run --overwrite",
    folder: STUDY_FOLDERS.backups,
    format: "json",
    schema: sessionSchema as z.ZodType<Session>,
    file: (id, kind, time) => `${id}.${kind}-${time}.json`,
    match: (file) => {
      const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)\.(replaced|failed)-([0-9T-]+Z(?:-\d+)?)\.json$/.exec(file);
      return m ? [m[1], m[2] as "replaced" | "failed", m[3]] : null;
    },
  }),
} as const;

/**
 * The artifact (and its parameters) a file name in `folder` belongs to, if any: among the study's
 * own files, or the kinds given (an analysis descriptor's files, say).
 */
export function identifyArtifact(
  folder: Artifact["folder"],
  file: string,
  among: readonly Artifact[] = Object.values(artifacts) as Artifact[],
): { artifact: Artifact; params: string[] } | null {
  for (const artifact of among) {
    if (artifact.folder !== folder) continue;
    const params = artifact.match(file);
    if (params) return { artifact, params };
  }
  return null;
}

/** The outcome of reading one artifact: its validated value, or why there is none. */
export type ArtifactRead<T> =
  | { status: "ok"; value: T }
  | { status: "missing" }
  /** Present but unusable; `problem` names the file's first invalid field (or the JSON error). */
  | { status: "invalid"; problem: string };

/** "turns[3].speaker: Invalid input: expected string, received number" (plus how many more issues). */
export function firstIssue(error: z.ZodError): string {
  const [first] = error.issues;
  if (!first) return "invalid";
  const more = error.issues.length - 1;
  return `${formatPath(first.path as (string | number)[])}: ${first.message}${more > 0 ? ` (and ${more} more problem${more > 1 ? "s" : ""})` : ""}`;
}

/** Validate a parsed JSON value against an artifact's schema. */
export function validateArtifact<T>(artifact: Artifact<string[], T>, value: unknown): ArtifactRead<T> {
  if (!artifact.schema) throw new Error(`${artifact.name} is a ${artifact.format} artifact without a schema`);
  const parsed = artifact.schema.safeParse(value);
  return parsed.success ? { status: "ok", value: parsed.data } : { status: "invalid", problem: firstIssue(parsed.error) };
}

/** Parse and validate an artifact's JSON text. */
export function parseArtifact<T>(artifact: Artifact<string[], T>, text: string): ArtifactRead<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { status: "invalid", problem: `not readable JSON (${errorMessage(error)})` };
  }
  return validateArtifact(artifact, value);
}

/** Read one JSON artifact of a study: ok, missing, or invalid (never throws for a bad file). */
export async function loadArtifact<P extends string[], T>(artifact: Artifact<P, T>, study: string, ...params: P): Promise<ArtifactRead<T>> {
  if (artifact.format !== "json") throw new Error(`${artifact.name} is a ${artifact.format} artifact; loadArtifact reads JSON artifacts`);
  let text: string;
  try {
    text = await readFile(artifact.path(study, ...params), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { status: "missing" };
    return { status: "invalid", problem: `not readable (${errorMessage(error)})` };
  }
  return parseArtifact(artifact as Artifact<string[], T>, text);
}

/**
 * Read one JSON artifact that must be there and valid; otherwise a CliError naming the file, its
 * first invalid field and the command that writes it.
 */
export async function readArtifact<P extends string[], T>(artifact: Artifact<P, T>, study: string, ...params: P): Promise<T> {
  const read = await loadArtifact(artifact, study, ...params);
  const where = artifact.path(study, ...params);
  if (read.status === "missing") throw new CliError(`${where}: not there yet; run \`${artifact.writtenBy} ${study}\` first`);
  if (read.status === "invalid") throw new CliError(`${where}: ${read.problem}; re-run \`${artifact.writtenBy} ${study}\` to rewrite it`);
  return read.value;
}

/** Write one artifact (JSON value, or the text of a CSV) atomically; returns its path. */
export async function writeArtifact<P extends string[], T>(artifact: Artifact<P, T>, study: string, value: T, ...params: P): Promise<string> {
  const path = artifact.path(study, ...params);
  if (artifact.format === "json" && artifact.lineArrays) await writeFileAtomic(path, jsonWithLineArrays(value as object, artifact.lineArrays));
  else if (artifact.format === "json") await writeJsonAtomic(path, value);
  else if (artifact.format === "csv") await writeFileAtomic(path, value as string);
  else
    throw new Error(
      `${artifact.name} is a ${artifact.format} artifact: ${artifact.format === "jsonl" ? "append records through src/coding/store.ts" : "written by the code that moves the bytes"}`,
    );
  return path;
}
