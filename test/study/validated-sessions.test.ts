import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { turnsInMemory } from "../../src/study/validated-sessions.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

async function study(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-validated-")), "study");
  await cp(demo, dir, { recursive: true });
  // As `colloquy import` writes them (the demo's files predate the schema's key order).
  for (const session of await loadSessions(dir)) await saveSession(dir, session);
  return dir;
}

/** Put a file's mtime an hour back (past the window in which a fresh file is not trusted). */
async function age(path: string, at = new Date(Date.now() - 3_600_000)): Promise<Date> {
  await utimes(path, at, at);
  return at;
}

const cacheOf = async (dir: string) =>
  JSON.parse(await readFile(join(dir, ".cache", "validated-sessions.json"), "utf8")) as { code: string; files: Record<string, number[]> };

/** A session file with the speaker of its first turn replaced by one no participant has, the same number of bytes long. */
async function breakSpeaker(path: string): Promise<void> {
  const text = await readFile(path, "utf8");
  const speaker: string = JSON.parse(text).turns[0].speaker;
  const broken = text.replace(`"speaker": "${speaker}"`, `"speaker": "${"x".repeat(speaker.length)}"`);
  expect(broken).not.toBe(text);
  expect(Buffer.byteLength(broken)).toBe(Buffer.byteLength(text));
  await writeFile(path, broken);
}

describe("loading sessions validates each file once", () => {
  it("does not validate an unchanged file again, and validates an edited one again even when its size and mtime were put back", async () => {
    const dir = await study();
    const path = join(dir, "sessions", "control-1.json");
    const when = await age(path);
    await loadSessions(dir);
    const remembered = (await cacheOf(dir)).files["control-1"];
    expect(remembered).toBeDefined();
    await loadSessions(dir);
    expect((await cacheOf(dir)).files["control-1"]).toEqual(remembered);
    // Same number of bytes, same mtime (as cp -p, rsync -a or tar leave an edited file), but a
    // speaker no participant has: only validation notices, and a run without the cache does.
    await breakSpeaker(path);
    await age(path, when);
    const now = await stat(path);
    expect([now.size, now.mtimeMs]).toEqual(remembered.slice(0, 2));
    await expect(loadSessions(dir)).rejects.toThrow(/control-1\.json: turns\[0\]\.speaker "x+" is not a participant id/);
  });

  it("a remembered file loads exactly as validation returns it; files validation changes or just written are not remembered", async () => {
    const dir = await study();
    const path = join(dir, "sessions", "control-2.json");
    // No metadata and no schemaVersion: validation fills in defaults, so the file is not what a session is.
    const session = JSON.parse(await readFile(path, "utf8"));
    delete session.metadata;
    delete session.schemaVersion;
    await writeFile(path, JSON.stringify(session));
    await age(path);
    await age(join(dir, "sessions", "control-1.json"));
    const validated = await loadSessions(dir);
    const cache = await cacheOf(dir);
    expect(cache.files["control-2"]).toBeUndefined();
    expect(cache.files["control-1"]).toBeDefined();
    // critical-1 was not aged: written "now" as far as the cache can tell, so not remembered yet.
    await writeFile(join(dir, "sessions", "critical-1.json"), await readFile(join(dir, "sessions", "critical-1.json")));
    const remembered = await loadSessions(dir);
    expect((await cacheOf(dir)).files["critical-1"]).toBeUndefined();
    expect(JSON.stringify(remembered)).toBe(JSON.stringify(validated));
    expect(remembered.find((s) => s.id === "control-2")!.metadata).toEqual({});
  });

  it("a file validated and remembered in this load is given as its head too (a first run holds no session's turns); one not remembered is given whole", async () => {
    const dir = await study();
    const path = join(dir, "sessions", "control-1.json");
    // control-2 without metadata: validation fills it in, so the file is never remembered.
    const other = join(dir, "sessions", "control-2.json");
    const session = JSON.parse(await readFile(other, "utf8"));
    delete session.metadata;
    await writeFile(other, JSON.stringify(session));
    for (const file of [path, other]) await age(file);
    const loaded = await loadSessions(dir, ["control-1", "control-2"]);
    const [fresh, whole] = ["control-1", "control-2"].map((id) => loaded.find((s) => s.id === id)!);
    expect((await cacheOf(dir)).files["control-1"]).toBeDefined();
    expect((await cacheOf(dir)).files["control-2"]).toBeUndefined();
    expect(turnsInMemory(fresh)).toBe(false);
    expect(turnsInMemory(whole)).toBe(true);
    // Read from the file when asked for: what the file holds.
    expect(JSON.parse(JSON.stringify(fresh.turns))).toEqual(JSON.parse(await readFile(path, "utf8")).turns);
  });

  it("a remembered file is stamped, not read: its turns are read when first asked for, from the file as it was remembered", async () => {
    const dir = await study();
    const path = join(dir, "sessions", "control-1.json");
    await age(path);
    await age(join(dir, "sessions", "control-2.json"));
    const validated = await loadSessions(dir);
    // Kept with its head: the session without its turns, in the file's key order.
    const head = JSON.parse((await cacheOf(dir)).files["control-1"][5] as unknown as string) as Record<string, unknown>;
    const original = JSON.parse(await readFile(path, "utf8"));
    expect(Object.keys(head)).toEqual(Object.keys(original));
    expect(head).toEqual({ ...original, turns: 0 });
    // The same sessions, byte for byte (turns read on the way).
    expect(JSON.stringify(await loadSessions(dir))).toBe(JSON.stringify(validated));
    // Loaded, then the file is touched (a new stamp, the same bytes): its turns are read.
    const touched = (await loadSessions(dir)).find((s) => s.id === "control-1")!;
    await age(path, new Date(Date.now() - 7_200_000));
    expect(touched.turns).toEqual(original.turns);
    // Loaded (remembered again under its new stamp first), then the file changes before its turns
    // are asked for: the head is at hand, the turns are refused.
    await loadSessions(dir);
    const loaded = (await loadSessions(dir)).find((s) => s.id === "control-1")!;
    await writeFile(path, (await readFile(path, "utf8")).replace(/"text": "/, '"text": "Edited: '));
    expect(loaded.participants).toEqual(original.participants);
    expect(() => loaded.turns).toThrow(/control-1\.json: the file changed while this run was using it/);
    // Turns set before they were read are the ones set (the file is not read for them).
    const other = (await loadSessions(dir)).find((s) => s.id === "control-2")!;
    const otherPath = join(dir, "sessions", "control-2.json");
    await writeFile(otherPath, (await readFile(otherPath, "utf8")) + "\n");
    other.turns = validated.find((s) => s.id === "control-2")!.turns.slice(0, 1);
    expect(other.turns).toHaveLength(1);
  });

  it("a session loaded from the record is the caller's own: changing it changes neither the record nor another load; frozen, it still reads its turns", async () => {
    const dir = await study();
    const path = join(dir, "sessions", "control-2.json");
    await age(path);
    const original = JSON.parse(await readFile(path, "utf8"));
    await loadSessions(dir);
    const mine = (await loadSessions(dir)).find((s) => s.id === "control-2")!;
    mine.metadata.condition = "changed";
    mine.participants[0].name = "changed";
    const again = (await loadSessions(dir)).find((s) => s.id === "control-2")!;
    expect(again.metadata).toEqual(original.metadata);
    expect(again.participants).toEqual(original.participants);
    // The record is saved (another file is remembered now) with what the file holds.
    await age(join(dir, "sessions", "critical-1.json"));
    await loadSessions(dir);
    expect(JSON.parse((await cacheOf(dir)).files["control-2"][5] as unknown as string)).toEqual({ ...original, turns: 0 });
    const frozen = Object.freeze((await loadSessions(dir)).find((s) => s.id === "control-2")!);
    expect(frozen.turns).toEqual(original.turns);
    expect(frozen.turns).toBe(frozen.turns);
  });

  it("ignores a cache written for another schema or a torn one", async () => {
    const dir = await study();
    const path = join(dir, "sessions", "control-1.json");
    const when = await age(path);
    await loadSessions(dir);
    const cache = await cacheOf(dir);
    await breakSpeaker(path);
    await age(path, when);
    // The edited file's own stamp, remembered under another schema's code: only the code tells.
    const now = await stat(path);
    const files = { ...cache.files, "control-1": [now.size, now.mtimeMs, now.ctimeMs, now.ino] };
    await writeFile(join(dir, ".cache", "validated-sessions.json"), JSON.stringify({ ...cache, code: "another schema", files }));
    await expect(loadSessions(dir)).rejects.toThrow(/is not a participant id/);
    await writeFile(join(dir, ".cache", "validated-sessions.json"), "{ torn");
    await expect(loadSessions(dir)).rejects.toThrow(/is not a participant id/);
    expect(existsSync(join(dir, ".cache", "validated-sessions.json"))).toBe(true);
  });
});
