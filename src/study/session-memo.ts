import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
 * An entry is used only when the session's content hash matches, and the whole file only when
 * the settings it was computed under and the code that computed it match (a hash of every
 * source file under src/analysis/, so a fix to an analysis invalidates its memo even when the
 * version number stays the same). It is a cache: a missing,
 * torn or foreign file is recomputed, never trusted or repaired, and deleting .cache/ is safe.
 */
export interface SessionMemo<T> {
  /** True when a stored result for this key and session content exists. */
  has(key: string, session: Session): boolean;
  /** The stored result, or `compute()` (then stored). */
  get(key: string, session: Session, compute: () => T): T;
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
function sessionHash(session: Session): string {
  let hash = sessionHashes.get(session);
  if (hash === undefined) {
    hash = sha256(JSON.stringify(session));
    sessionHashes.set(session, hash);
  }
  return hash;
}

let analysisCode: string | undefined;

/** Hash of the analysis code itself (src/analysis/ or its compiled dist/ twin), read once. */
function analysisCodeHash(): string {
  if (analysisCode === undefined) {
    const root = fileURLToPath(new URL("../analysis/", import.meta.url));
    const files = readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith(".d.ts"))
      .sort();
    analysisCode = sha256(files.map((f) => `${f}\u0000${sha256(readFileSync(join(root, f)))}`).join("\n"));
  }
  return analysisCode;
}

export function memoPath(study: string, name: string): string {
  return join(study, ".cache", "memo", `${name}.json`);
}

/** Open (or start) the memo `name` of a study for computations made under `settings`. */
export async function openSessionMemo<T>(study: string, name: string, settings: unknown): Promise<SessionMemo<T>> {
  const path = memoPath(study, name);
  const settingsHash = hashValue({ settings, tool: toolVersion, code: analysisCodeHash() });
  let stored: MemoFile<T>["entries"] = {};
  try {
    const file = JSON.parse(await readFile(path, "utf8")) as MemoFile<T>;
    if (file && file.settings === settingsHash && file.entries && typeof file.entries === "object") stored = file.entries;
  } catch {
    // Missing or unreadable: start empty (a cache, recomputed from the sessions).
  }
  const used: MemoFile<T>["entries"] = {};
  const stats = { reused: 0, computed: 0 };
  const lookup = (key: string, session: Session) => {
    const entry = Object.hasOwn(stored, key) ? stored[key] : undefined;
    return entry && entry.hash === sessionHash(session) ? entry : undefined;
  };
  return {
    stats,
    has: (key, session) => lookup(key, session) !== undefined,
    get(key, session, compute) {
      const entry = lookup(key, session);
      if (entry) {
        stats.reused++;
        used[key] = entry;
        return entry.value;
      }
      const value = compute();
      stats.computed++;
      used[key] = { hash: sessionHash(session), value };
      return value;
    },
    async save() {
      // Nothing new and nothing dropped: leave the file as it is.
      if (stats.computed === 0 && Object.keys(used).length === Object.keys(stored).length) return;
      // Compact JSON: this file is read whole on every run.
      await writeFileAtomic(path, JSON.stringify({ settings: settingsHash, entries: used } satisfies MemoFile<T>));
    },
  };
}

/** "; 3 session(s) analysed, 997 reused" when earlier results were reused, else "". */
export function memoNote(memo: SessionMemo<unknown>): string {
  return memo.stats.reused > 0 ? ` (${memo.stats.computed} analysed, ${memo.stats.reused} reused from .cache/memo)` : "";
}
