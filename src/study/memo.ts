import { mkdirSync, readFileSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import type { CodeRecord } from "../coding/records.js";
import type { Session } from "../transcript/schema.js";
import { codeVersion } from "../util/code-version.js";
import { writeSmallFileAtomic } from "../util/fs.js";
import { hashValue, sha256 } from "../util/hash.js";

/**
 * The one memo: results of deterministic per-session computations (a session's noun concepts,
 * its rules topic trees, its statistics and dashboard parts), kept between runs so that adding one
 * session to a large study computes that session only.
 *
 * An entry is keyed by (session content hash + the digest of its other inputs, such as its code
 * records), and valid under one settings hash and code version (util/code-version.ts). On disk
 * each memo is a folder, `<study>/.cache/memo/<kind>[/<id>…]/`, with one file per entry, named by
 * the sha256 of (settings and code version, key, inputs), holding the v8 serialisation of the
 * value (v8 rather than JSON because results hold NaN, Infinity and undefined, which must come back
 * exactly). An entry is read when it is asked for; a run writes the entries it computed, each
 * atomically, and deletes those it did not use: adding one session writes one entry per memo,
 * where rewriting a whole memo of 1,000 sessions cost seconds. It is a cache: a missing, torn or
 * foreign file is recomputed, never trusted; deleting .cache/ is safe.
 */
export interface Memo<T> {
  /** The stored result for `key` computed from `inputs` (then kept by save), else `compute()` (then stored). */
  get(key: string, inputs: string, compute: () => T): T;
  /** As `get`, for a computation that first reads what it needs (a session's file): `compute` runs only when no result is kept. */
  getAsync(key: string, inputs: string, compute: () => Promise<T>): Promise<T>;
  /**
   * The result kept for `key` computed from `inputs` (this run's, else a readable stored one, then
   * kept by save), or undefined: what `get` would return without computing.
   */
  kept(key: string, inputs: string): { value: T } | undefined;
  /** Store `value` for `key` computed from `inputs` (replacing any stored one). */
  set(key: string, inputs: string, value: T): void;
  /** Write the entries computed in this run and delete those not used in it (sessions no longer asked for, older inputs). */
  save(): Promise<void>;
  /** Entries reused and computed in this run (for progress messages). */
  readonly stats: { reused: number; computed: number };
}

/** A memo's name: a kind ("concepts"), or a kind and the ids it is kept per (["compare", codebook, coder]). */
export type MemoName = string | readonly [kind: string, ...ids: string[]];

/** The folder of a memo: each id percent-encoded into its own path segment, so no two names share a folder. */
export function memoPath(study: string, name: MemoName): string {
  const [kind, ...ids] = typeof name === "string" ? [name] : name;
  return join(study, ".cache", "memo", kind, ...ids.map((id) => encodeURIComponent(id)));
}

/** A stored entry's value, or undefined when its file is missing, torn or foreign. */
function readEntry<T>(path: string): { value: T } | undefined {
  try {
    const entry = deserialize(readFileSync(path)) as { value: T };
    if (entry !== null && typeof entry === "object" && "value" in entry) return entry;
  } catch {
    // missing, torn or foreign: recomputed
  }
  return undefined;
}

/** Open (or start) the memo `name` of a study, for computations made under `settings`. */
export async function openMemo<T>(study: string, name: MemoName, settings: unknown): Promise<Memo<T>> {
  const dir = memoPath(study, name);
  const version = hashValue({ settings, code: codeVersion() });
  const fileOf = (key: string, inputs: string) => `${sha256(`${version}\u0000${key.length}:${key}\u0000${inputs}`)}.v8`;
  /** Per key, the entry this run used: its file name, and its value when this run computed it. */
  const used = new Map<string, { file: string; computed?: { value: T } }>();
  const stats = { reused: 0, computed: 0 };
  const store = (key: string, inputs: string, value: T) => {
    used.set(key, { file: fileOf(key, inputs), computed: { value } });
    stats.computed++;
  };
  /** The entry kept for `key` made from `inputs` (this run's, else the stored one, then marked used), or undefined. */
  const kept = (key: string, inputs: string): { value: T } | undefined => {
    const file = fileOf(key, inputs);
    const entry = used.get(key);
    if (entry?.file === file && entry.computed) return entry.computed;
    const stored = readEntry<T>(join(dir, file));
    if (stored) {
      stats.reused++;
      used.set(key, { file });
    }
    return stored;
  };
  return {
    stats,
    kept,
    get(key, inputs, compute) {
      const entry = kept(key, inputs);
      if (entry) return entry.value;
      const value = compute();
      store(key, inputs, value);
      return value;
    },
    async getAsync(key, inputs, compute) {
      const entry = kept(key, inputs);
      if (entry) return entry.value;
      const value = await compute();
      store(key, inputs, value);
      return value;
    },
    set: store,
    async save() {
      const fresh = [...used.values()].filter((e) => e.computed);
      // One at a time, synchronously: a first run at 100,000 turns writes ~10,000 small entries.
      if (fresh.length > 0) mkdirSync(dir, { recursive: true });
      for (const e of fresh) writeSmallFileAtomic(join(dir, e.file), serialize(e.computed));
      const keep = new Set([...used.values()].map((e) => e.file));
      const files = await readdir(dir, { withFileTypes: true }).catch(() => []);
      await Promise.all(files.filter((f) => f.isFile() && !keep.has(f.name)).map((f) => rm(join(dir, f.name), { force: true })));
      // A memo of earlier versions was one file beside where its folder is now.
      await rm(`${dir}.v8`, { force: true });
    },
  };
}

/**
 * Answers that depend on one key alone (a word's class in the tagger, a word's entry in the rules
 * coder's lexicon), kept as one entry of the memo `["answers", name]`: a run that adds one session
 * then loads no slow library (compromise: 0.35-1 s) to ask again what earlier runs asked. `maps`
 * are the in-process maps of answers: filled from the memo now; the returned function stores
 * them when they grew. An answer is never changed once made, so a kept one equals a fresh one.
 */
export async function keepAnswers(study: string, name: string, maps: readonly Map<string, unknown>[]): Promise<() => Promise<void>> {
  const memo = await openMemo<[string, unknown][][]>(study, ["answers", name], {});
  const size = () => maps.reduce((n, m) => n + m.size, 0);
  const stored = memo.kept("answers", "")?.value ?? [];
  if (stored.length === maps.length) maps.forEach((map, i) => stored[i].forEach(([key, value]) => map.has(key) || map.set(key, value)));
  const loaded = size();
  return async () => {
    if (size() === loaded && stored.length === maps.length) return;
    memo.set(
      "answers",
      "",
      maps.map((m) => [...m]),
    );
    await memo.save();
  };
}

/** " (3 analysed, 997 reused from .cache/memo)" when earlier results were reused, else "". */
export function memoNote(memo: Memo<unknown>): string {
  return memo.stats.reused > 0 ? ` (${memo.stats.computed} analysed, ${memo.stats.reused} reused from .cache/memo)` : "";
}

const sessionHashes = new WeakMap<Session, string>();

/**
 * Content hash of a session as loaded: the sha256 of its file's bytes when its loader remembered
 * it ({@link rememberSessionHash}), else the sha256 of its JSON, once per object. A session is
 * never changed in place once loaded.
 */
export function sessionHash(session: Session): string {
  let hash = sessionHashes.get(session);
  if (hash === undefined) {
    hash = sha256(JSON.stringify(session));
    sessionHashes.set(session, hash);
  }
  return hash;
}

/** Remember the content hash of a session read from a file (the sha256 of the file's bytes). */
export function rememberSessionHash(session: Session, fileSha256: string): void {
  sessionHashes.set(session, fileSha256);
}

/**
 * Digest of one session's code records as the analyses read them: each record's turn, codes and
 * scores, in file order. Provenance, rationale and timestamps decide no number.
 * Length-prefixed fields keep it unambiguous whatever the ids hold.
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
