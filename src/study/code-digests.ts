import { open } from "node:fs/promises";
import { parseCodesText } from "../coding/codes-file.js";
import { emptySummary, recordsBySession, summariseRecords, type CodeRecord, type RecordsSummary } from "../coding/records.js";
import { codesPath, latestRecords } from "../coding/store.js";
import type { Session } from "../transcript/schema.js";
import { codeVersion } from "../util/code-version.js";
import { FileHash, fileHashOf, hashFileBytes } from "../util/hash.js";
import { readFrom, readWholeFile } from "../util/fs.js";
import { stamp } from "../util/file-stamp.js";
import { knownHash, noteHash, trustworthy } from "../util/known-bytes.js";
import { readStampedFile, writeStampedFile } from "../util/stamped-file.js";
import { currentCodes, type StudyReader } from "./reader.js";
import { codesDigest, memoPath, sessionHash } from "./session-memo.js";

/**
 * Per-session digests of one coder's current records (codesDigest of each session's records that
 * still describe their turn: the `inputs` of a per-session memo), and what the dashboard counts
 * of them, without parsing the records again when they were digested on an earlier run.
 *
 * A codes file only grows while coding (each run appends; coding/codes-file.ts), so the digests
 * are kept in .cache/memo/codes-digests/ with the file's inode, size and the hash (util/hash.ts FileHash) of those
 * bytes. Next time, when the file still starts with exactly those bytes, only what was appended
 * is parsed: at 100,000 turns, adding a session parses its 100 lines, not the 49 MB of a scales
 * codebook's file. Everything else means reading the whole file, as readCodes does:
 * - no digests kept, another code version, another inode (a rewrite: replaceCodes, repair,
 *   import moving codes), a file that shrank or whose first bytes changed;
 * - an appended record for a session the kept digests already cover (a turn coded again: the
 *   latest record wins, and its other records are in the bytes not parsed);
 * - a session whose content changed since (its records' currency may have changed), or one
 *   that joined or left the study while records of it were kept;
 * - a run left open at the end of the bytes digested (its lines may go on in what was appended).
 * It is a cache: deleting .cache/ is safe.
 */
export interface CodeDigests {
  /** codesDigest of the session's current records (of none when it has none). */
  digest(session: string): string;
  /** Distinct turns with a current record, the models named in their provenance, their first and last times. */
  facts(): { turns: number; models: Set<string>; first?: string; last?: string; validation?: RecordsSummary["validation"] };
  /** Codes the current records use, in the order first used. */
  readonly codes: ReadonlySet<string>;
  /** Scales the current records rate, in the order first rated, each with its highest rating (rounded up). */
  readonly scales: ReadonlyMap<string, number>;
  /** Codebook versions of the current records, in the order first met, each with its number of records. */
  readonly versions: ReadonlyMap<string, number>;
  /** Sessions with current records, in the order their first record comes (sessions the study does not have included). */
  sessionIds(): string[];
  /** The current records of these sessions: grouped by session, sessions in the order of their first current record, file order within each. */
  records(sessions: ReadonlySet<string>): Promise<CodeRecord[]>;
  /** What was parsed: every record, only the records appended since the kept digests, or nothing (records already in memory). */
  readonly parsed: "all" | "appended" | "none";
}

/**
 * What one session's records give: one entry for every session with a record, current or not (a
 * session whose every record is withheld has the empty digest and no turns, but its entry still
 * notices when the session changes, or when one of its turns is coded again).
 */
interface SessionEntry {
  /** sessionHash of the session the records were checked against; null: not in the study then (its records pass unchecked). */
  hash: string | null;
  /** codesDigest of its current records. */
  digest: string;
  /** How many current records it has. */
  turns: number;
}

interface KeptDigests {
  ino: number;
  /** Bytes digested: the file up to its last complete line then (kept only when nothing followed it). */
  size: number;
  /** Their hash (util/hash.ts FileHash: a sha256 up to 1 MiB). */
  sha256: string;
  /** Whether a run was open at the end of those bytes: then what follows cannot be read on its own. */
  open: boolean;
  sessions: Map<string, SessionEntry>;
  /** What the current records give the readers (coding/records.ts: summariseRecords), over the whole file. */
  summary: RecordsSummary;
  /**
   * The current records of sessions the study does not have (few: codes of a session deleted or
   * renamed). The join and the alignment count them on every run; kept here, they are not a
   * reason to parse the whole file each time.
   */
  orphans: Map<string, CodeRecord[]>;
}

/** The records of a codes file (or of what was appended to it): the latest of each turn, and those of them still current. */
interface ParsedCodes {
  latest: CodeRecord[];
  current: CodeRecord[];
  /** A run still open at the end of what was parsed. */
  open: boolean;
}

const NONE = codesDigest([]);

/** Add what `parsed` (records in file order) gives to `kept`: an entry for every session with a record, current or not. */
function addRecords(kept: Omit<KeptDigests, "ino" | "size" | "sha256" | "open">, parsed: ParsedCodes, byId: ReadonlyMap<string, Session>): void {
  const entry = (id: string, own: CodeRecord[]) => {
    const session = byId.get(id);
    kept.sessions.set(id, { hash: session ? sessionHash(session) : null, digest: codesDigest(own), turns: own.length });
    if (!session && own.length > 0) kept.orphans.set(id, own);
  };
  // Sessions with current records first, in the order of their first current record (as sessionIds gives them); then those with none.
  for (const [id, own] of recordsBySession(parsed.current)) entry(id, own);
  for (const id of recordsBySession(parsed.latest).keys()) if (!kept.sessions.has(id)) entry(id, []);
  summariseRecords(parsed.current, kept.summary);
}

const nothingKept = (): Omit<KeptDigests, "ino" | "size" | "sha256" | "open"> => ({ sessions: new Map(), summary: emptySummary(), orphans: new Map() });

/** Digests of current records already in memory (a pipeline run that loaded them): nothing kept or read. */
export function digestsOf(records: readonly CodeRecord[], sessions: readonly Session[]): CodeDigests {
  const kept = nothingKept();
  addRecords(kept, { latest: records as CodeRecord[], current: records as CodeRecord[], open: false }, new Map(sessions.map((s) => [s.id, s])));
  return digestsOver(kept, "none", async (wanted) => records.filter((r) => wanted.has(r.session)));
}

/**
 * A reader's digests of one coder's records: kept ones when it keeps them (the pipeline's
 * context), else made from its records (a one-off library call, a selection of sessions). The one
 * place that tells the two apart, so every consumer takes one path.
 */
export async function readerDigests(reader: StudyReader, codebook: string, coder: string): Promise<CodeDigests> {
  if (reader.codeDigests) return reader.codeDigests(codebook, coder);
  return digestsOf(await reader.codes(codebook, coder), await reader.sessions());
}

/** The CodeDigests of what is kept, with what was parsed and how records are found. */
function digestsOver(kept: Omit<KeptDigests, "ino" | "size" | "sha256" | "open">, parsed: CodeDigests["parsed"], records: CodeDigests["records"]): CodeDigests {
  const { summary } = kept;
  return {
    digest: (session) => kept.sessions.get(session)?.digest ?? NONE,
    facts: () => ({
      turns: [...summary.versions.values()].reduce((n, k) => n + k, 0),
      models: summary.models,
      first: summary.first,
      last: summary.last,
      validation: summary.validation,
    }),
    codes: summary.codes,
    scales: summary.scales,
    versions: summary.versions,
    sessionIds: () => [...kept.sessions].filter(([, e]) => e.turns > 0).map(([id]) => id),
    records,
    parsed,
  };
}

/** What was read of a codes file: its bytes from `from` on, and the hashes of what came before. */
interface CodesBytes {
  ino: number;
  /** Where `bytes` start: the kept digests' size when the file still starts with what they digested, else 0. */
  from: number;
  bytes: Buffer;
  /** Up to the last complete line: what follows may still be being written. */
  size: number;
  /** The hash (FileHash) of the file's first `size` bytes. */
  sha256: string;
}

/**
 * Read a codes file once (the bytes hashed are the bytes parsed, even while another process
 * appends). When `kept` digested the first `kept.size` bytes of this inode, those are checked and
 * only what follows is held: at 100,000 turns the 49 MB of a scales codebook's file are never in
 * memory at once when one session was added. They are checked without reading them when this
 * process knows their hash at the file's stamp (util/known-bytes.ts: the fingerprints hashed the
 * file, or this process only appended to it since), else by hashing them a chunk at a time.
 */
async function readCodesBytes(path: string, kept: { ino: number; size: number; sha256: string } | undefined): Promise<CodesBytes> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ino: 0, from: 0, bytes: Buffer.alloc(0), size: 0, sha256: fileHashOf(Buffer.alloc(0)) };
    throw error;
  }
  try {
    const info = await handle.stat();
    const { ino, size } = info;
    const now = stamp(info);
    if (kept && kept.ino === ino && knownHash(path, now, kept.size) === kept.sha256) {
      const bytes = await readFrom(handle, kept.size, size);
      const end = kept.size + bytes.lastIndexOf(0x0a) + 1;
      const whole = knownHash(path, now, end);
      if (whole !== undefined) return { ino, from: kept.size, bytes, size: end, sha256: whole };
    }
    codesHashed.files++;
    const hash = new FileHash();
    let from = 0;
    if (kept && kept.ino === ino && (await hashFileBytes(handle, hash, kept.size)) === kept.size && hash.digest() === kept.sha256) from = kept.size;
    // The rest, to the end as it is now: the whole file when its start did not match, else what follows.
    const bytes = await readFrom(handle, from, size);
    // The hash goes on from the kept bytes, or starts over with the whole file.
    const rest = from > 0 ? hash : new FileHash();
    const complete = bytes.lastIndexOf(0x0a) + 1;
    rest.update(bytes.subarray(0, complete));
    const read = { ino, from, bytes, size: from + complete, sha256: rest.digest() };
    // Not for a file written just now by another program: another write within the same clock tick would leave its stamp as it is.
    if (trustworthy(path, info)) noteHash(path, now, read.size, read.sha256);
    return read;
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
  const parse = (text: string): ParsedCodes => {
    const state: { open?: boolean } = {};
    const latest = latestRecords(parseCodesText(text, path, owner, state));
    return { latest, current: currentCodes(latest, sessions), open: state.open === true };
  };

  const stored = await readStampedFile<KeptDigests>(cache, "version", version);
  const kept =
    stored?.sessions instanceof Map &&
    stored.orphans instanceof Map &&
    stored.summary?.codes instanceof Set &&
    stored.summary.scales instanceof Map &&
    stored.summary.versions instanceof Map &&
    stored.summary.models instanceof Set &&
    typeof stored.ino === "number" &&
    typeof stored.size === "number" &&
    typeof stored.sha256 === "string" &&
    typeof stored.open === "boolean"
      ? (stored as KeptDigests)
      : undefined;
  let read = await readCodesBytes(path, kept);

  let digests: KeptDigests | undefined;
  /** What was parsed this run: every record, or only those appended since the kept digests. */
  let parsed: (ParsedCodes & { all: boolean }) | undefined;
  // What follows the kept bytes reads on its own as in the whole file when no run was open there.
  if (kept && read.from > 0 && !kept.open && [...kept.sessions].every(([id, entry]) => entry.hash === (byId.has(id) ? sessionHash(byId.get(id)!) : null))) {
    let appended: ParsedCodes | undefined;
    try {
      appended = parse(read.bytes.toString("utf8"));
    } catch {
      // Read it all: that names the file's line where it is damaged.
    }
    // A turn of a kept session coded again (even with a record that no longer applies): its other records are in the bytes not parsed.
    if (appended && appended.latest.every((r) => !kept.sessions.has(r.session))) {
      digests = {
        ino: read.ino,
        size: read.size,
        sha256: read.sha256,
        open: appended.open,
        sessions: new Map(kept.sessions),
        summary: kept.summary,
        orphans: new Map(kept.orphans),
      };
      addRecords(digests, appended, byId);
      parsed = { ...appended, all: false };
    }
  }
  if (!digests) {
    if (read.from > 0) read = await readCodesBytes(path, undefined);
    const all = parse(read.bytes.toString("utf8"));
    digests = { ...nothingKept(), ino: read.ino, size: read.size, sha256: read.sha256, open: all.open };
    addRecords(digests, all, byId);
    parsed = { ...all, all: true };
  }
  // Kept only when every record it holds is in the bytes it hashed: a last line without its "\n"
  // (a record written by hand, or one being written) is read again next time, whatever becomes of it.
  const whole = read.bytes.subarray(read.size - read.from).every((b) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09);
  // Written when read whole (the entries may have changed with the sessions, even when the file did not) or when it grew.
  if (whole && (parsed!.all || kept!.size !== read.size)) await writeStampedFile(cache, "version", version, digests);

  const { all, current } = parsed!;
  const inParsed = new Set(current.map((r) => r.session));
  const orphans = digests.orphans;
  return digestsOver(digests, all ? "all" : "appended", async (wanted) => {
    // Records of sessions whose records were all parsed now, or of sessions the study does not have, are at hand.
    if (all) return current.filter((r) => wanted.has(r.session));
    const ids = [...wanted];
    const held = (id: string) => inParsed.has(id) || orphans.has(id) || !digests!.sessions.has(id) || digests!.sessions.get(id)!.turns === 0;
    if (ids.every(held))
      return [...[...orphans].flatMap(([id, own]) => (wanted.has(id) && !inParsed.has(id) ? own : [])), ...current.filter((r) => wanted.has(r.session))];
    const fromLines = await recordsFromLines(path, digests!, wanted, parse);
    recordReads[fromLines ? "lines" : "whole"]++;
    return fromLines ?? parse((await readCodesBytes(path, undefined)).bytes.toString("utf8")).current.filter((r) => wanted.has(r.session));
  });
}

/** How CodeDigests.records found records it did not hold: from the lines naming the sessions, or by reading the whole file (tests look). */
export const recordReads = { lines: 0, whole: 0 };

/** Codes files hashed (tests look: an unchanged file is hashed once per process). */
export const codesHashed = { files: 0 };

/**
 * Every session one coder's codes file names in a record (current or not, in the study or not),
 * from the digests kept of it, when they describe the file as it is: the same inode, and its
 * whole `size` bytes with this sha256 (the caller's hash of the file). Undefined otherwise. The
 * pipeline's code stage asks it which sessions a file holds on its first per-session run after a
 * full one, which hashed the file anyway; the analyses of that full run kept these digests.
 */
export async function keptCodesSessions(
  study: string,
  codebook: string,
  coder: string,
  file: { ino: number; size: number; sha256: string },
): Promise<string[] | undefined> {
  const kept = await readStampedFile<Partial<KeptDigests>>(memoPath(study, ["codes-digests", codebook, coder]), "version", codeVersion());
  if (!(kept?.sessions instanceof Map) || kept.ino !== file.ino || kept.size !== file.size || kept.sha256 !== file.sha256) return undefined;
  // An entry for every session with a record (addRecords), orphans included.
  return [...kept.sessions.keys()].sort();
}

/**
 * The current records of the `wanted` sessions, parsed from only the lines that name them (with
 * the header of the run each is in), when the file still starts with the bytes `kept` digested.
 * A dashboard build in its own process, after the stages digested a new session's codes, then
 * parses that session's lines, not every record (at 100,000 turns that peaked at 430 MB). A line
 * names a session when it holds the session id's JSON string, however the line is spaced.
 * Undefined (read the whole file) when the bytes changed, a line's run is not found, or what is
 * found does not give each session's kept digest.
 */
async function recordsFromLines(
  path: string,
  kept: KeptDigests,
  wanted: ReadonlySet<string>,
  parse: (text: string) => ParsedCodes,
): Promise<CodeRecord[] | undefined> {
  // Each session is one pass of the native search over the file: for many, parsing it once is cheaper.
  if (wanted.size > LINES_AT_MOST) return undefined;
  const bytes = await readPrefix(path, kept.size);
  if (!bytes || fileHashOf(bytes) !== kept.sha256) return undefined;
  // A \u escape may spell a key or an id otherwise than the searches below look for them
  // ({"\u0072un": …}): such a file (colloquy never writes one) is read whole.
  if (bytes.includes(ESCAPE)) return undefined;
  const starts = new Set<number>();
  for (const id of wanted) {
    const literal = Buffer.from(JSON.stringify(id));
    for (let at = bytes.indexOf(literal); at !== -1; at = bytes.indexOf(literal, at + literal.length)) starts.add(bytes.lastIndexOf(0x0a, at) + 1);
  }
  const lines: Buffer[] = [];
  // The header of the run open at `at` (-1: none), followed forward from line to line: each gap is searched once.
  let open = -1;
  let at = 0;
  let emitted = -1;
  for (const start of [...starts].sort((a, b) => a - b)) {
    const run = lastLineStarting(bytes, RUN_KEY, at, start);
    const end = lastLineStarting(bytes, END_KEY, at, start);
    if (run === UNSURE || end === UNSURE) return undefined;
    if (run > end) open = run;
    else if (end !== -1) open = -1;
    at = start;
    if (open !== -1 && open !== emitted) lines.push(lineAt(bytes, open));
    emitted = open;
    lines.push(lineAt(bytes, start));
  }
  let found: CodeRecord[];
  try {
    found = parse(Buffer.concat(lines).toString("utf8")).current.filter((r) => wanted.has(r.session));
  } catch {
    return undefined;
  }
  const bySession = recordsBySession(found);
  for (const id of wanted) if ((kept.sessions.get(id)?.digest ?? NONE) !== codesDigest(bySession.get(id) ?? [])) return undefined;
  return found;
}

const ESCAPE = Buffer.from("\\u");
const RUN_KEY = Buffer.from('"run"');
const END_KEY = Buffer.from('"end"');

/**
 * Start of the last line in [from, before) that is a run header (or, with END_KEY, an end line):
 * its first key is `key`, however the line is spaced ({"run": …}, { "run" : …}); -1 when none is.
 * UNSURE when `key` is a key elsewhere in a line after it (a header written another way, or a
 * scale named "end"): the line's run cannot be told without parsing, so the caller reads it all.
 */
function lastLineStarting(bytes: Buffer, key: Buffer, from: number, before: number): number {
  const range = bytes.subarray(from, before);
  for (let at = range.lastIndexOf(key); at !== -1; at = at > 0 ? range.lastIndexOf(key, at - 1) : -1) {
    if (!isKey(bytes, from + at + key.length)) continue;
    const start = firstKeyLine(bytes, from + at);
    return start === -1 ? UNSURE : start;
  }
  return -1;
}

const UNSURE = -2;

/** A colon follows the string that ends before `after` (spaces allowed): it is a key. */
function isKey(bytes: Buffer, after: number): boolean {
  while (bytes[after] === 0x20 || bytes[after] === 0x09) after++;
  return bytes[after] === 0x3a;
}

/** The start of the line when the key at `at` is its object's first and the object opens the line; -1 otherwise. */
function firstKeyLine(bytes: Buffer, at: number): number {
  let i = at - 1;
  while (i >= 0 && (bytes[i] === 0x20 || bytes[i] === 0x09)) i--;
  if (bytes[i] !== 0x7b /* { */) return -1;
  i--;
  while (i >= 0 && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0d)) i--;
  return i < 0 || bytes[i] === 0x0a ? i + 1 : -1;
}

/** Sessions whose records are looked for line by line at most (each costs a search of the whole file). */
const LINES_AT_MOST = 16;

/** The first `size` bytes of a file; undefined when it is gone or shorter. */
async function readPrefix(path: string, size: number): Promise<Buffer | undefined> {
  let bytes;
  try {
    bytes = await readWholeFile(path);
  } catch {
    return undefined;
  }
  return bytes.length >= size ? bytes.subarray(0, size) : undefined;
}

/** The line that starts at `start`, with its "\n". */
function lineAt(bytes: Buffer, start: number): Buffer {
  const end = bytes.indexOf(0x0a, start);
  return bytes.subarray(start, end === -1 ? bytes.length : end + 1);
}
