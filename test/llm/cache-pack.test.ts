import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { ResponseCache, type CachedReply } from "../../src/llm/cache.js";
import { bootId, ownerTag } from "../../src/util/process.js";

/** The response cache's pack files: many replies in one file, read by the same lookup as loose entries. */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-cache-pack-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const key = (n: number) => n.toString(16).padStart(64, "0");
const reply = (text: string): CachedReply => ({
  text,
  model: "m",
  usage: { promptTokens: 3, completionTokens: 1 },
  finishReason: "stop",
  receivedAt: "2026-01-01T00:00:00.000Z",
});

describe("response cache packs", () => {
  it("keeps many replies in one file that a later process reads back exactly, non-ASCII included", async () => {
    const entries = Array.from({ length: 500 }, (_, i) => [key(i), reply(`{"code":"x${i}","rationale":"é — 日本 ${"z".repeat(i % 7)}"}`)] as const);
    expect(await new ResponseCache(dir).putMany(entries)).toBe(500);
    const files = await readdir(dir, { recursive: true });
    expect(files.filter((f) => f.endsWith(".jsonl"))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith(".json") || f.endsWith(".tmp"))).toHaveLength(0);
    const later = new ResponseCache(dir);
    for (const [k, r] of entries) expect(await later.get(k)).toEqual(r);
    expect(await later.get(key(9999))).toBeUndefined();
  });

  it("a forgotten packed reply stays forgotten in the next process, and a new reply replaces it", async () => {
    const cache = new ResponseCache(dir);
    await cache.putMany([
      [key(1), reply("one")],
      [key(2), reply("two")],
    ]);
    await cache.delete(key(1));
    expect(await cache.get(key(1))).toBeUndefined();
    expect(await new ResponseCache(dir).get(key(1))).toBeUndefined();
    expect(await new ResponseCache(dir).get(key(2))).toEqual(reply("two"));
    await new ResponseCache(dir).put(key(1), reply("one again"));
    expect(await new ResponseCache(dir).get(key(1))).toEqual(reply("one again"));
  });

  it("a later pack overrides loose entries and earlier packs of the same key", async () => {
    const cache = new ResponseCache(dir);
    await cache.put(key(1), reply("loose"));
    await cache.putMany([[key(1), reply("packed")]]);
    expect(await cache.get(key(1))).toEqual(reply("packed"));
    expect(await new ResponseCache(dir).get(key(1))).toEqual(reply("packed"));
    await new Promise((r) => setTimeout(r, 5)); // pack names sort by time (ms)
    await cache.putMany([[key(1), reply("packed later")]]);
    expect(await new ResponseCache(dir).get(key(1))).toEqual(reply("packed later"));
  });

  it("reads a cache written before packs existed, and skips damaged pack lines instead of failing", async () => {
    // The earlier layout: one <2 hex>/<key>.json file per reply.
    await mkdir(join(dir, "00"), { recursive: true });
    await writeFile(join(dir, "00", `${key(5)}.json`), JSON.stringify({ key: key(5), reply: reply("old") }) + "\n");
    await mkdir(join(dir, "packs"));
    const good = JSON.stringify({ key: key(6), reply: reply("six") });
    await writeFile(join(dir, "packs", "2026-01-01T00-00-00-000Z-1-aa.jsonl"), `{"key":"nonsense"}\n{torn line\n${good}\n{"key":"${key(7)}","reply":{"te`);
    const cache = new ResponseCache(dir);
    expect(await cache.get(key(5))).toEqual(reply("old"));
    expect(await cache.get(key(6))).toEqual(reply("six"));
    expect(await cache.get(key(7))).toBeUndefined();
    expect(await readFile(join(dir, "00", `${key(5)}.json`), "utf8")).toContain("old");
  });

  it("gives back the room of a journal a killed process left: cut to its replies, or removed when empty", async () => {
    // The id of a process that has ended (as a kill -9 leaves it: its exit hook never ran).
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const room = "\n".repeat(64 * 1024);
    const line = JSON.stringify({ key: key(8), reply: reply("kept in the journal") }) + "\n";
    const packs = join(dir, "packs");
    await mkdir(packs);
    const held = join(packs, `2026-01-01T00-00-00-000Z-journal-${gone}-0123abcd.jsonl`);
    const empty = join(packs, `2026-01-01T00-00-01-000Z-journal-${gone}-4567abcd.jsonl`);
    // A journal of a process still running (this one) is its own: left as it is.
    const running = join(packs, `2026-01-01T00-00-02-000Z-journal-${process.pid}-89abcdef.jsonl`);
    await writeFile(held, line + room);
    await writeFile(empty, room);
    await writeFile(running, room);
    const cache = new ResponseCache(dir);
    expect(await cache.get(key(8))).toEqual(reply("kept in the journal"));
    expect(await readFile(held, "utf8")).toBe(line);
    expect((await readdir(packs)).sort()).toEqual([held, running].map((p) => p.slice(packs.length + 1)).sort());
    expect(await readFile(running, "utf8")).toBe(room);
  });

  it("leaves a journal of another machine sharing the folder alone, and closes one of an earlier boot of this machine", async () => {
    const [pid, host, boot] = ownerTag().split("~");
    const room = "\n".repeat(1024);
    const packs = join(dir, "packs");
    await mkdir(packs);
    // Another host: its pid means nothing here, so even a pid that is gone here keeps the journal.
    const elsewhere = `2026-01-01T00-00-00-000Z-journal-${spawnSync(process.execPath, ["-e", ""]).pid}~${host === "00000000" ? "00000001" : "00000000"}~${boot}-0123abcd.jsonl`;
    await writeFile(join(packs, elsewhere), room);
    const names = [elsewhere];
    if (bootId() !== undefined) {
      // This host before a restart: gone, although a process of this boot has its pid (this one).
      await writeFile(join(packs, `2026-01-01T00-00-01-000Z-journal-${pid}~${host}~12345678-4567abcd.jsonl`), room);
    }
    const cache = new ResponseCache(dir);
    expect(await cache.get(key(1))).toBeUndefined();
    expect(await readdir(packs)).toEqual(names);
  });

  it("removes the unfinished pack of a killed process (a collect stopped mid-download), not a running one's", async () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const packs = join(dir, "packs");
    await mkdir(packs);
    const line = JSON.stringify({ key: key(9), reply: reply("half a download") }) + "\n";
    const dead = `2026-01-01T00-00-00-000Z-${gone}-0123abcd.jsonl.tmp`;
    const live = `2026-01-01T00-00-01-000Z-${process.pid}-4567abcd.jsonl.tmp`;
    await writeFile(join(packs, dead), line);
    await writeFile(join(packs, live), line);
    const cache = new ResponseCache(dir);
    // Never renamed, so never a pack: its replies are not served.
    expect(await cache.get(key(9))).toBeUndefined();
    expect(await readdir(packs)).toEqual([live]);
  });

  it("refuses a key that is not a cache key, leaving no file behind", async () => {
    await expect(new ResponseCache(dir).putMany([["../escape", reply("x")]])).rejects.toThrow(/not a cache key/);
    expect((await readdir(join(dir, "packs"))).length).toBe(0);
  });
});
