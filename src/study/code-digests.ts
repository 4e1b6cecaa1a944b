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
  return {
    digest: (session) => kept.sessions.get(session)?.digest ?? NONE,
    facts: () => factsOf(kept.sessions),
    codes: kept.codes,
    scales: kept.scales,
    versions: kept.versions,
    sessionIds: () => [...kept.sessions.keys()],
    records: async (wanted) => records.filter((r) => wanted.has(r.session)),
    parsed: "none",
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

/** The file's bytes and inode, read at once (the bytes hashed are the bytes parsed, even while another process appends). */
async function readWhole(path: string): Promise<{ bytes: Buffer; ino: number }> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { bytes: Buffer.alloc(0), ino: 0 };
    throw error;
  }
  try {
    return { ino: (await handle.stat()).ino, bytes: await handle.readFile() };
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
  const parse = (bytes: Buffer, from: number) => currentCodes(latestRecords(parseCodesText(bytes.toString("utf8", from), path, owner)), sessions);

  const { bytes, ino } = await readWhole(path);
  // Kept up to the last complete line: what follows may still be being written.
  const size = bytes.lastIndexOf(0x0a) + 1;
  const kept = await readStampedFile<KeptDigests>(cache, "version", version);
  const keptSessions = kept?.sessions instanceof Map ? kept.sessions : undefined;

  let digests: KeptDigests | undefined;
  /** Records parsed this run: all of them, or only those appended since the kept digests. */
  let parsed: { all: boolean; records: CodeRecord[] } | undefined;
  if (
    keptSessions &&
    Array.isArray(kept!.codes) &&
    kept!.scales instanceof Map &&
    kept!.versions instanceof Map &&
    kept!.ino === ino &&
    typeof kept!.size === "number" &&
    kept!.size <= size
  ) {
    const unchanged =
      sha256(bytes.subarray(0, kept!.size)) === kept!.sha256 &&
      [...keptSessions].every(([id, entry]) => entry.hash === (byId.has(id) ? sessionHash(byId.get(id)!) : null));
    let appended: CodeRecord[] | undefined;
    try {
      appended = unchanged ? parse(bytes, kept!.size) : undefined;
    } catch {
      // Not a line a reader may start at: read it all.
    }
    if (appended && appended.every((r) => !keptSessions.has(r.session))) {
      digests = { ino, size, sha256: kept!.sha256!, sessions: new Map(keptSessions), codes: kept!.codes!, scales: kept!.scales, versions: kept!.versions };
      addRecords(digests, appended, byId);
      parsed = { all: false, records: appended };
    }
  }
  if (!digests) {
    const all = parse(bytes, 0);
    digests = { ino, size, sha256: "", sessions: new Map(), codes: [], scales: new Map(), versions: new Map() };
    addRecords(digests, all, byId);
    parsed = { all: true, records: all };
  }
  if (parsed!.all || kept!.size !== size) {
    digests.sha256 = sha256(bytes.subarray(0, size));
    await writeStampedFile(cache, "version", version, digests);
  }

  const result = digests;
  const { all, records } = parsed!;
  return {
    digest: (session) => result.sessions.get(session)?.digest ?? NONE,
    facts: () => factsOf(result.sessions),
    codes: result.codes,
    scales: result.scales,
    versions: result.versions,
    sessionIds: () => [...result.sessions.keys()],
    parsed: all ? "all" : "appended",
    async records(wanted) {
      // What was parsed holds every record of these sessions: all records, or sessions whose records were all appended since.
      const inParsed = all || [...wanted].every((id) => !keptSessions!.has(id));
      const source = inParsed ? records : parse((await readWhole(path)).bytes, 0);
      return source.filter((r) => wanted.has(r.session));
    },
  };
}
