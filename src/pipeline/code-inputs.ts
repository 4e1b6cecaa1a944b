import { join, relative } from "node:path";
import { readWholeFile } from "../util/fs.js";
import { codesPath, readCodes } from "../coding/store.js";
import { codeValue, cutRecords, type CodeRecord } from "../coding/records.js";
import type { CodebookPlan } from "../study/config.js";
import { artifacts } from "../study/artifacts.js";
import { currentCodes } from "../study/reader.js";
import { loadSessions } from "../study/study.js";
import type { StudyContext } from "../stages/context.js";
import type { Session } from "../transcript/schema.js";
import { fingerprint } from "./fingerprint.js";
import type { PipelineState } from "./state.js";

/**
 * The code stage, per session (issue 11). Coding is per turn, and a turn already coded is never
 * coded again; what made adding one session to a large study slow was everything around that:
 * loading every session to find the turns without codes. So the pipeline remembers, when the
 * code stage last finished with every turn coded, each session file's hash and one fingerprint
 * of everything else the stage depends on (the codes it left, codebooks, coders, model). When
 * everything else is unchanged, only the sessions that are new or whose file changed can have
 * turns without a current code, so only they are loaded and coded: the same records a full run
 * would add, for the price of the sessions that changed.
 */

/** What the code stage's outputs depend on, split into the sessions and everything else. */
export interface CodeInputs {
  /** Session file (relative to the study) -> content hash. */
  sessions: Record<string, string>;
  /** Fingerprint of everything else (codes, codebook plans and definitions, coder versions, model). */
  rest: string;
  /**
   * Per codes file the code stage read ("codebook\u0000coder"): the sessions it holds any record
   * of, read or not, current or not. While `rest` is unchanged the files changed only by the code
   * stage's own appends, so a new session absent from the list has no record and its turns are
   * looked up without reading the file. Missing until an incremental run first reads the file.
   */
  coded?: Record<string, string[]>;
}

export function codeInputs(sessions: Record<string, string>, rest: Record<string, unknown>): CodeInputs {
  return { sessions, rest: fingerprint(rest) };
}

/**
 * Whether the work can be limited to some sessions: not for the learned coder (it trains on
 * every session's human codes) nor for an LLM shown worked examples (picked from every session),
 * whose codes of a new turn depend on more than that turn's session.
 */
export function perSessionCoding(plans: readonly CodebookPlan[]): boolean {
  return plans.every((p) => p.coders.every((coder) => coder === "rules" || (coder === "llm" && !p.examples?.length)));
}

/**
 * Ids of the sessions to code when only sessions changed since the code stage last finished
 * with every turn coded; undefined when anything else changed (or nothing is remembered), and
 * the whole study must be looked at. Removed sessions need nothing: their codes stay, as in a
 * full run.
 */
export function changedSessions(study: StudyContext, state: PipelineState, now: CodeInputs): string[] | undefined {
  const before = state.codeInputs;
  if (!before || before.rest !== now.rest) return undefined;
  const ids: string[] = [];
  for (const [path, hash] of Object.entries(now.sessions)) {
    if (before.sessions[path] === hash) continue;
    const id = artifacts.session.match(relative(study.paths.sessions, join(study.paths.root, path)))?.[0];
    // A file in sessions/ that is not a session: the full run decides what it means.
    if (id === undefined) return undefined;
    ids.push(id);
  }
  return ids.sort();
}

/** What the per-session code stage learns in a run: which sessions each codes file holds, and the ids of the sessions it loaded. */
export interface CodedFiles {
  coded: Record<string, string[]>;
  loaded: Set<string>;
}

/**
 * The study seen as only some of its sessions: `sessions()` loads just those files, and
 * `codes()` gives these sessions' records (by the ids inside the files), checked against them.
 * A codes file is not read when `files.coded` (updated in place) says it holds no record of
 * these sessions. Coders, settings and the model are the study's.
 */
export function sessionsOnly(study: StudyContext, ids: readonly string[], files: CodedFiles): StudyContext {
  let sessions: Promise<Session[]> | undefined;
  const codes = new Map<string, Promise<CodeRecord[]>>();
  const load = async () => {
    const loaded = await loadSessions(study.dir, ids);
    for (const s of loaded) files.loaded.add(s.id);
    return loaded;
  };
  const read = async (codebook: string, coder: string, key: string): Promise<CodeRecord[]> => {
    const loaded = await part.sessions();
    // The ids inside the files: a session file may be named otherwise.
    const wanted = new Set(loaded.map((s) => s.id));
    // Not known yet (the first run after a full one): found by a scan of the file's text (much cheaper than parsing its records).
    const known = Object.hasOwn(files.coded, key) ? files.coded[key] : (files.coded[key] = await sessionsInCodesFile(codesPath(study.dir, codebook, coder)));
    if (!known.some((id) => wanted.has(id))) return [];
    const all = await readCodes(study.dir, codebook, coder);
    files.coded[key] = [...new Set(all.map((r) => r.session))].sort();
    return currentCodes(
      all.filter((r) => wanted.has(r.session)),
      loaded,
    );
  };
  const part: StudyContext = {
    ...study,
    sessions: () => (sessions ??= load().catch((error) => ((sessions = undefined), Promise.reject(error)))),
    codes(codebook, coder) {
      const key = codesKey(codebook, coder);
      let records = codes.get(key);
      if (!records) {
        records = read(codebook, coder, key);
        codes.set(key, records);
      }
      return records;
    },
    // Cut from this part's records, not the study's values (which would name other sessions).
    codeValues: async (codebook, coder) => (await part.codes(codebook, coder)).map(codeValue),
    codeCut: async (codebook, coder) => cutRecords(await part.codes(codebook, coder)),
    changed(what) {
      if (what === "sessions") sessions = undefined;
      codes.clear();
      study.changed(what);
    },
  };
  return part;
}

/**
 * Ids of the sessions a codes file names anywhere (sorted; none when there is no file), from its
 * bytes: every "session" key of a code line, full record or anything else, with JSON's spaces
 * around its colon. Naming more than the records hold only costs a parse when such a session is
 * coded. The bytes are searched natively for the key, and an id is decoded only when it differs
 * from the line before's (a session's records are consecutive): a regular expression over the
 * decoded text of a 100,000-turn study's 70 MB of codes took 0.2 s of the first run that added a
 * session after a full one.
 */
export async function sessionsInCodesFile(path: string): Promise<string[]> {
  let bytes: Buffer;
  try {
    bytes = await readWholeFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const ids = new Set<string>();
  let last: { start: number; end: number } | undefined;
  for (let at = bytes.indexOf(SESSION_KEY); at !== -1; at = bytes.indexOf(SESSION_KEY, at + SESSION_KEY.length)) {
    const literal = stringAfterColon(bytes, at + SESSION_KEY.length);
    if (!literal) continue;
    if (last && literal.end - literal.start === last.end - last.start && bytes.compare(bytes, last.start, last.end, literal.start, literal.end) === 0) continue;
    last = literal;
    try {
      ids.add(JSON.parse(bytes.toString("utf8", literal.start, literal.end)) as string);
    } catch {
      // Not a JSON string (a torn line): the file's reader decides what it means.
    }
  }
  return [...ids].sort();
}

const SESSION_KEY = Buffer.from('"session"');
const isJsonSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The JSON string (quotes included) after `: ` at `at`, on one line; undefined when there is none. */
function stringAfterColon(bytes: Buffer, at: number): { start: number; end: number } | undefined {
  let i = at;
  while (isJsonSpace(bytes[i])) i++;
  if (bytes[i] !== 0x3a) return undefined;
  i++;
  while (isJsonSpace(bytes[i])) i++;
  if (bytes[i] !== 0x22) return undefined;
  for (let j = i + 1; j < bytes.length; j++) {
    const c = bytes[j];
    if (c === 0x22) return { start: i, end: j + 1 };
    if (c === 0x0a) return undefined;
    if (c === 0x5c) j++;
  }
  return undefined;
}

const codesKey = (codebook: string, coder: string) => `${codebook}\u0000${coder}`;

/**
 * What `coded` says after a run that coded the sessions it loaded: every file it knows of may now
 * hold records of them too (listing a session that got none only costs a read next time).
 */
export function codedAfter(files: CodedFiles): Record<string, string[]> {
  return Object.fromEntries(Object.entries(files.coded).map(([key, sessions]) => [key, [...new Set([...sessions, ...files.loaded])].sort()]));
}
