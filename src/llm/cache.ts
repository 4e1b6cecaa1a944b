import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { createHash, randomBytes, type Hash } from "node:crypto";
import { join } from "node:path";
import { hashValue, stableStringify } from "../util/hash.js";
import { OWNER_TAG, isThisProcess, ownerTag, taggedOwnerRunning } from "../util/process.js";
import type { ChatMessage, ResponseFormat, TokenUsage } from "./types.js";

/**
 * Content-addressed response cache under `<study>/.cache/llm/`, keyed by the sha256 of what
 * determines the reply: one JSON file per reply (`<2 hex>/<key>.json`), and pack files
 * (`packs/*.jsonl`, one `{key, reply}` line per entry) for replies kept many at once (a collected
 * batch). A loose file overrides a packed entry; earlier versions simply do not see packs. The key never includes the API key,
 * headers or base URL (the same model behind another URL answers the same prompt the same way;
 * the `model` name is what matters). Only successful replies are written, atomically, so a
 * killed run leaves either a whole entry or none.
 *
 * A reply that was paid for must survive a full disk: before a process sends its first request
 * it sets room aside (`reserve`: a journal pack of blank lines), and a reply whose entry cannot be
 * written goes into that room instead (overwriting blocks already allocated needs no free space).
 * The journal is an ordinary pack, so the next process finds its replies like any other; the room
 * of a killed process's journal is given back by the next process that reads the cache.
 */

/** Everything that determines a reply, and nothing else. */
export interface CacheKeyInput {
  model: string;
  messages: ChatMessage[];
  temperature: number;
  seed?: number;
  responseFormat?: ResponseFormat;
  maxTokens?: number;
}

/**
 * sha256 of stableStringify({model, messages, temperature, seed, responseFormat, maxTokens}).
 * Coding sends the same long system prompt (the whole codebook, ~12k characters) with every
 * request, so for long first messages the hash state after that prefix is memoised and only
 * the rest is hashed: the result is byte-for-byte the same digest as `hashValue(...)` (tested),
 * at a fraction of the cost on a 10,000-request run.
 */
export function cacheKey(input: CacheKeyInput): string {
  const value = {
    model: input.model,
    messages: input.messages,
    temperature: input.temperature,
    seed: input.seed,
    responseFormat: input.responseFormat,
    maxTokens: input.maxTokens,
  };
  const first = input.messages[0];
  if (!first || first.content.length < MEMO_MIN_CHARS) return hashValue(value);
  // Serialise with the first message's content swapped for a marker, then split there.
  // Sorted keys put maxTokens (a number) and then messages[0].content first, so the first
  // occurrence of the marker is that content.
  const text = keyText({ ...value, messages: [{ ...first, content: MARKER }, ...input.messages.slice(1)] });
  const at = text.indexOf(MARKER_JSON);
  if (at < 0) return hashValue(value);
  const prefix = text.slice(0, at);
  let byPrefix = prefixStates.get(first.content);
  if (!byPrefix) {
    if (prefixStates.size >= MEMO_MAX) prefixStates.clear();
    byPrefix = new Map();
    prefixStates.set(first.content, byPrefix);
  }
  let state = byPrefix.get(prefix);
  if (!state) {
    state = createHash("sha256").update(prefix).update(JSON.stringify(first.content));
    byPrefix.set(prefix, state);
  }
  return state
    .copy()
    .update(text.slice(at + MARKER_JSON.length))
    .digest("hex");
}

/**
 * stableStringify(value), composed member by member (JSON.stringify of an object is
 * `{"key":<member>,…}` in key order), with the response format's serialisation memoised by
 * identity: a coder reuses one format object (a JSON schema of the codebook's codes) for every
 * request, and sorting and serialising it each time was a third of a collected batch's hashing.
 * Response formats are built once and never changed afterwards (the memo relies on it).
 */
function keyText(value: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const member = value[key];
    if (member === undefined) continue;
    parts.push(
      `${JSON.stringify(key)}:${key === "responseFormat" && typeof member === "object" && member !== null ? formatText(member) : stableStringify(member)}`,
    );
  }
  return `{${parts.join(",")}}`;
}

const formatTexts = new WeakMap<object, string>();
function formatText(format: object): string {
  let text = formatTexts.get(format);
  if (text === undefined) {
    text = stableStringify(format);
    formatTexts.set(format, text);
  }
  return text;
}

const shared = new Map<string, ResponseCache>();

const MEMO_MIN_CHARS = 2048;
const MEMO_MAX = 32;
const MARKER = "\u0000colloquy-cache-key-marker\u0000";
const MARKER_JSON = JSON.stringify(MARKER);
/** First-message content -> serialised prefix -> sha256 state after prefix + content. */
const prefixStates = new Map<string, Map<string, Hash>>();

/** What a cache file holds: the reply, never the request's credentials. */
export interface CachedReply {
  text: string;
  model: string;
  usage: TokenUsage;
  finishReason?: string;
  /** ISO time the reply was first received. */
  receivedAt: string;
}

/** Where a packed entry lies: its pack file and the byte range of its line (newline excluded). */
interface Packed {
  pack: string;
  offset: number;
  length: number;
}

/** Every line of a pack starts with this, then the 64 hex digits of the key. */
const PACK_LINE_HEAD = Buffer.from('{"key":"');
const KEY_CHARS = 64;

/**
 * A process's journal pack: `used` bytes of replies, then reserved room of blank lines (which the
 * pack index skips). On copy-on-write file systems (btrfs, ZFS) an overwrite needs new blocks
 * too, so there the room is a best effort.
 */
interface Journal {
  path: string;
  fd: number;
  used: number;
}

/** Journals of this process, cut to what they hold (or removed when empty) when it exits. */
const journals = new Set<Journal>();
let exitHook = false;
function closeJournalsOnExit(): void {
  for (const journal of journals) {
    try {
      if (journal.used === 0) rmSync(journal.path, { force: true });
      else ftruncateSync(journal.fd, journal.used);
      closeSync(journal.fd);
    } catch {
      // The folder may be gone (a removed study); a killed process leaves its room too, harmlessly.
    }
  }
  journals.clear();
}

export class ResponseCache {
  /**
   * Keys present on disk, listed once per process: a miss then costs no file system call
   * (a 10,000-turn first run would otherwise pay 10,000 failed opens). "loose" is an entry file
   * of its own, otherwise where in a pack it lies. Entries another process writes meanwhile
   * are not seen; the worst case is one repeated request, never a wrong reply.
   */
  private index: Promise<Map<string, Packed | "loose">> | undefined;
  /** Fan-out folders known to exist, so each is created once. */
  private readonly dirs = new Set<string>();
  /** Room for replies the cache cannot take, once reserved. */
  private journal: Journal | undefined;

  constructor(readonly dir: string) {}

  /** One instance per folder in a process, so several ChatModels (coder, topics) see each other's entries. */
  static for(dir: string): ResponseCache {
    let cache = shared.get(dir);
    if (!cache) {
      cache = new ResponseCache(dir);
      shared.set(dir, cache);
    }
    return cache;
  }

  /** Packs hold many entries in one file (a collected batch: 100,000 replies would be as many small files). */
  private get packDir(): string {
    return join(this.dir, "packs");
  }

  private keys(): Promise<Map<string, Packed | "loose">> {
    this.index ??= (async () => {
      const keys = new Map<string, Packed | "loose">();
      let buckets: string[] = [];
      try {
        buckets = await readdir(this.dir);
      } catch {
        return keys;
      }
      // Packs first, oldest name first: a loose entry (a later reply, or the tombstone of a
      // forgotten one) then overrides a packed one, and a later pack an earlier one.
      if (buckets.includes("packs"))
        for (const name of (await readdir(this.packDir)).sort()) {
          // A pack being written by a process that was killed (a collect stopped mid-download) is never renamed.
          if (PACK_TEMP_NAME.test(name) && goneProcess(PACK_TEMP_NAME.exec(name)![1])) rmSync(join(this.packDir, name), { force: true });
          if (!name.endsWith(".jsonl")) continue;
          const path = join(this.packDir, name);
          if (abandonedJournal(name) && !closeAbandonedJournal(path)) continue;
          indexPack(path, keys);
        }
      for (const bucket of buckets) {
        if (bucket.length !== 2) continue;
        try {
          for (const name of await readdir(join(this.dir, bucket))) {
            if (name.endsWith(".json")) keys.set(name.slice(0, -5), "loose");
          }
          this.dirs.add(join(this.dir, bucket));
        } catch {
          // not a folder: ignore
        }
      }
      return keys;
    })();
    return this.index;
  }

  /** Two-character fan-out keeps folders small for studies with 100k+ cached replies. */
  pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CachedReply | undefined> {
    const at = (await this.keys()).get(key);
    if (!at) return undefined;
    let text: string;
    try {
      // Synchronous on purpose: entries are ~1 kB and known to exist (index), and one blocking
      // read costs a fraction of promise-based readFile's four thread-pool round trips.
      text = at === "loose" ? readFileSync(this.pathOf(key), "utf8") : readPacked(at);
    } catch {
      return undefined;
    }
    try {
      const value = JSON.parse(text) as { key?: string; reply?: CachedReply };
      // A damaged or foreign entry is a miss, not an error: the request is simply made again.
      // So is a tombstone ({key, forgotten: true}), which overrides a packed entry.
      if (value.key !== key || typeof value.reply?.text !== "string") return undefined;
      return value.reply;
    } catch {
      return undefined;
    }
  }

  /**
   * Remove an entry (a reply the caller found unusable should not be replayed forever). A packed
   * entry cannot be cut out of its pack: a loose tombstone, which overrides it, is written instead.
   */
  async delete(key: string): Promise<void> {
    const keys = await this.keys();
    const at = keys.get(key);
    if (at === undefined) return;
    if (at === "loose") {
      keys.delete(key);
      await rm(this.pathOf(key), { force: true });
      return;
    }
    this.writeLoose(key, JSON.stringify({ key, forgotten: true }) + "\n");
    keys.set(key, "loose");
  }

  /**
   * Atomic: a temp file in the same folder renamed over the target (as util/fs writeFileAtomic).
   * When the entry cannot be written, the reply goes into the reserved journal and `journaled`
   * is the entry's error; when neither can be written, that error is thrown.
   * Synchronous on purpose: a paid reply is on disk before anything else runs, never queued
   * behind other file system work in libuv's four-thread pool (measured: 250+ ms behind the
   * codes file's fdatasync under load, long enough for a kill -9 to cost the reply). An entry is
   * ~1 kB; the write and rename take well under a millisecond. Not fsynced: a killed process
   * loses nothing the kernel has; after a power cut an empty or partial entry reads as a miss.
   */
  async put(key: string, reply: CachedReply): Promise<{ journaled?: unknown }> {
    const keys = await this.keys();
    const body = JSON.stringify({ key, reply }) + "\n";
    try {
      this.writeLoose(key, body);
      keys.set(key, "loose");
      return {};
    } catch (error) {
      // Disk full, permissions: the reserved room takes it, or the caller learns it is not kept.
      const at = this.writeJournal(body);
      if (!at) throw error;
      keys.set(key, at);
      return { journaled: error };
    }
  }

  /**
   * Set `bytes` aside for replies `put` cannot write as entries (see the class comment); call it
   * before asking for anything, with room for the replies that can be in flight at once (a reply
   * past the room is still written where the disk allows). Once per instance; throws when the
   * folder cannot be written (then nothing should be asked: its replies could not be kept).
   */
  reserve(bytes: number): void {
    if (this.journal) return;
    mkdirSync(this.packDir, { recursive: true });
    // Named like every pack, by time first, so "a later pack overrides an earlier one" holds for it too.
    const path = join(this.packDir, `${new Date().toISOString().replace(/[:.]/g, "-")}-journal-${ownerTag()}-${randomBytes(4).toString("hex")}.jsonl`);
    const fd = openSync(path, "w");
    try {
      writeAll(fd, Buffer.alloc(bytes, 10), 0);
    } catch (error) {
      closeSync(fd);
      rmSync(path, { force: true });
      throw error;
    }
    this.journal = { path, fd, used: 0 };
    journals.add(this.journal);
    if (!exitHook) {
      exitHook = true;
      process.once("exit", closeJournalsOnExit);
    }
  }

  /** The journal's file, once reserved (named in messages). */
  get journalPath(): string | undefined {
    return this.journal?.path;
  }

  /** Write one line into the journal's room (past it if the disk allows); undefined when it cannot be kept. */
  private writeJournal(body: string): Packed | undefined {
    const journal = this.journal;
    if (!journal) return undefined;
    const bytes = Buffer.from(body);
    try {
      writeAll(journal.fd, bytes, journal.used);
    } catch {
      return undefined;
    }
    const at = { pack: journal.path, offset: journal.used, length: bytes.length - 1 };
    journal.used += bytes.length;
    return at;
  }

  /**
   * Keep many replies at once (a collected batch) in one new pack file, as they come (`entries`
   * may be the lines of a download: only a 4 MB chunk is held): written to a temp file and renamed, so a killed process leaves the whole pack or none. Loose entries of the same
   * keys are removed (they would override the pack in the next process). Returns how many were kept.
   */
  async putMany(entries: AsyncIterable<readonly [string, CachedReply]> | Iterable<readonly [string, CachedReply]>): Promise<number> {
    const keys = await this.keys();
    mkdirSync(this.packDir, { recursive: true });
    // Sortable by time, so a later pack overrides an earlier one (see keys()).
    const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${ownerTag()}-${randomBytes(4).toString("hex")}.jsonl`;
    const path = join(this.packDir, name);
    const temp = `${path}.tmp`;
    const placed: [string, Packed][] = [];
    const fd = openSync(temp, "w");
    try {
      let offset = 0;
      let chunk: string[] = [];
      let chunkBytes = 0;
      const flush = () => {
        const bytes = Buffer.from(chunk.join(""));
        for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
        chunk = [];
        chunkBytes = 0;
      };
      for await (const [key, reply] of entries) {
        if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`response cache: ${key} is not a cache key`);
        const line = JSON.stringify({ key, reply });
        const length = Buffer.byteLength(line);
        placed.push([key, { pack: path, offset, length }]);
        chunk.push(line, "\n");
        offset += length + 1;
        chunkBytes += length + 1;
        if (chunkBytes >= PACK_CHUNK_BYTES) flush();
      }
      flush();
    } catch (error) {
      closeSync(fd);
      rmSync(temp, { force: true });
      throw error;
    }
    closeSync(fd);
    if (placed.length === 0) {
      rmSync(temp, { force: true });
      return 0;
    }
    renameSync(temp, path);
    for (const [key, at] of placed) {
      if (keys.get(key) === "loose") rmSync(this.pathOf(key), { force: true });
      keys.set(key, at);
    }
    return placed.length;
  }

  /** Write one loose entry file atomically (see put). */
  private writeLoose(key: string, body: string): void {
    const path = this.pathOf(key);
    const folder = join(this.dir, key.slice(0, 2));
    if (!this.dirs.has(folder)) {
      mkdirSync(folder, { recursive: true });
      this.dirs.add(folder);
    }
    const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      try {
        writeFileSync(temp, body);
      } catch (error) {
        // The folder was removed while we ran (someone cleared .cache): create it again once.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        mkdirSync(folder, { recursive: true });
        writeFileSync(temp, body);
      }
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
}

/** A journal's name: `<time>-journal-<owner>-<8 hex>.jsonl` (see reserve; the owner: util/process.ts ownerTag). */
const JOURNAL_NAME = new RegExp(String.raw`-journal-(${OWNER_TAG})-[0-9a-f]{8}\.jsonl$`);

/** A pack's temp file while putMany writes it: `<time>-<owner>-<8 hex>.jsonl.tmp`. */
const PACK_TEMP_NAME = new RegExp(String.raw`-(${OWNER_TAG})-[0-9a-f]{8}\.jsonl\.tmp$`);

/** Whether a journal was left by a process that is gone (killed: its exit hook never cut it). */
function abandonedJournal(name: string): boolean {
  const owner = JOURNAL_NAME.exec(name)?.[1];
  return owner !== undefined && goneProcess(owner);
}

/**
 * Whether the process that named a file (its owner tag) is gone. A file of a running process
 * (this one, another command on the same study, or any process of another machine sharing the
 * folder) is its own; a reused id only postpones the clean-up.
 */
function goneProcess(tag: string): boolean {
  return !isThisProcess(tag) && !taggedOwnerRunning(tag);
}

/**
 * Do for an abandoned journal what its process's exit would have done: cut it to the replies it
 * holds (its room is blank lines after them), or remove it when it holds none. Returns whether
 * the file is still there (to be indexed).
 */
function closeAbandonedJournal(path: string): boolean {
  try {
    const data = readFileSync(path);
    let end = data.length;
    while (end > 0 && data[end - 1] === 10) end--;
    if (end === 0) {
      rmSync(path, { force: true });
      return false;
    }
    // Keep the newline that ends the last reply.
    if (end + 1 < data.length) truncateSync(path, end + 1);
  } catch {
    // Unreadable or read-only: left as it is, and indexed as any pack (its blank lines are skipped).
  }
  return true;
}

/** Write all of `bytes` at `position` (writeSync may write less than asked). */
function writeAll(fd: number, bytes: Buffer, position: number): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/** Bytes gathered before one write while packing. */
const PACK_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Add the entries of one pack to `keys`. Only the line starts are read (`{"key":"<64 hex>"`),
 * never the replies: a 100,000-entry pack is indexed in tens of milliseconds. A line that does
 * not start so (a damaged pack) is skipped; its request is simply asked again.
 */
function indexPack(path: string, keys: Map<string, Packed | "loose">): void {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch {
    return;
  }
  let start = 0;
  while (start < data.length) {
    let end = data.indexOf(10, start);
    if (end < 0) end = data.length;
    const keyEnd = start + PACK_LINE_HEAD.length + KEY_CHARS;
    if (keyEnd < end && data.compare(PACK_LINE_HEAD, 0, PACK_LINE_HEAD.length, start, start + PACK_LINE_HEAD.length) === 0 && data[keyEnd] === 0x22) {
      keys.set(data.toString("latin1", start + PACK_LINE_HEAD.length, keyEnd), { pack: path, offset: start, length: end - start });
    }
    start = end + 1;
  }
}

/** One packed entry's line, read at its offset. */
function readPacked(at: Packed): string {
  const fd = openSync(at.pack, "r");
  try {
    const buffer = Buffer.allocUnsafe(at.length);
    let read = 0;
    while (read < at.length) {
      const n = readSync(fd, buffer, read, at.length - read, at.offset + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.toString("utf8", 0, read);
  } finally {
    closeSync(fd);
  }
}
