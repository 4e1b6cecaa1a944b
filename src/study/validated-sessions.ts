import { closeSync, existsSync, fstatSync, openSync, readFileSync, statSync, type Stats } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSessionText } from "../transcript/io.js";
import { validateSession } from "../transcript/validate.js";
import type { Session } from "../transcript/schema.js";
import { rememberSessionHash, sessionHash } from "./memo.js";
import { CliError } from "../util/errors.js";
import { sameStamp, settled, stamp, type FileStamp } from "../util/file-stamp.js";
import { sha256 } from "../util/hash.js";
import { writeFileAtomic } from "../util/fs.js";
import { toolVersion } from "../util/provenance.js";
import { installedVersion } from "../util/package-version.js";
import { codeVersion, inBundle } from "../util/code-version.js";
import { ownEntry } from "../util/named-entries.js";

/**
 * Session files already validated, so a study's unchanged sessions are not validated again on
 * every run (zod is most of what loading a large study costs: ~2 s of ~2.5 s for 1000 sessions).
 * A file is remembered by its stamp (size, mtime, ctime and inode: util/file-stamp.ts, as the
 * pipeline's file hashes are, and git's index) in `<study>/.cache/validated-sessions.json`, and
 * only when validation gave back exactly what the file holds (no default filled in, no unknown
 * field dropped, same key order), so the parsed JSON of a remembered file is what validation
 * would return. The sha256 of the file's bytes is kept with its stamp, and keys the session's memos
 * while the stamp is the same (memo.ts): a file edited without a new stamp would be taken
 * as validated and as its old content, as git's index would take it. The record is keyed by the
 * code of the schema and its checks and the zod version that runs them: a change to any of them
 * validates every file again. A cache: missing, torn or foreign files are ignored, and deleting
 * .cache/ is safe.
 *
 * The session without its turns is kept too (its head), so a remembered file with the same stamp
 * is not even read: the session is its head, and its turns are read from the file when first
 * asked for. Most of a run that adds a session to a large study asks only for what memos keep of
 * the others (their parts are keyed by the file's sha256), so 1,000 unchanged files are stamped,
 * not read and parsed (0.15-0.2 s, and the memory their turns take).
 */

/**
 * Session id -> stamp of the file as validated, the sha256 of its bytes (memo keys:
 * memo.ts), and its head: the session without its turns as JSON text, `"turns":0` where
 * they come in the file's key order. Text, so every session read from it is objects of its own:
 * a caller that changes a loaded session changes neither the record nor another load.
 */
type RecordEntry = [...FileStamp, string, string?];

interface ValidatedFile {
  code: string;
  files: Record<string, RecordEntry>;
}

/** The shape of the record's entries: a record of another format is not read (see schemaCodeHash). */
const RECORD_FORMAT = "entries: stamp, sha256, head text";

/** The head of a session read from a file (the same keys in the same order, `turns` as 0). */
const headOf = (session: Session): string => JSON.stringify({ ...session, turns: 0 });

/** The session a head's text stands for, without its turns; undefined when it is not one. */
function parseHead(text: unknown): Session | undefined {
  if (typeof text !== "string") return undefined;
  try {
    const head = JSON.parse(text) as { turns?: unknown; id?: unknown };
    return head && typeof head === "object" && head.turns === 0 && typeof head.id === "string" ? (head as unknown as Session) : undefined;
  } catch {
    return undefined;
  }
}

let schemaCode: string | null | undefined;

/**
 * Hash of the session schema and its checks (compiled .js, or .ts when run from source) and of
 * the zod version; null when they are not files in ../transcript/ from this module: then nothing
 * is remembered. In the CLI's bundle the schema is inside the chunks, not in files of its own: the
 * version of all of the bundle's code stands for it (util/code-version.ts), never the compiled
 * modules the bundle was made from, which can be newer than it.
 */
function schemaCodeHash(): string | null {
  if (schemaCode === undefined && inBundle(dirname(fileURLToPath(import.meta.url)))) {
    schemaCode = sha256([toolVersion, RECORD_FORMAT, codeVersion()].join("\u0000"));
  }
  if (schemaCode === undefined) {
    const dir = fileURLToPath(new URL("../transcript/", import.meta.url));
    const source = (name: string) => [join(dir, `${name}.js`), join(dir, `${name}.ts`)].find((f) => existsSync(f));
    const files = [source("schema"), source("validate")];
    const zod = installedVersion("zod");
    schemaCode =
      zod !== null && files.every((f) => f !== undefined)
        ? sha256([toolVersion, `zod ${zod}`, RECORD_FORMAT, ...files.map((f) => sha256(readFileSync(f!)))].join("\u0000"))
        : null;
  }
  return schemaCode;
}

const cachePath = (study: string) => join(study, ".cache", "validated-sessions.json");

/** What a session file's absence means: `read` names the session, a lazy read says it went away. */
function missing(error: unknown, message: string): never {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new CliError(message);
  throw error;
}

const noSession = (path: string, id: string) => `${path}: no session "${id}" in this study`;

/**
 * A session file's bytes and the stat of the very file they were read from (one descriptor).
 * Synchronous on purpose: a study's files are small, and the promise API's five thread-pool
 * round trips a file (open, stat, read, read, close) made loading 1,000 sessions 2-3x slower.
 */
function readWhole(path: string, absent: string): { info: Stats; bytes: Buffer } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    missing(error, absent);
  }
  try {
    return { info: fstatSync(fd), bytes: readFileSync(fd) };
  } finally {
    closeSync(fd);
  }
}

/**
 * The session a remembered head stands for: its turns are read from `path` when first asked for,
 * from a file with the stamp the head was remembered with, or with the bytes it had (sha256:
 * touched, not edited). Else the run stops: the file changed while the run used it, and its turns
 * may no longer be the head's. The turns are kept in the getter too, so a session frozen or
 * copied by its descriptors still reads the file once.
 */
function sessionOf(session: Session, path: string, known: FileStamp, hash: string): Session {
  let turns: Session["turns"] | undefined;
  const settle = (value: Session["turns"]) => {
    turns = value;
    try {
      Object.defineProperty(session, "turns", { value, enumerable: true, writable: true, configurable: true });
    } catch {
      // Frozen or sealed: the getter goes on giving the turns it keeps.
    }
  };
  Object.defineProperty(session, "turns", {
    enumerable: true,
    configurable: true,
    get() {
      if (turns) return turns;
      const { info, bytes } = readWhole(path, `${path}: the file was removed while this run was using it; run the command again`);
      const same = sameStamp(known, stamp(info)) && bytes.length === info.size;
      if (!same && sha256(bytes) !== hash) {
        throw new CliError(`${path}: the file changed while this run was using it; run the command again`);
      }
      settle((parseSessionText(bytes.toString("utf8"), path) as Session).turns);
      return turns!;
    },
    set: settle,
  });
  return session;
}

/** A session of a remembered file as its head (sessionOf), known by the file's sha256 and read again from it exactly. */
function headSession(head: Session, path: string, known: FileStamp, hash: string): Session {
  const session = sessionOf(head, path, known, hash);
  rememberSessionHash(session, hash);
  sources.set(session, { path, exact: true });
  return session;
}

/** Whether a session's turns are in memory: false for one read from its head whose turns were never asked for (sessionOf). */
export function turnsInMemory(session: Session): boolean {
  return Object.getOwnPropertyDescriptor(session, "turns")?.get === undefined;
}

/**
 * Per session read by openSessionFiles (and each head made from one): the file it was read from,
 * and whether parsing that file gives the validated session (it was remembered as validated), so
 * reading it again need not validate it again.
 */
const sources = new WeakMap<Session, { path: string; exact: boolean }>();

/**
 * `session` read again from its file, whole, for one pass over the study that lets it go after
 * (the shared `session` keeps no turns). The file must be the one the session was read from (the
 * same sha256, so a file only touched passes), else the run stops as when a head's turns are read
 * from an edited file: its turns may no longer be what the run used so far.
 */
export function readSessionAgain(session: Session): Session {
  const source = sources.get(session);
  if (!source) throw new Error(`session ${session.id} was not read from a session file (validated-sessions.ts)`);
  const { path, exact } = source;
  const { bytes } = readWhole(path, `${path}: the file was removed while this run was using it; run the command again`);
  const hash = sha256(bytes);
  if (hash !== sessionHash(session)) throw new CliError(`${path}: the file changed while this run was using it; run the command again`);
  const value = parseSessionText(bytes.toString("utf8"), path);
  const again = exact ? (value as Session) : validateSession(value, path);
  rememberSessionHash(again, hash);
  sources.set(again, source);
  return again;
}

/**
 * A session with its turns for one pass that lets it go after: as it is when this process holds
 * its turns, else read again from its file (readSessionAgain), without keeping them in the head.
 */
export function withTurns(session: Session): Session {
  return turnsInMemory(session) ? session : readSessionAgain(session);
}

/** A head made from `session` (a copy without its turns) reads its file again as `session` would. */
export function sameSessionFile(head: Session, session: Session): void {
  const source = sources.get(session);
  if (source) sources.set(head, source);
}

export interface SessionFileReader {
  /**
   * One session: from its remembered head while its file is unchanged, else read and validated; a
   * file remembered now (validation gave back exactly what it holds) is given as its head as well.
   * A head reads its turns on first use.
   */
  read(path: string, id: string): Promise<Session>;
  /** Remember what was validated; with `all`, forget files of sessions no longer in the study. */
  save(all?: readonly string[]): Promise<void>;
}

/**
 * The record as this process last read or wrote it, by path, with the stamp of the file then: a
 * pipeline run loads sessions in several stages, and the record (~0.7 MB at 1,000 sessions, with
 * the heads) is parsed once while the file is as this process left it. Never changed in place.
 */
const inProcess = new Map<string, { stamp: FileStamp; files: ValidatedFile["files"] }>();

async function readRecord(path: string, code: string): Promise<ValidatedFile["files"]> {
  try {
    const now = stamp(statSync(path));
    const known = inProcess.get(path);
    if (known && sameStamp(known.stamp, now)) return known.files;
    const file = JSON.parse(await readFile(path, "utf8")) as ValidatedFile;
    if (file && file.code === code && file.files && typeof file.files === "object") {
      // Stamped before the read: a file replaced meanwhile has another stamp, and is read again next time.
      inProcess.set(path, { stamp: now, files: file.files });
      return file.files;
    }
  } catch {
    // Missing or unreadable: validate everything (and remember it).
  }
  return {};
}

export async function openSessionFiles(study: string): Promise<SessionFileReader> {
  const code = schemaCodeHash();
  const stored: ValidatedFile["files"] = code === null ? {} : await readRecord(cachePath(study), code);
  const next: ValidatedFile["files"] = { ...stored };
  let changed = false;
  return {
    async read(path, id) {
      const known = ownEntry(stored, id);
      if (known && typeof known[4] === "string") {
        // Remembered with its head: stamped, not read, while the stamp is the same.
        let now: FileStamp;
        try {
          now = stamp(statSync(path));
        } catch (error) {
          missing(error, noSession(path, id));
        }
        const head = sameStamp(known, now) ? parseHead(known[5]) : undefined;
        if (head) return headSession(head, path, now, known[4]);
      }
      const { info, bytes } = readWhole(path, noSession(path, id));
      const text = bytes.toString("utf8");
      const value = parseSessionText(text, path);
      const now = stamp(info);
      // Not remembered, changed since, or remembered without a usable head: validated (and remembered anew).
      const session = validateSession(value, path);
      const hash = sha256(bytes);
      const remember = code !== null && settled(info) && JSON.stringify(session) === JSON.stringify(value);
      if (remember) {
        next[id] = [...now, hash, headOf(session)];
        changed = true;
        // Given as its head too, as it will be in the next run: the caller reads the turns when it
        // needs them. A first run over a large study otherwise held every session's turns for as
        // long as it held the list (1,000,000 turns: ~0.5 GB through the code stage, whose
        // collections then cost ~0.4 s each; issue 40).
        return headSession(parseHead(next[id][5])!, path, now, hash);
      }
      delete next[id];
      rememberSessionHash(session, hash);
      sources.set(session, { path, exact: false });
      changed ||= known !== undefined;
      return session;
    },
    async save(all) {
      if (all) {
        const present = new Set(all);
        for (const id of Object.keys(next)) {
          if (!present.has(id)) {
            delete next[id];
            changed = true;
          }
        }
      }
      if (!changed || code === null) return;
      try {
        await writeFileAtomic(cachePath(study), JSON.stringify({ code, files: next } satisfies ValidatedFile));
        inProcess.set(cachePath(study), { stamp: stamp(statSync(cachePath(study))), files: { ...next } });
      } catch {
        // A read-only study still loads; it is only validated again next time.
      }
    },
  };
}
