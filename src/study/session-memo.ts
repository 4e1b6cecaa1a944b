import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { CodeRecord } from "../coding/records.js";
import type { Session } from "../transcript/schema.js";
import { hashValue, sha256 } from "../util/hash.js";
import { openKeyedLog } from "../util/keyed-log.js";
import { codeVersion } from "../util/code-version.js";
import { readStampedFile, writeStampedFile } from "../util/stamped-file.js";

/**
 * Results of a deterministic per-session computation (a session's noun concepts, rules topic
 * trees, agreement alignment, statistics parts, dashboard parts), kept between runs under
 * `<study>/.cache/memo/` (memoPath) so that adding one session to a large study computes that
 * session only, and the study-level results are recombined from the stored parts (issue 11:
 * incremental where the work is per session).
 *
 * An entry is used only when the session's content hash matches (and the digest of its other
 * inputs, such as the session's codes, when the caller gives one), and the whole file only when
 * the settings it was computed under and the code that computed it match (util/code-version.ts:
 * every module of colloquy, compromise's version and V8's, so a fix to an analysis or to a helper
 * it imports invalidates its memo even when the version number stays the same). It is a cache:
 * a missing, torn or foreign file is recomputed, never trusted, and deleting .cache/ is safe.
 *
 * Stored as a log of v8-serialized frames (util/keyed-log.ts): adding one session appends its
 * entry, and NaN, Infinity and undefined come back exactly, so a reused result equals a fresh one.
 */
export interface SessionMemo<T> {
  /** True when a stored result for this key, session content and other inputs exists. */
  has(key: string, session: Session, inputs?: string): boolean;
  /** The stored result for this key, session and inputs (then kept by save), or undefined. */
  find(key: string, session: Session, inputs?: string): T | undefined;
  /** Store `value` as the result for this key, session and inputs (replacing any stored one). */
  set(key: string, session: Session, value: T, inputs?: string): void;
  /** The stored result, or `compute()` (then stored). `inputs`: a digest of the session's other inputs (its codes: codesDigest). */
  get(key: string, session: Session, compute: () => T, inputs?: string): T;
  /** Write the entries used in this run (results of sessions no longer in the study are dropped). */
  save(): Promise<void>;
  /** Counts for progress messages: entries reused and computed in this run. */
  readonly stats: { reused: number; computed: number };
}

/** A stored result with the hash of what it was computed from (settings, session, other inputs). */
interface StoredEntry<T> {
  hash: string;
  value: T;
}

const sessionHashes = new WeakMap<Session, string>();

/**
 * Content hash of a session as loaded (turns, participants and metadata): the hash its loader
 * remembered ({@link rememberSessionHash}), else the sha256 of its JSON, once per object. A
 * session is never changed in place once loaded or hashed.
 */
export function sessionHash(session: Session): string {
  let hash = sessionHashes.get(session);
  if (hash === undefined) {
    hash = sha256(JSON.stringify(session));
    sessionHashes.set(session, hash);
  }
  return hash;
}

/**
 * Remember the content hash of a session read from a file: the sha256 of the file's bytes, which
 * its loader hashes or kept with the file's stamp (src/study/validated-sessions.ts). The session is a function of those bytes
 * and of the code (which every memo's settings include), so they key its memos as well as its
 * JSON would; hashing the JSON of 1,000 loaded sessions took 80 ms a run. Equal sessions in
 * differently laid out files get different hashes: a result computed again, never a wrong one.
 */
export function rememberSessionHash(session: Session, fileSha256: string): void {
  sessionHashes.set(session, fileSha256);
}

/**
 * Digest of one session's code records as the analyses read them: each record's turn, codes and
 * scores, in file order (the `inputs` of SessionMemo.get; join several coders' digests). A
 * record's provenance, rationale and timestamps decide no number, and hashing them made this
 * several times dearer on a 100,000-record study. Length-prefixed fields keep it unambiguous
 * whatever the ids hold.
 */
export function codesDigest(records: readonly CodeRecord[]): string {
  let text = "";
  for (const r of records) {
    text += `${r.turn.length}:${r.turn}`;
    if (r.codes) {
      text += `c${r.codes.length}`;
      for (const code of r.codes) text += `${code.length}:${code}`;
    } else text += "-";
    text += r.scores ? JSON.stringify(r.scores) : "-";
  }
  return sha256(text);
}

/**
 * A memo's name: a fixed kind ("concepts"), or a kind and the ids it is kept per (["compare",
 * codebook, coder]), each id percent-encoded into its own path segment so that no two names
 * share a file (codebook "a-b" with coder "c" and codebook "a" with coder "b-c" do not).
 */
export type MemoName = string | readonly [kind: string, ...ids: string[]];

export function memoPath(study: string, name: MemoName): string {
  const [kind, ...ids] = typeof name === "string" ? [name] : name;
  const segments = [kind, ...ids.map((id) => encodeURIComponent(id))];
  segments[segments.length - 1] += ".v8";
  return join(study, ".cache", "memo", ...segments);
}

/** The settings hash a memo's entries were computed under: the caller's settings and the code (util/code-version.ts). */
const settingsHashOf = (settings: unknown) => hashValue({ settings, code: codeVersion() });

/** Open (or start) the memo `name` of a study for computations made under `settings`. */
export async function openSessionMemo<T>(study: string, name: MemoName, settings: unknown): Promise<SessionMemo<T>> {
  const path = memoPath(study, name);
  const settingsHash = settingsHashOf(settings);
  const log = await openKeyedLog<StoredEntry<T>>(path, settingsHash);
  // Memos of versions before the log format were JSON files holding per-turn text, possibly of
  // sessions since withdrawn: not left behind in a folder researchers share.
  if (typeof name === "string") await rm(join(study, ".cache", "memo", `${name}.json`), { force: true });
  const stored = log.stored;
  const used = new Map<string, StoredEntry<T>>();
  const computed: string[] = [];
  const stats = { reused: 0, computed: 0 };
  // The settings are in every entry's hash, not only in the file's first frame: a run under other
  // settings may rewrite the file while this one runs, and this one's appended entries must then
  // never match a run under those settings.
  const entryHash = (session: Session, inputs: string | undefined) => `${settingsHash}:${sessionHash(session)}:${inputs ?? ""}`;
  const lookup = (key: string, session: Session, inputs: string | undefined) => {
    const entry = stored.get(key);
    return entry && entry.hash === entryHash(session, inputs) ? entry : undefined;
  };
  const memo: SessionMemo<T> = {
    stats,
    has: (key, session, inputs) => lookup(key, session, inputs) !== undefined,
    find(key, session, inputs) {
      const entry = lookup(key, session, inputs);
      if (!entry) return undefined;
      stats.reused++;
      used.set(key, entry);
      return entry.value;
    },
    set(key, session, value, inputs) {
      stats.computed++;
      used.set(key, { hash: entryHash(session, inputs), value });
      computed.push(key);
    },
    get(key, session, compute, inputs) {
      if (memo.has(key, session, inputs)) return memo.find(key, session, inputs) as T;
      const value = compute();
      memo.set(key, session, value, inputs);
      return value;
    },
    async save() {
      await log.save(used, computed);
      computed.length = 0;
    },
  };
  return memo;
}

/** "; 3 session(s) analysed, 997 reused" when earlier results were reused, else "". */
export function memoNote(memo: SessionMemo<unknown>): string {
  return memo.stats.reused > 0 ? ` (${memo.stats.computed} analysed, ${memo.stats.reused} reused from .cache/memo)` : "";
}

/**
 * One study-level result recombined from per-session parts (e.g. the agreement statistics over
 * the turns every coder coded), kept in `<study>/.cache/memo/<name>.v8` beside the session
 * memos: reused when the digest of everything it is computed from (`inputs`), the settings and
 * the code match (as for openSessionMemo), else computed and stored. A cache like those.
 */
export async function memoResult<T>(
  study: string,
  name: MemoName,
  settings: unknown,
  inputs: string,
  compute: () => T,
): Promise<{ value: T; reused: boolean }> {
  const path = memoPath(study, name);
  const settingsHash = settingsHashOf(settings);
  const file = await readStampedFile<{ inputs: string; value: T }>(path, "settings", settingsHash);
  if (file && file.inputs === inputs) return { value: file.value as T, reused: true };
  const value = compute();
  await writeStampedFile(path, "settings", settingsHash, { inputs, value });
  return { value, reused: false };
}
