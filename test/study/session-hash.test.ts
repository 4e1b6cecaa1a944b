import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSessions, sessionPath } from "../../src/study/study.js";
import { openSessionMemo, sessionHash } from "../../src/study/session-memo.js";
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

    const memo = await openSessionMemo<number>(dir, "test-session-hash", {});
    expect(memo.get(session.id, session, () => 1)).toBe(1);
    await memo.save();
    const again = await openSessionMemo<number>(dir, "test-session-hash", {});
    const [reloaded] = await loadSessions(dir);
    expect(again.has(reloaded.id, reloaded)).toBe(true);
    // The same content laid out otherwise: computed again (never a wrong reuse) ...
    await writeFile(path, JSON.stringify(JSON.parse(bytes.toString("utf8"))));
    const [compact] = await loadSessions(dir);
    expect(compact).toEqual(reloaded);
    expect(again.has(compact.id, compact)).toBe(false);
    // ... and other words: another hash too.
    compact.turns[0].text += " (edited)";
    await writeFile(path, JSON.stringify(compact, null, 2));
    const [edited] = await loadSessions(dir);
    expect(sessionHash(edited)).not.toBe(sessionHash(reloaded));
    expect(again.has(edited.id, edited)).toBe(false);
  });
});
