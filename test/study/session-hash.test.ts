import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSessions, saveSession, sessionPath } from "../../src/study/study.js";
import { openMemo, sessionHash } from "../../src/study/memo.js";
import { sha256 } from "../../src/util/hash.js";

/**
 * A session loaded from its file is keyed in the memos by the sha256 of the file's bytes (the
 * loader has them; hashing every session's JSON cost 80 ms a run at 100,000 turns); a session made
 * in memory by the sha256 of its JSON. Either way a memo entry is reused only for the same content.
 */
describe("sessionHash", () => {
  it("is the file's sha256 for a loaded session, its JSON's for one made in memory; a memo entry is reused for the same bytes only", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-session-hash-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const [session] = await loadSessions(dir);
    const path = sessionPath(dir, session.id);
    const bytes = await readFile(path);
    expect(sessionHash(session)).toBe(sha256(bytes));
    const copy = structuredClone(session);
    expect(sessionHash(copy)).toBe(sha256(JSON.stringify(copy)));

    const memo = await openMemo<number>(dir, "test-session-hash", {});
    expect(memo.get(session.id, sessionHash(session), () => 1)).toBe(1);
    await memo.save();
    const again = await openMemo<number>(dir, "test-session-hash", {});
    const [reloaded] = await loadSessions(dir);
    expect(again.kept(reloaded.id, sessionHash(reloaded))?.value).toBe(1);
    // The same content laid out otherwise: computed again (never a wrong reuse) ...
    await writeFile(path, JSON.stringify(JSON.parse(bytes.toString("utf8"))));
    const [compact] = await loadSessions(dir);
    expect(compact).toEqual(reloaded);
    expect(again.kept(compact.id, sessionHash(compact))).toBeUndefined();
    // ... and other words: another hash too.
    compact.turns[0].text += " (edited)";
    await writeFile(path, JSON.stringify(compact, null, 2));
    const [edited] = await loadSessions(dir);
    expect(sessionHash(edited)).not.toBe(sessionHash(reloaded));
    expect(again.kept(edited.id, sessionHash(edited))).toBeUndefined();
  });

  it("of an unchanged file is the hash kept with its stamp when it was validated (not hashed again); an entry kept without one gets it", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-session-hash-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const past = new Date(Date.now() - 10_000);
    // Files as colloquy writes them (validation then gives back exactly what they hold), written a while ago.
    for (const s of await loadSessions(dir)) {
      await saveSession(dir, s);
      await utimes(sessionPath(dir, s.id), past, past);
    }
    const [session] = await loadSessions(dir);
    const cache = join(dir, ".cache", "validated-sessions.json");
    const kept = JSON.parse(await readFile(cache, "utf8")) as { code: string; files: Record<string, unknown[]> };
    expect(kept.files[session.id][4]).toBe(sessionHash(session));
    // A kept hash is taken as it is (forged here to show it), for the same stamp only.
    kept.files[session.id][4] = "f".repeat(64);
    await writeFile(cache, JSON.stringify(kept));
    expect(sessionHash((await loadSessions(dir))[0])).toBe("f".repeat(64));
    // Kept as a stamp alone (before hashes were kept): hashed, and kept with its hash.
    kept.files[session.id] = kept.files[session.id].slice(0, 4);
    await writeFile(cache, JSON.stringify(kept));
    const [again] = await loadSessions(dir);
    expect(sessionHash(again)).toBe(sha256(await readFile(sessionPath(dir, session.id))));
    expect((JSON.parse(await readFile(cache, "utf8")) as typeof kept).files[session.id][4]).toBe(sessionHash(again));
  });
});
