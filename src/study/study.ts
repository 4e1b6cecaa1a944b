import { mkdir, readdir, readFile, access } from "node:fs/promises";
import { join, resolve } from "node:path";
import { CliError } from "../util/errors.js";
import { writeJsonAtomic } from "../util/fs.js";
import { writeSessionFile } from "../transcript/io.js";
import { openSessionFiles } from "./validated-sessions.js";
import { formatIssues } from "../transcript/validate.js";
import type { Session } from "../transcript/schema.js";
import { studyConfigSchema, type StudyConfig } from "./config.js";
import { artifacts } from "./artifacts.js";
import { STUDY_FOLDERS } from "../util/artifact.js";

/** Every path of a study folder, in one place. */
export interface StudyPaths {
  root: string;
  config: string;
  sessions: string;
  codes: string;
  analysis: string;
  site: string;
  cache: string;
  inbox: string;
  /** Stage fingerprints of the incremental pipeline. */
  state: string;
}

/** Folders and root files of a study; names come from the artifact registry (artifacts.ts). */
export function studyPaths(dir: string): StudyPaths {
  const root = resolve(dir);
  return {
    root,
    config: artifacts.config.path(root),
    sessions: join(root, STUDY_FOLDERS.sessions),
    codes: join(root, STUDY_FOLDERS.codes),
    analysis: join(root, STUDY_FOLDERS.analysis),
    site: join(root, STUDY_FOLDERS.site),
    cache: join(root, STUDY_FOLDERS.cache),
    inbox: join(root, STUDY_FOLDERS.inbox),
    state: artifacts.state.path(root),
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Create a study folder (idempotent: an existing config is kept, and `keptConfig` says so). */
export async function initStudy(dir: string, config: Partial<StudyConfig> = {}): Promise<StudyPaths & { keptConfig: boolean }> {
  const paths = studyPaths(dir);
  for (const folder of [paths.sessions, paths.codes, paths.analysis, paths.inbox]) {
    await mkdir(folder, { recursive: true });
  }
  const keptConfig = await exists(paths.config);
  if (!keptConfig) await writeJsonAtomic(paths.config, studyConfigSchema.parse(config));
  return { ...paths, keptConfig };
}

/** Load and validate colloquy.json; a missing file means defaults, an invalid one names the field. */
export async function loadStudyConfig(dir: string): Promise<StudyConfig> {
  const paths = studyPaths(dir);
  let text: string;
  try {
    text = await readFile(paths.config, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      if (!(await exists(paths.root))) {
        throw new CliError(`${paths.root}: no such study folder. Create one with \`colloquy init ${dir}\`.`);
      }
      return studyConfigSchema.parse({});
    }
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${paths.config}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = studyConfigSchema.safeParse(value);
  if (!parsed.success) throw new CliError(`${paths.config}: ${formatIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * Add codebook plans to colloquy.json for codebooks it does not list yet (a codebook made by an
 * import: listed, it is exported again and shown). The file keeps what it said; a plan runs no
 * machine coder (`coders: []`) until the researcher adds one. Returns the ids added.
 */
export async function registerCodebooks(dir: string, ids: readonly string[]): Promise<string[]> {
  return addToConfig(
    dir,
    (config) => ids.filter((id) => !config.codebooks.some((plan) => plan.codebook === id)),
    (raw, config, missing) => {
      // A file that never named its codebooks had the defaults: they stay listed beside the new ones.
      const plans = Array.isArray(raw.codebooks) ? raw.codebooks : config.codebooks;
      return { ...raw, codebooks: [...plans, ...missing.map((codebook) => ({ codebook, coders: [] }))] };
    },
  );
}

/**
 * List people's coders (human:<name>) under humanCoders in colloquy.json, so `colloquy study`
 * compares the machine coders with them without a hand edit; returns those newly listed.
 */
export async function registerHumanCoders(dir: string, coders: readonly string[]): Promise<string[]> {
  return addToConfig(
    dir,
    (config) => coders.filter((coder, i) => !config.humanCoders.includes(coder) && coders.indexOf(coder) === i),
    (raw, config, missing) => ({ ...raw, humanCoders: [...config.humanCoders, ...missing] }),
  );
}

/**
 * This process's edits of colloquy.json, one at a time: two coding pages saving at once each read
 * the file before the other wrote it, and one person's listing was lost.
 */
let configEdits: Promise<unknown> = Promise.resolve();

/** Add what `missing` finds absent to colloquy.json (the file's other fields kept as written); returns what was added. */
function addToConfig(
  dir: string,
  missingFrom: (config: StudyConfig) => string[],
  add: (raw: Record<string, unknown>, config: StudyConfig, missing: string[]) => Record<string, unknown>,
): Promise<string[]> {
  const edit = configEdits.then(() => editConfig(dir, missingFrom, add));
  configEdits = edit.catch(() => undefined);
  return edit;
}

async function editConfig(
  dir: string,
  missingFrom: (config: StudyConfig) => string[],
  add: (raw: Record<string, unknown>, config: StudyConfig, missing: string[]) => Record<string, unknown>,
): Promise<string[]> {
  const config = await loadStudyConfig(dir);
  const missing = missingFrom(config);
  if (missing.length === 0) return [];
  const path = studyPaths(dir).config;
  const raw = (await exists(path)) ? (JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>) : {};
  const next = add(raw, config, missing);
  studyConfigSchema.parse(next);
  await writeJsonAtomic(path, next);
  return missing;
}

/** Path of a session's native file inside the study. */
export function sessionPath(dir: string, sessionId: string): string {
  return artifacts.session.path(dir, sessionId);
}

/** Ids of the study's sessions, sorted. */
export async function listSessionIds(dir: string): Promise<string[]> {
  const paths = studyPaths(dir);
  if (!(await exists(paths.root))) {
    throw new CliError(`${paths.root}: no such study folder. Create one with \`colloquy init ${dir}\`.`);
  }
  let names: string[];
  try {
    names = await readdir(paths.sessions);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return names
    .map((n) => artifacts.session.match(n)?.[0])
    .filter((id): id is string => id !== undefined)
    .sort();
}

/**
 * Load sessions (all, or the given ids), sorted by condition, run, id. Files validated before
 * and unchanged since are not validated again (validated-sessions.ts).
 */
export async function loadSessions(dir: string, ids?: readonly string[]): Promise<Session[]> {
  const wanted = ids ?? (await listSessionIds(dir));
  const files = await openSessionFiles(dir);
  const sessions: Session[] = [];
  for (const id of wanted) sessions.push(await files.read(sessionPath(dir, id), id));
  await files.save(ids ? undefined : wanted);
  return sessions.sort(compareSessions);
}

export async function saveSession(dir: string, session: Session): Promise<string> {
  const path = sessionPath(dir, session.id);
  await writeSessionFile(path, session);
  return path;
}

/** localeCompare's numeric order from one collator (localeCompare with options builds one per call). */
const byNumber = new Intl.Collator(undefined, { numeric: true });

/** Order sessions by condition, then run (numerically where possible), then id. */
export function compareSessions(a: Session, b: Session): number {
  const cond = (a.metadata.condition ?? "").localeCompare(b.metadata.condition ?? "");
  if (cond !== 0) return cond;
  const run = byNumber.compare(a.metadata.run ?? "", b.metadata.run ?? "");
  return run !== 0 ? run : a.id.localeCompare(b.id);
}
