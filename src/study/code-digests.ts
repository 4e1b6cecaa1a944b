import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { parseCodesText } from "../coding/codes-file.js";
import { recordsBySession, type CodeRecord } from "../coding/records.js";
import { codesPath, latestRecords } from "../coding/store.js";
import type { Session } from "../transcript/schema.js";
import { codeVersion } from "../util/code-version.js";
import { sha256 } from "../util/hash.js";
import { readStampedFile, writeStampedFile } from "../util/stamped-file.js";
import { currentCodes } from "./reader.js";
import { codesDigest, memoPath, sessionHash } from "./session-memo.js";

/**
 * Per-session digests of one coder's current records (codesDigest of each session's records that
 * still describe their turn: the `inputs` of a per-session memo), and what the dashboard counts
 * of them, without parsing the records again when they were digested on an earlier run.
 *
 * A codes file only grows while coding (each run appends; coding/codes-file.ts), so the digests
 * are kept in .cache/memo/codes-digests/ with the file's inode, size and the sha256 of those
 * bytes. Next time, when the file still starts with exactly those bytes, only what was appended
 * is parsed: at 100,000 turns, adding a session parses its 100 lines, not the 49 MB of a scales
 * codebook's file. Everything else means reading the whole file, as readCodes does:
 * - no digests kept, another code version, another inode (a rewrite: replaceCodes, repair,
 *   import moving codes), a file that shrank or whose first bytes changed;
 * - an appended record for a session the kept digests already cover (a turn coded again: the
 *   latest record wins, and its other records are in the bytes not parsed);
 * - a session whose content changed since (its records' currency may have changed), or one
 *   that joined or left the study while records of it were kept;
 * - appended bytes that do not start at a line a reader may start at.
 * It is a cache: deleting .cache/ is safe.
 */
export interface CodeDigests {
  /** codesDigest of the session's current records (of none when it has none). */
  digest(session: string): string;
  /** Distinct turns with a current record, the models named in their provenance, their first and last times. */
  facts(): { turns: number; models: Set<string>; first?: string; last?: string };
  /** Codes the current records use, in the order first used. */
  readonly codes: readonly string[];
  /** Scales the current records rate, in the order first rated, each with its highest rating (rounded up). */
  readonly scales: ReadonlyMap<string, number>;
  /** Codebook versions of the current records, in the order first met, each with its number of records. */
  readonly versions: ReadonlyMap<string, number>;
  /** Sessions with current records, in the order their first record comes (sessions the study does not have included). */
  sessionIds(): string[];
  /** The current records of these sessions, in file order. */
  records(sessions: ReadonlySet<string>): Promise<CodeRecord[]>;
  /** What was parsed: every record, only the records appended since the kept digests, or nothing (records already in memory). */
  readonly parsed: "all" | "appended" | "none";
}

/** What one session's current records give. */
interface SessionEntry {
  /** sessionHash of the session the records were checked against; null: not in the study then (its records pass unchecked). */
  hash: string | null;
  digest: string;
  turns: number;
  models: string[];
  first?: string;
  last?: string;
}

interface KeptDigests {
  ino: number;
  /** Bytes digested: the file up to its last complete line then. */
  size: number;
  /** sha256 of those bytes. */
  sha256: string;
  sessions: Map<string, SessionEntry>;
  codes: string[];
  scales: Map<string, number>;
  versions: Map<string, number>;
}

const NONE = codesDigest([]);

function entryOf(list: readonly CodeRecord[], session: Session | undefined): SessionEntry {
  const models = new Set<string>();
  let first: string | undefined;
  let last: string | undefined;
  for (const r of list) {
    if (typeof r.provenance.model === "string") models.add(r.provenance.model);
    if (first === undefined || r.createdAt < first) first = r.createdAt;
    if (last === undefined || r.createdAt > last) last = r.createdAt;
  }
  return { hash: session ? sessionHash(session) : null, digest: codesDigest(list), turns: list.length, models: [...models], first, last };
}

/** Add what `current` (records in file order) gives to `kept`. */
function addRecords(
  kept: Pick<KeptDigests, "sessions" | "codes" | "scales" | "versions">,
  current: readonly CodeRecord[],
  byId: ReadonlyMap<string, Session>,
): void {
  for (const [id, list] of recordsBySession(current)) kept.sessions.set(id, entryOf(list, byId.get(id)));
  const codes = new Set(kept.codes);
  for (const r of current) {
    for (const code of r.codes ?? []) {
      if (codes.has(code)) continue;
      codes.add(code);
      kept.codes.push(code);
    }
    const scores = r.scores;
    if (scores) for (const scale in scores) kept.scales.set(scale, Math.max(kept.scales.get(scale) ?? 0, Math.ceil(scores[scale])));
    kept.versions.set(r.codebookVersion, (kept.versions.get(r.codebookVersion) ?? 0) + 1);
  }
}

/** Digests of current records already in memory (a pipeline run that loaded them): nothing kept or read. */
export function digestsOf(records: readonly CodeRecord[], sessions: readonly Session[]): CodeDigests {
  const kept = { sessions: new Map<string, SessionEntry>(), codes: [] as string[], scales: new Map<string, number>(), versions: new Map<string, number>() };
  addRecords(kept, records, new Map(sessions.map((s) => [s.id, s])));
  return digestsOver(kept, "none", async (wanted) => records.filter((r) => wanted.has(r.session)));
}

/** The CodeDigests of what is kept, with what was parsed and how records are found. */
function digestsOver(
  kept: Pick<KeptDigests, "sessions" | "codes" | "scales" | "versions">,
  parsed: CodeDigests["parsed"],
  records: CodeDigests["records"],
): CodeDigests {
  return {
    digest: (session) => kept.sessions.get(session)?.digest ?? NONE,
    facts: () => factsOf(kept.sessions),
    codes: kept.codes,
    scales: kept.scales,
    versions: kept.versions,
    sessionIds: () => [...kept.sessions.keys()],
    records,
    parsed,
  };
}

function factsOf(sessions: ReadonlyMap<string, SessionEntry>): ReturnType<CodeDigests["facts"]> {
  const models = new Set<string>();
  let turns = 0;
  let first: string | undefined;
  let last: string | undefined;
  for (const e of sessions.values()) {
    turns += e.turns;
    for (const m of e.models) models.add(m);
    if (e.first !== undefined && (first === undefined || e.first < first)) first = e.first;
    if (e.last !== undefined && (last === undefined || e.last > last)) last = e.last;
  }
  return { turns, models, first, last };
}

/** What was read of a codes file: its bytes from `from` on, and the hashes of what came before. */
interface CodesBytes {
  ino: number;
  /** Where `bytes` start: the kept digests' size when the file still starts with what they digested, else 0. */
  from: number;
  bytes: Buffer;
  /** Up to the last complete line: what follows may still be being written. */
  size: number;
  /** sha256 of the file's first `size` bytes. */
  sha256: string;
}

/**
 * Read a codes file once (the bytes hashed are the bytes parsed, even while another process
 * appends). When `kept` digested the first `kept.size` bytes of this inode, those are hashed a
 * chunk at a time and only what follows is held: at 100,000 turns the 49 MB of a scales codebook's
 * file are never in memory at once when one session was added.
 */
async function readCodesBytes(path: string, kept: { ino: number; size: number; sha256: string } | undefined): Promise<CodesBytes> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ino: 0, from: 0, bytes: Buffer.alloc(0), size: 0, sha256: sha256("") };
    throw error;
  }
  try {
    const { ino } = await handle.stat();
    const hash = createHash("sha256");
    let from = 0;
    if (kept && kept.ino === ino) {
      const chunk = Buffer.allocUnsafe(Math.min(kept.size, 1 << 22));
      let at = 0;
      while (at < kept.size) {
        const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, kept.size - at), at);
        if (bytesRead === 0) break;
        hash.update(chunk.subarray(0, bytesRead));
        at += bytesRead;
      }
      if (at === kept.size && hash.copy().digest("hex") === kept.sha256) from = kept.size;
    }
    // The rest, to the end as it is now (a whole file when the start did not match).
    const parts: Buffer[] = [];
    let at = from;
    // The hash goes on from the kept bytes, or starts over with the whole file.
    const rest = from > 0 ? hash : createHash("sha256");
    for (;;) {
      const chunk = Buffer.allocUnsafe(1 << 22);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, at);
      if (bytesRead === 0) break;
      parts.push(chunk.subarray(0, bytesRead));
      at += bytesRead;
    }
    const bytes = Buffer.concat(parts);
    const complete = bytes.lastIndexOf(0x0a) + 1;
    rest.update(bytes.subarray(0, complete));
    return { ino, from, bytes, size: from + complete, sha256: rest.digest("hex") };
  } finally {
    await handle.close();
  }
}

/** The digests of one coder's codes of one codebook, against the study's sessions as they are now. */
export async function codeDigests(study: string, codebook: string, coder: string, sessions: readonly Session[]): Promise<CodeDigests> {
  const path = codesPath(study, codebook, coder);
  const cache = memoPath(study, ["codes-digests", codebook, coder]);
  const version = codeVersion();
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const owner = { codebook, coder };
  // As readCodes reads them (an unterminated last line that parses is a record; one that does not is torn and skipped).
  const parse = (bytes: Buffer) => currentCodes(latestRecords(parseCodesText(bytes.toString("utf8"), path, owner)), sessions);

  const stored = await readStampedFile<KeptDigests>(cache, "version", version);
  const kept =
    stored?.sessions instanceof Map &&
    Array.isArray(stored.codes) &&
    stored.scales instanceof Map &&
    stored.versions instanceof Map &&
    typeof stored.ino === "number" &&
    typeof stored.size === "number" &&
    typeof stored.sha256 === "string"
      ? (stored as KeptDigests)
      : undefined;
  let read = await readCodesBytes(path, kept);
  const keptSessions = kept?.sessions;

  let digests: KeptDigests | undefined;
  /** Records parsed this run: all of them, or only those appended since the kept digests. */
  let parsed: { all: boolean; records: CodeRecord[] } | undefined;
  if (kept && read.from > 0 && [...kept.sessions].every(([id, entry]) => entry.hash === (byId.has(id) ? sessionHash(byId.get(id)!) : null))) {
    let appended: CodeRecord[] | undefined;
    try {
      appended = parse(read.bytes);
    } catch {
      // Not a line a reader may start at: read it all.
    }
    if (appended && appended.every((r) => !kept.sessions.has(r.session))) {
      digests = {
        ino: read.ino,
        size: read.size,
        sha256: read.sha256,
        sessions: new Map(kept.sessions),
        codes: kept.codes,
        scales: kept.scales,
        versions: kept.versions,
      };
      addRecords(digests, appended, byId);
      parsed = { all: false, records: appended };
    }
  }
  if (!digests) {
    if (read.from > 0) read = await readCodesBytes(path, undefined);
    const all = parse(read.bytes);
    digests = { ino: read.ino, size: read.size, sha256: read.sha256, sessions: new Map(), codes: [], scales: new Map(), versions: new Map() };
    addRecords(digests, all, byId);
    parsed = { all: true, records: all };
  }
  if (parsed!.all || kept!.size !== read.size) await writeStampedFile(cache, "version", version, digests);

  const { all, records } = parsed!;
  return digestsOver(digests, all ? "all" : "appended", async (wanted) => {
    // What was parsed holds every record of these sessions: all records, or sessions whose records were all appended since.
    const inParsed = all || [...wanted].every((id) => !keptSessions!.has(id));
    const source = inParsed ? records : parse((await readCodesBytes(path, undefined)).bytes);
    return source.filter((r) => wanted.has(r.session));
  });
}
