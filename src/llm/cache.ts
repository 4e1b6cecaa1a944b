import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { createHash, randomBytes, type Hash } from "node:crypto";
import { join } from "node:path";
import { hashValue, stableStringify } from "../util/hash.js";
import type { ChatMessage, ResponseFormat, TokenUsage } from "./types.js";

/**
 * Content-addressed response cache: one JSON file per request under `<study>/.cache/llm/`,
 * named by the sha256 of what determines the reply. The key never includes the API key,
 * headers or base URL (the same model behind another URL answers the same prompt the same way;
 * the `model` name is what matters). Only successful replies are written, atomically, so a
 * killed run leaves either a whole entry or none.
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
  const text = stableStringify({ ...value, messages: [{ ...first, content: MARKER }, ...input.messages.slice(1)] });
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
  return state.copy().update(text.slice(at + MARKER_JSON.length)).digest("hex");
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

export class ResponseCache {
  /**
   * Keys present on disk, listed once per process: a miss then costs no file system call
   * (a 10,000-turn first run would otherwise pay 10,000 failed opens). Entries another process
   * writes meanwhile are not seen; the worst case is one repeated request, never a wrong reply.
   */
  private index: Promise<Set<string>> | undefined;
  /** Fan-out folders known to exist, so each is created once. */
  private readonly dirs = new Set<string>();

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

  private keys(): Promise<Set<string>> {
    this.index ??= (async () => {
      const keys = new Set<string>();
      let buckets: string[] = [];
      try {
        buckets = await readdir(this.dir);
      } catch {
        return keys;
      }
      for (const bucket of buckets) {
        if (bucket.length !== 2) continue;
        try {
          for (const name of await readdir(join(this.dir, bucket))) {
            if (name.endsWith(".json")) keys.add(name.slice(0, -5));
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
    if (!(await this.keys()).has(key)) return undefined;
    let text: string;
    try {
      // Synchronous on purpose: entries are ~1 kB and known to exist (index), and one blocking
      // read costs a fraction of promise-based readFile's four thread-pool round trips.
      text = readFileSync(this.pathOf(key), "utf8");
    } catch {
      return undefined;
    }
    try {
      const value = JSON.parse(text) as { key?: string; reply?: CachedReply };
      // A damaged or foreign file is a miss, not an error: the request is simply made again.
      if (value.key !== key || typeof value.reply?.text !== "string") return undefined;
      return value.reply;
    } catch {
      return undefined;
    }
  }

  /** Remove an entry (a reply the caller found unusable should not be replayed forever). */
  async delete(key: string): Promise<void> {
    (await this.keys()).delete(key);
    await rm(this.pathOf(key), { force: true });
  }

  /**
   * Atomic: a temp file in the same folder renamed over the target (as util/fs writeFileAtomic).
   * Synchronous on purpose: a paid reply is on disk before anything else runs, never queued
   * behind other file system work in libuv's four-thread pool (measured: 250+ ms behind the
   * codes file's fdatasync under load, long enough for a kill -9 to cost the reply). An entry is
   * ~1 kB; the write and rename take well under a millisecond. Not fsynced: a killed process
   * loses nothing the kernel has; after a power cut an empty or partial entry reads as a miss.
   */
  async put(key: string, reply: CachedReply): Promise<void> {
    const keys = await this.keys();
    const path = this.pathOf(key);
    const folder = join(this.dir, key.slice(0, 2));
    if (!this.dirs.has(folder)) {
      mkdirSync(folder, { recursive: true });
      this.dirs.add(folder);
    }
    const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    const body = JSON.stringify({ key, reply }) + "\n";
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
    keys.add(key);
  }
}
