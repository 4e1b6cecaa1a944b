import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { deserialize, serialize } from "node:v8";
import type { CodeRecord } from "../coding/records.js";
import type { Session } from "../transcript/schema.js";
import { hashValue, sha256 } from "../util/hash.js";
import { writeFileAtomic } from "../util/fs.js";
import { toolVersion } from "../util/provenance.js";

/**
 * Results of a deterministic per-session computation (noun concepts of a session, its rules
 * topic trees), kept between runs in `<study>/.cache/memo/<name>.json` so that adding one
 * session to a large study recomputes that session only, and the study-level statistics are
 * recombined from the stored parts (issue 11: incremental where the work is per session).
 *
 * An entry is used only when the session's content hash matches (and the digest of its other
 * inputs, such as the session's codes, when the caller gives one), and the whole file only when
 * the settings it was computed under and the code that computed it match (a hash of every
 * source file under src/analysis/ and the caller's own code folders, so a fix to an analysis
 * invalidates its memo even when the version number stays the same). It is a cache: a missing,
 * torn or foreign file is recomputed, never trusted or repaired, and deleting .cache/ is safe.
 *
 * Stored with node:v8's serializer, not JSON: statistics hold NaN, Infinity and undefined, which
 * JSON would turn into null or drop, and a reused result must equal a fresh one exactly. The V8
 * version is part of the settings, since its format may change between Node releases.
 */
export interface SessionMemo<T> {
  /** True when a stored result for this key, session content and other inputs exists. */
  has(key: string, session: Session, inputs?: string): boolean;
  /** The stored result, or `compute()` (then stored). `inputs`: a digest of the session's other inputs (its codes: codesDigest). */
  get(key: string, session: Session, compute: () => T, inputs?: string): T;
  /** Write the entries used in this run (results of sessions no longer in the study are dropped). */
  save(): Promise<void>;
  /** Counts for progress messages: entries reused and computed in this run. */
  readonly stats: { reused: number; computed: number };
}

interface MemoFile<T> {
  settings: string;
  entries: Record<string, { hash: string; value: T }>;
}

const sessionHashes = new WeakMap<Session, string>();

/** Content hash of a session as loaded (turns, participants and metadata). */
export function sessionHash(session: Session): string {
  let hash = sessionHashes.get(session);
  if (hash === undefined) {
    hash = sha256(JSON.stringify(session));
    sessionHashes.set(session, hash);
  }
  return hash;
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

const codeHashes = new Map<string, string>();

/** Hash of the code in a folder of src/ (or its compiled dist/ twin), e.g. "analysis"; read once per folder. */
function codeHash(folder: string): string {
  let hash = codeHashes.get(folder);
  if (hash === undefined) {
    const root = fileURLToPath(new URL(`../${folder}/`, import.meta.url));
    const files = readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith(".d.ts"))
      .sort();
    hash = sha256(files.map((f) => `${f}\u0000${sha256(readFileSync(join(root, f)))}`).join("\n"));
    codeHashes.set(folder, hash);
  }
  return hash;
}

export function memoPath(study: string, name: string): string {
  return join(study, ".cache", "memo", `${name}.v8`);
}

/**
 * Open (or start) the memo `name` of a study for computations made under `settings`. `code`: the
 * src/ folders whose code computes the results, besides analysis/ (e.g. ["report/shape"]).
 */
export async function openSessionMemo<T>(study: string, name: string, settings: unknown, code: readonly string[] = []): Promise<SessionMemo<T>> {
  const path = memoPath(study, name);
  const settingsHash = hashValue({ settings, tool: toolVersion, v8: process.versions.v8, code: ["analysis", ...code].map(codeHash) });
  let stored: MemoFile<T>["entries"] = {};
  try {
    const file = deserialize(await readFile(path)) as MemoFile<T>;
    if (file && file.settings === settingsHash && file.entries && typeof file.entries === "object") stored = file.entries;
  } catch {
    // Missing or unreadable: start empty (a cache, recomputed from the sessions).
  }
  const used: MemoFile<T>["entries"] = {};
  const stats = { reused: 0, computed: 0 };
  const entryHash = (session: Session, inputs: string | undefined) => (inputs === undefined ? sessionHash(session) : `${sessionHash(session)}:${inputs}`);
  const lookup = (key: string, session: Session, inputs: string | undefined) => {
    const entry = Object.hasOwn(stored, key) ? stored[key] : undefined;
    return entry && entry.hash === entryHash(session, inputs) ? entry : undefined;
  };
  return {
    stats,
    has: (key, session, inputs) => lookup(key, session, inputs) !== undefined,
    get(key, session, compute, inputs) {
      const entry = lookup(key, session, inputs);
      if (entry) {
        stats.reused++;
        used[key] = entry;
        return entry.value;
      }
      const value = compute();
      stats.computed++;
      used[key] = { hash: entryHash(session, inputs), value };
      return value;
    },
    async save() {
      // Nothing new and nothing dropped: leave the file as it is.
      if (stats.computed === 0 && Object.keys(used).length === Object.keys(stored).length) return;
      await writeFileAtomic(path, serialize({ settings: settingsHash, entries: used } satisfies MemoFile<T>));
    },
  };
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
  name: string,
  settings: unknown,
  inputs: string,
  compute: () => T,
  code: readonly string[] = [],
): Promise<{ value: T; reused: boolean }> {
  const path = memoPath(study, name);
  const settingsHash = hashValue({ settings, tool: toolVersion, v8: process.versions.v8, code: ["analysis", ...code].map(codeHash) });
  try {
    const file = deserialize(await readFile(path)) as { settings?: string; inputs?: string; value: T };
    if (file && file.settings === settingsHash && file.inputs === inputs) return { value: file.value, reused: true };
  } catch {
    // Missing or unreadable: computed anew.
  }
  const value = compute();
  await writeFileAtomic(path, serialize({ settings: settingsHash, inputs, value }));
  return { value, reused: false };
}
