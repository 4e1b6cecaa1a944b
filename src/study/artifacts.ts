import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { z } from "zod";
import { CliError, errorMessage } from "../util/errors.js";
import { writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { jsonWithLineArrays } from "../util/json-layout.js";
import { formatPath } from "../transcript/validate.js";
import { sessionSchema, type Session } from "../transcript/schema.js";
import { codeFailureSchema, staleCodeSchema, codesFileLineSchema, type CodeFailure, type CodesFileLine, type StaleCode } from "../coding/records.js";
import { agreementReportSchema } from "../analysis/agreement/schema.js";
import { compareReportSchema } from "../analysis/compare/schema.js";
import { statsReportSchema } from "../analysis/stats/schema.js";
import { topicsReportSchema } from "../analysis/topics/schema.js";
import { conceptsReportSchema } from "../analysis/concepts/schema.js";
import { provenanceSchema } from "../analysis/shared/schema-json.js";
import type { AgreementReport } from "../analysis/agreement/agree.js";
import type { CompareReport } from "../analysis/compare/compare.js";
import type { StatsReport } from "../analysis/stats/report.js";
import type { TopicsReport } from "../analysis/topics/report.js";
import type { ConceptsReport } from "../analysis/concepts/report.js";
import { studyConfigSchema, type StudyConfig } from "./config.js";
import { batchLedgerSchema, type BatchLedger } from "../llm/batch/ledger.js";

/**
 * The artifact registry: every file a study holds, each as {name, path, schema}. Writers and
 * readers take paths from here and readers validate with the schema, so a file name is spelled
 * once in src/ and a wrong or old file is reported naming its first invalid field.
 *
 * Folders of a study: colloquy.json, sessions/, codes/, analysis/, site/, .cache/, inbox/, backups/ (see
 * ARCHITECTURE.md). `artifacts.stats.path(study)` is `<study>/analysis/stats.json`;
 * `artifacts.agreement.path(study, "bales-ipa")` is `<study>/analysis/agreement-bales-ipa.json`.
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

interface Definition<P extends string[], T> {
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

function define<P extends string[], T>(d: Definition<P, T>): Artifact<P, T> {
  const relative = (...params: P) => (d.folder ? `${d.folder}/${d.file(...params)}` : d.file(...params));
  return {
    ...d,
    relative,
    path: (study: string, ...params: P) => join(resolve(study), d.folder, d.file(...params)),
  };
}

/** A file with one fixed name. */
function fixed(name: string): { file: () => string; match: (file: string) => [] | null } {
  return { file: () => name, match: (file) => (file === name ? [] : null) };
}

/** A file named prefix + one parameter + suffix (the parameter may not contain "/"). */
function named(prefix: string, suffix: string): { file: (param: string) => string; match: (file: string) => [string] | null } {
  return {
    file: (param) => `${prefix}${param}${suffix}`,
    match: (file) => {
      if (!file.startsWith(prefix) || !file.endsWith(suffix) || file.length <= prefix.length + suffix.length) return null;
      const param = file.slice(prefix.length, file.length - suffix.length);
      return param.includes("/") ? null : [param];
    },
  };
}

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
export const studyLockSchema = z.object({ pid: z.number().int(), host: z.string(), command: z.string(), startedAt: z.string() });
export type StudyLockFile = z.infer<typeof studyLockSchema>;

/** Every file a study holds. */
export const artifacts = {
  config: define<[], StudyConfig>({
    name: "config",
    description: "study configuration: codebooks, coders, control condition, collapses, model settings",
    writtenBy: "colloquy init",
    folder: "",
    format: "json",
    schema: studyConfigSchema as z.ZodType<StudyConfig>,
    ...fixed("colloquy.json"),
  }),
  state: define<[], PipelineStateFile>({
    name: "state",
    description: "stage fingerprints of the incremental pipeline (safe to delete: costs a re-run)",
    writtenBy: "colloquy study",
    folder: "",
    format: "json",
    schema: pipelineStateSchema,
    ...fixed(".colloquy-state.json"),
  }),
  codebook: define<[string], unknown>({
    name: "codebook",
    description: "a codebook made from the codes of an imported REFI-QDA project (validated by the codebook loader)",
    writtenBy: "colloquy import <project.qdpx>",
    folder: "codebooks",
    format: "json",
    schema: null,
    ...named("", ".json"),
  }),
  importMap: define<[], ImportMapFile>({
    name: "importMap",
    description: "source file#session -> session id, so re-imports replace sessions",
    writtenBy: "colloquy import",
    folder: "",
    format: "json",
    schema: importMapSchema,
    ...fixed(".colloquy-imports.json"),
  }),
  lock: define<[], StudyLockFile>({
    name: "lock",
    description: "the command writing to the study right now (pid, host, start time); removed when it ends",
    writtenBy: "any command that writes to the study",
    folder: "",
    format: "json",
    schema: studyLockSchema,
    ...fixed(".colloquy.lock"),
  }),
  batches: define<[], BatchLedger>({
    name: "batches",
    description: "LLM batches submitted for this study (ids, file ids, request keys; never a key): what `colloquy batch collect` picks up",
    writtenBy: "colloquy code --via batch / colloquy batch",
    folder: STUDY_FOLDERS.jobs,
    format: "json",
    schema: batchLedgerSchema,
    ...fixed("batches.json"),
  }),
  sessionJournal: define<[id: string], unknown>({
    name: "sessionJournal",
    description:
      "a running session's journal: every post people made (synced before it was acknowledged) and every input the session consumed; `colloquy run --resume` continues the session from it; removed once the session is saved complete",
    writtenBy: "colloquy run",
    folder: STUDY_FOLDERS.jobs,
    format: "jsonl",
    schema: null,
    ...named("journal-", ".jsonl"),
  }),
  session: define<[id: string], Session>({
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
  codes: define<[codebook: string, coder: string], CodesFileLine>({
    name: "codes",
    description:
      "code records of one codebook by one coder: per run a header line, one line per coded turn, an end line (src/coding/codes-file.ts); read through src/coding/store.ts",
    writtenBy: "colloquy code",
    folder: STUDY_FOLDERS.codes,
    format: "jsonl",
    schema: codesFileLineSchema as z.ZodType<CodesFileLine>,
    ...perCoder(".jsonl", [".failures.jsonl", ".stale.jsonl"]),
  }),
  codeFailures: define<[codebook: string, coder: string], CodeFailure>({
    name: "codeFailures",
    description: "turns a coder could not code, with the raw reply (never stored as codes)",
    writtenBy: "colloquy code",
    folder: STUDY_FOLDERS.codes,
    format: "jsonl",
    schema: codeFailureSchema,
    ...perCoder(".failures.jsonl"),
  }),
  staleCodes: define<[codebook: string, coder: string], StaleCode>({
    name: "staleCodes",
    description: "codes whose turn was edited or removed, with the words they were attached to (never applied to another turn)",
    writtenBy: "colloquy import",
    folder: STUDY_FOLDERS.codes,
    format: "jsonl",
    schema: staleCodeSchema,
    ...perCoder(".stale.jsonl"),
  }),
  agreement: define<[codebook: string], AgreementReport>({
    name: "agreement",
    description: "inter-coder agreement of one codebook",
    writtenBy: "colloquy agree",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: agreementReportSchema,
    // One disagreement per line: the agree stage keeps each session's lines and writes them in place.
    lineArrays: ["disagreements.rows"],
    ...named("agreement-", ".json"),
  }),
  agreementDisagreements: define<[codebook: string], string>({
    name: "agreementDisagreements",
    description: "turns the coders disagreed on, with the turn text",
    writtenBy: "colloquy agree",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...named("agreement-", "-disagreements.csv"),
  }),
  compare: define<[codebook: string], CompareReport>({
    name: "compare",
    description: "code frequencies per condition, differences from the control, tests",
    writtenBy: "colloquy compare",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: compareReportSchema,
    lineArrays: ["units"],
    ...named("compare-", ".json"),
  }),
  compareFrequencies: define<[codebook: string], string>({
    name: "compareFrequencies",
    description: "long-format frequency table of a comparison",
    writtenBy: "colloquy compare",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...named("compare-", "-frequencies.csv"),
  }),
  compareDifferences: define<[codebook: string], string>({
    name: "compareDifferences",
    description: "differences from the control of a comparison",
    writtenBy: "colloquy compare",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...named("compare-", "-differences.csv"),
  }),
  compareTests: define<[codebook: string], string>({
    name: "compareTests",
    description: "tests of a comparison",
    writtenBy: "colloquy compare",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...named("compare-", "-tests.csv"),
  }),
  stats: define<[], StatsReport>({
    name: "stats",
    description: "session metrics, participation, Bales profiles, phases, transitions, sequences",
    writtenBy: "colloquy stats",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: statsReportSchema,
    lineArrays: ["sessions", "codes.profiles.members", "codes.phases.sessions", "codes.segments.sessions", "codes.sequences"],
    ...fixed("stats.json"),
  }),
  statsSessions: define<[], string>({
    name: "statsSessions",
    description: "one row per session of stats",
    writtenBy: "colloquy stats",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...fixed("stats-sessions.csv"),
  }),
  statsParticipants: define<[], string>({
    name: "statsParticipants",
    description: "one row per member of a session of stats",
    writtenBy: "colloquy stats",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...fixed("stats-participants.csv"),
  }),
  topics: define<[], TopicsReport>({
    name: "topics",
    description: "topic trees and branching ratios per tree, session and condition",
    writtenBy: "colloquy topics",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: topicsReportSchema,
    lineArrays: ["trees"],
    ...fixed("topics.json"),
  }),
  topicsReview: define<[], string>({
    name: "topicsReview",
    description: "review sheet of the sub-topics (default place of `colloquy topics export`)",
    writtenBy: "colloquy topics export",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...fixed("topics-review.csv"),
  }),
  concepts: define<[], ConceptsReport>({
    name: "concepts",
    description: "noun concepts per turn, participant and session, and per-condition comparisons",
    writtenBy: "colloquy concepts",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: conceptsReportSchema,
    lineArrays: ["sessions"],
    ...fixed("concepts.json"),
  }),
  conceptsTable: define<[], string>({
    name: "conceptsTable",
    description: "one row per participant and session of concepts",
    writtenBy: "colloquy concepts",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...fixed("concepts.csv"),
  }),
  paperReport: define<[format: string], string>({
    name: "paperReport",
    description: "the study report in the order of a paper's method and results (md or html)",
    writtenBy: "colloquy report",
    folder: STUDY_FOLDERS.analysis,
    format: "bytes",
    schema: null,
    file: (format) => `report.${format}`,
    match: (file) => {
      const m = /^report\.(md|html)$/.exec(file);
      return m ? [m[1]] : null;
    },
  }),
  paperReportTable: define<[table: string], string>({
    name: "paperReportTable",
    description: "one table of the study report, numbers exactly as in the analysis files",
    writtenBy: "colloquy report",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    file: (table) => `report-tables/${table}.csv`,
    match: (file) => {
      const m = /^report-tables\/([a-z0-9-]+)\.csv$/.exec(file);
      return m ? [m[1]] : null;
    },
  }),
  tornBytes: define<[file: string, time: string], string>({
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
  sessionBackup: define<[id: string, kind: "replaced" | "failed", time: string], Session>({
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

/** The registered artifact (and its parameters) a file name in `folder` belongs to, if any. */
export function identifyArtifact(folder: Artifact["folder"], file: string): { artifact: Artifact; params: string[] } | null {
  for (const artifact of Object.values(artifacts) as Artifact[]) {
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
