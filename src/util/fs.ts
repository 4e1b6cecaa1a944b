import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { access, mkdir, open, readFile, rename, rm, type FileHandle } from "node:fs/promises";
import { dirname, basename, join, relative, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { CliError } from "./errors.js";
import { shorten } from "./text.js";
import { visitLines } from "./lines.js";
import { ownerTag } from "./process.js";

/**
 * A file's bytes, read with as few reads as its size allows (readFile reads 512 KB at a time, each
 * a round trip to libuv's thread pool: the 10-20 MB caches and results a run that adds one session
 * to a 100,000-turn study reads took 3-5 times longer). A file that grew since its stat is read to its end.
 */
export async function readWholeFile(path: string): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    return await readFrom(handle, 0, (await handle.stat()).size);
  } finally {
    await handle.close();
  }
}

/** The bytes of a file from `from` to its end (`size` when stat was taken; more if it grew since). */
export async function readFrom(handle: FileHandle, from: number, size: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let at = from;
  for (let want = Math.max(size - from, 1 << 16); ; want = 1 << 20) {
    const chunk = Buffer.allocUnsafe(want);
    const { bytesRead } = await handle.read(chunk, 0, want, at);
    if (bytesRead === 0) break;
    parts.push(chunk.subarray(0, bytesRead));
    at += bytesRead;
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** File names longer than this many bytes are refused by most file systems (ext4, APFS, NTFS). */
const NAME_MAX = 255;

/**
 * The name of a temp file for `name` in the same folder, `.<name>.<owner>.<random>.tmp` (the owner:
 * util/process.ts ownerTag, so a crashed writer's temps can be told from a running one's). A name
 * near the limit keeps its end (its hash and extension, which clean-up matches), so any file whose
 * own name fits can be written.
 */
export function tempName(name: string): string {
  const tail = `.${ownerTag()}.${randomBytes(4).toString("hex")}.tmp`;
  let kept = name;
  while (Buffer.byteLength(`.${kept}${tail}`) > NAME_MAX) kept = kept.slice(1);
  return `.${kept}${tail}`;
}

/**
 * Write a file atomically: write a temp file in the same folder, then rename over the target.
 * A crash leaves either the old file or the new one, never half of one. With `sync`, the data
 * is on the disk (fsync) before the rename, so a power cut cannot leave an empty file either.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array | Iterable<Uint8Array>, options: { sync?: boolean } = {}): Promise<void> {
  const chunks: Iterable<Uint8Array> = typeof data === "string" ? [Buffer.from(data)] : data instanceof Uint8Array ? [data] : data;
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), tempName(basename(path)));
  try {
    // A whole buffer in one write (writeFile writes 512 KB at a time, and encodes a string as it goes: 50 ms for 20 MB), chunks in gathered writes (writeEach).
    const handle = await open(temp, "w");
    try {
      await writeEach(handle, chunks);
      if (options.sync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * {@link writeFileAtomic} for a small file, synchronously, into a folder that exists. For many
 * small files in a row (memo entries): the promise API's five thread-pool round trips a file cost
 * 3-6x the CPU of the writes themselves (4,000 entries of a few bytes: 0.8-1.9 s async, 0.3-0.6 s).
 */
export function writeSmallFileAtomic(path: string, data: Uint8Array): void {
  const temp = join(dirname(path), tempName(basename(path)));
  try {
    writeFileSync(temp, data);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Pretty JSON (2-space indent, trailing newline), written atomically. */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(value, null, 2) + "\n");
}

/** Bytes gathered into one write: the chunks of a file made as it is written are held this much at a time. */
const GATHER_BYTES = 1 << 20;

/**
 * Chunks in order, as they come: a whole buffer in one write, else gathered writes of about
 * GATHER_BYTES each, so chunks made as the file is written (util/json-layout.ts) are let go as
 * they go out rather than held until the last is made (issue 40).
 */
async function writeEach(handle: FileHandle, chunks: Iterable<Uint8Array>): Promise<void> {
  const write = (group: Uint8Array[]) => (group.length === 1 ? writeAll(handle, group[0]) : writeChunks(handle, group));
  let group: Uint8Array[] = [];
  let bytes = 0;
  for (const chunk of chunks) {
    group.push(chunk);
    bytes += chunk.length;
    if (bytes >= GATHER_BYTES) {
      await write(group);
      group = [];
      bytes = 0;
    }
  }
  if (group.length > 0) await write(group);
}

/**
 * Chunks (a file laid out from stored lines: util/json-layout.ts) in one gathered write, without
 * first copying them into one buffer (15 ms for 15 MB of stats.json's lines); what a partial write
 * left out is written as writeAll writes.
 */
export async function writeChunks(handle: FileHandle, chunks: readonly Uint8Array[]): Promise<void> {
  const { bytesWritten } = await handle.writev(chunks as Uint8Array[]);
  const total = chunks.reduce((n, c) => n + c.length, 0);
  if (bytesWritten < total) await writeAll(handle, Buffer.concat(chunks).subarray(bytesWritten));
}

/** One write may be partial (a nearly full disk): keep writing until all is out, or throw. */
async function writeAll(handle: FileHandle, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset, null);
    if (bytesWritten <= 0) throw Object.assign(new Error("write made no progress"), { code: "EIO" });
    offset += bytesWritten;
  }
}

/**
 * What healing a JSONL file did. Every appended batch ends in "\n", so bytes after the last
 * "\n" are a write cut short (kill -9 mid-write, power loss, full disk). They are moved, not
 * deleted: to `tornFile`, written (and synced) before the JSONL file is cut back.
 */
export interface JsonlRepair {
  file: string;
  /** `<file>.torn-<UTC time>`: the bytes taken out, each fragment on its own line. */
  tornFile: string;
  /** 1-based line of the file where the first fragment was. */
  line: number;
  /** Bytes moved to `tornFile` (fragments only). */
  bytes: number;
  /** Fragments moved (one per damaged line). */
  fragments: number;
  /** Complete records found after a torn prefix on the same line and kept. */
  salvaged: number;
}

/** "codes/bales-ipa/llm.jsonl: line 41 was cut short by an interrupted write; its 37 unreadable byte(s) were moved to …" */
export function describeRepair(repair: JsonlRepair, relativeTo?: string): string {
  const rel = (p: string) => (relativeTo ? relative(resolve(relativeTo), p) : p);
  const what =
    repair.fragments === 1
      ? `line ${repair.line} was cut short by an interrupted write`
      : `${repair.fragments} lines (from line ${repair.line}) were damaged by interrupted writes`;
  const kept = repair.salvaged > 0 ? `; ${repair.salvaged} complete record(s) found after the damage were kept` : "";
  return `${rel(repair.file)}: ${what}; its ${repair.bytes} unreadable byte(s) were moved to ${rel(repair.tornFile)}${kept}`;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** `text` parsed, when it is one JSON object (what every JSONL line of a study holds). */
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** What may be kept of a damaged line: given a parsed candidate object, whether it is a whole line of this file. */
export type KeepLine = (value: Record<string, unknown>) => boolean;

/** The first key of a JSON object's text (`{"session":…` → "session"), if it starts like one. */
function firstKey(text: string): string | undefined {
  return /^\{\s*"((?:[^"\\]|\\.)*)"\s*:/.exec(text)?.[1];
}

/**
 * Whether, after the JSON text `prefix` (cut anywhere), a value is expected inside an open object
 * or list: after ":", "[" or a "," in a list. An object starting there may be a nested value of
 * the torn line itself, not a line of its own.
 */
function valueExpectedAfter(prefix: string): boolean {
  const open: string[] = [];
  let inString = false;
  let last = "";
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') {
        inString = false;
        last = '"';
      }
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") open.push(c);
    else if (c === "}" || c === "]") open.pop();
    if (!/\s/.test(c)) last = c;
  }
  if (inString) return false;
  return last === ":" || last === "[" || (last === "," && open[open.length - 1] === "[");
}

/**
 * Whether an object found at `prefix.length` of a damaged line may stand as a line of its own,
 * whatever the file: not where the torn line expected one of its own values, unless
 * it starts with the same key as the torn line (the next record glued on a torn one: a record
 * nested in a record of the same kind under its own first key is not a shape any study file has).
 */
function topLevel(prefix: string, candidate: string): boolean {
  if (!valueExpectedAfter(prefix)) return true;
  const key = firstKey(prefix);
  return key !== undefined && key === firstKey(candidate);
}

/**
 * Split one damaged line into the bytes to move out and the complete record after them, if any.
 * The old append path glued the next record onto a torn one (`{"session":"a","tu{"session":…}`);
 * the record is the first suffix, scanning from the left, that starts at "{", parses as a JSON
 * object and may be a line of its own: the longest such suffix, so a record holding nested
 * objects is kept whole (a suffix starting inside the torn prefix does not parse: the prefix
 * opened an object the record cannot close). A line cut just after one of its own nested objects
 * (`{"run":{"codebook":…,"provenance":{…}}` missing its last "}") ends in a suffix that parses
 * too: that one is no line, and is not kept. Only an object that cannot be a nested value of the
 * torn line ({@link topLevel}) is kept, and with `keep` (which objects are lines of this file;
 * codes files: a run header, an end line, a code line or a full record), only one it accepts.
 */
export function salvageLine(line: string, keep?: KeepLine): { kept?: string; torn: string } {
  if (isJson(line)) return { kept: line, torn: "" };
  for (let i = line.indexOf("{", 1); i > 0; i = line.indexOf("{", i + 1)) {
    const rest = line.slice(i);
    const value = parseObject(rest);
    if (value === undefined) continue;
    const prefix = line.slice(0, i);
    if (topLevel(prefix, rest) && (!keep || keep(value))) return { kept: rest, torn: prefix };
  }
  return { torn: line };
}

/**
 * A path made by `name(time)` for the current UTC time as a file name can hold
 * ("2024-05-01T12-00-00-000Z"), with "-2", "-3"… appended to the time when one exists already.
 */
export async function freshTimedPath(name: (time: string) => string): Promise<string> {
  const time = new Date().toISOString().replace(/[:.]/g, "-");
  for (let n = 1; ; n++) {
    const candidate = name(n > 1 ? `${time}-${n}` : time);
    try {
      await access(candidate);
    } catch {
      return candidate;
    }
  }
}

/** `<file>.torn-2024-05-01T12-00-00-000Z` (artifacts.tornBytes), never an existing name. */
function tornPathFor(file: string): Promise<string> {
  return freshTimedPath((time) => `${file}.torn-${time}`);
}

async function writeTorn(file: string, fragments: readonly string[]): Promise<string> {
  const tornFile = await tornPathFor(file);
  await writeFileAtomic(tornFile, fragments.map((f) => f + "\n").join(""), { sync: true });
  return tornFile;
}

const NEWLINE = 0x0a;
const CHUNK = 64 * 1024;

/** Offset just after the last "\n" before `end` (0 when there is none). */
async function lineStart(handle: FileHandle, end: number): Promise<number> {
  const buffer = Buffer.alloc(CHUNK);
  while (end > 0) {
    const start = Math.max(0, end - CHUNK);
    const { bytesRead } = await handle.read(buffer, 0, end - start, start);
    const at = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

async function countLines(handle: FileHandle, end: number): Promise<number> {
  const buffer = Buffer.alloc(CHUNK);
  let lines = 0;
  for (let start = 0; start < end; start += CHUNK) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, end - start), start);
    for (let i = 0; i < bytesRead; i++) if (buffer[i] === NEWLINE) lines++;
  }
  return lines;
}

/**
 * Make the last line of an open JSONL file whole before anything is appended after it:
 * - no final "\n" (a torn write): the fragment goes to a .torn file and the file is cut back to
 *   the last "\n"; a fragment that is a complete record (cut just before its "\n") is kept.
 * - a last line that does not parse (damage from before this check existed): the unreadable
 *   prefix goes to the .torn file, a complete record after it stays.
 * Costs one stat and a small read per append when the file is sound. Returns the size after.
 */
async function healTail(handle: FileHandle, file: string, keep?: KeepLine): Promise<{ size: number; changed?: true; repair?: JsonlRepair }> {
  const { size } = await handle.stat();
  if (size === 0) return { size };
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  const terminated = last[0] === NEWLINE;
  const start = await lineStart(handle, terminated ? size - 1 : size);
  const bytes = Buffer.alloc(size - start);
  await handle.read(bytes, 0, bytes.length, start);
  const line = bytes.toString("utf8").replace(/\n$/, "");
  if (terminated && (line.trim() === "" || isJson(line))) return { size };
  const { kept, torn } = salvageLine(line, keep);
  let tornFile = "";
  if (torn !== "") tornFile = await writeTorn(file, [torn]);
  // Cut back to the start of the line, then put back what is whole (with its "\n").
  await handle.truncate(start);
  const whole = kept === undefined ? Buffer.alloc(0) : Buffer.from(kept + "\n");
  await writeAll(handle, whole);
  await handle.datasync();
  const after = start + whole.length;
  if (torn === "") return { size: after, changed: true }; // a whole record that only lacked its "\n": nothing moved
  const lineNumber = (await countLines(handle, start)) + 1;
  return {
    size: after,
    changed: true,
    repair: { file, tornFile, line: lineNumber, bytes: Buffer.byteLength(torn), fragments: 1, salvaged: kept !== undefined ? 1 : 0 },
  };
}

/**
 * Repair a whole JSONL file (`colloquy repair`): every line that does not parse is split into
 * its unreadable bytes, moved to a .torn file (written and synced first), and the complete
 * record after them, if any, which stays in place (`keep`: which records are lines of this file,
 * see {@link salvageLine}). Moved bytes are replaced by `movedLine`, when given (codes files
 * close the run there, so the lines after it cannot read as part of the run above). The
 * file is then rewritten atomically. Undefined when every line parses (the file is not touched)
 * or the file is missing.
 */
export async function repairJsonl(path: string, options: { dryRun?: boolean } & JsonlLines = {}): Promise<JsonlRepair | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if (text === "") return undefined;
  const lines = text.split("\n");
  const out: string[] = [];
  const fragments: string[] = [];
  let first = 0;
  let salvaged = 0;
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const { kept, torn } = salvageLine(line, options.keep);
    if (torn !== "") {
      fragments.push(torn);
      first ||= i + 1;
      if (kept !== undefined) salvaged++;
      // The moved bytes were a line of their own (or the start of one): mark where it was.
      if (options.movedLine !== undefined) out.push(JSON.stringify(options.movedLine));
    }
    if (kept !== undefined) out.push(kept);
  });
  if (fragments.length === 0 && text.endsWith("\n")) return undefined;
  const bytes = fragments.reduce((n, f) => n + Buffer.byteLength(f), 0);
  if (fragments.length === 0) {
    // Only the final "\n" was missing: add it.
    if (!options.dryRun) await writeFileAtomic(path, out.map((l) => l + "\n").join(""), { sync: true });
    return undefined;
  }
  const tornFile = options.dryRun ? await tornPathFor(path) : await writeTorn(path, fragments);
  if (!options.dryRun) await writeFileAtomic(path, out.map((l) => l + "\n").join(""), { sync: true });
  return { file: path, tornFile, line: first, bytes, fragments: fragments.length, salvaged };
}

/** What a JSONL file's lines are, for healing and repair. */
export interface JsonlLines {
  /** Which objects found in a damaged line are lines of this file and may be kept (see {@link salvageLine}). */
  keep?: KeepLine;
  /** repairJsonl: the line written in place of one moved out whole. */
  movedLine?: unknown;
}

/** Heal a JSONL file's last line (see healTail) without appending; undefined when it was sound or missing. */
export async function healJsonl(path: string, keep?: KeepLine): Promise<JsonlRepair | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r+");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    return (await healTail(handle, path, keep)).repair;
  } finally {
    await handle.close();
  }
}

export interface AppendOptions {
  /** Which objects found in a torn last line may be kept (see {@link salvageLine}). */
  keep?: KeepLine;
  /**
   * Given the file's last line (whole, after healing), a line to append and sync before the
   * batch, or undefined. Codes files use it to close a run an interrupted write left open.
   */
  closeTail?: (lastLine: string) => unknown;
}

/** The text of the last line of a file of `size` bytes that ends in "\n". */
async function lastLine(handle: FileHandle, size: number): Promise<string> {
  const start = await lineStart(handle, size - 1);
  const bytes = Buffer.alloc(size - 1 - start);
  await handle.read(bytes, 0, bytes.length, start);
  return bytes.toString("utf8");
}

/**
 * Append records as JSON lines: the whole batch in one write, then fdatasync, so a batch is on
 * the disk before the next one is asked for. A torn last line left by an earlier run is healed
 * first (returned, so the caller can tell the user). If the write fails (disk full, EFBIG), the
 * file is cut back to its size before the write: a failed append leaves no partial line.
 */
export async function appendJsonl(path: string, records: readonly unknown[], options: AppendOptions = {}): Promise<JsonlRepair | undefined> {
  if (records.length === 0) return undefined;
  await mkdir(dirname(path), { recursive: true });
  const body = Buffer.from(records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const handle = await open(path, "a+");
  try {
    const healed = await healTail(handle, path, options.keep);
    const repair = healed.repair;
    let size = healed.size;
    const close = size > 0 && options.closeTail ? options.closeTail(await lastLine(handle, size)) : undefined;
    if (close !== undefined) {
      // Synced on its own, before the batch: damage to the batch cannot reach it.
      const line = Buffer.from(JSON.stringify(close) + "\n");
      await writeAll(handle, line);
      await handle.datasync();
      size += line.length;
    }
    try {
      await writeAll(handle, body);
      await handle.datasync();
    } catch (error) {
      await handle.truncate(size).catch(() => undefined);
      throw error;
    }
    return repair;
  } finally {
    await handle.close();
  }
}

/**
 * Rewrite a JSONL file atomically (and synced, like appends) with `records`, after moving a torn
 * last line out (a rewrite from parsed records would otherwise drop those bytes without a word).
 */
export async function rewriteJsonl(path: string, records: readonly unknown[], keep?: KeepLine): Promise<JsonlRepair | undefined> {
  const repair = await healJsonl(path, keep);
  await writeFileAtomic(path, records.map((r) => JSON.stringify(r) + "\n").join(""), { sync: true });
  return repair;
}

/** The study folder holding `path` (for the fix in an error message), if there is one. */
function studyOf(path: string): string | undefined {
  for (let dir = dirname(path), i = 0; i < 4; i++, dir = dirname(dir)) {
    if (existsSync(join(dir, "colloquy.json"))) return dir;
  }
  return undefined;
}

/**
 * A JSONL file's records. A last line without its "\n" is a write still in progress or cut
 * short: it is returned in `torn` (1-based line), not thrown, and the next append moves it to a
 * .torn file. Any other unparseable line is damage: the error names file:line and the fix.
 */
export async function readJsonl(path: string): Promise<{ records: unknown[]; torn: number[] }> {
  const records: unknown[] = [];
  const { torn } = await visitJsonl(path, (value) => void records.push(value));
  return { records, torn };
}

/**
 * Call `visit` with each parsed line of a JSONL file and its 1-based line number, in order; torn
 * and damaged lines as in {@link readJsonl}. A missing file has no lines. The file is read a chunk
 * at a time (util/lines.ts): what is held is what `visit` keeps.
 */
export async function visitJsonl(path: string, visit: (value: unknown, line: number) => void): Promise<{ torn: number[] }> {
  const torn: number[] = [];
  await visitLines(path, (line, number, ended) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (!ended) return void torn.push(number);
      const preview = shorten(line, 60);
      const study = studyOf(path);
      throw new CliError(
        `${path}:${number}: not a valid JSON line (${preview}); an interrupted write probably left part of a record there. ` +
          `Run \`colloquy repair ${study ?? "<study folder>"}\`: it moves the unreadable bytes to a .torn file next to it and keeps every complete record.`,
      );
    }
    visit(value, number);
  });
  return { torn };
}

/** A text file the user named (a sheet, a lexicon), or a CliError naming it and what it holds. */
export async function readUserText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`${path}: cannot read the ${what} (${(error as Error).message})`);
  }
}
