// The concepts and topics stages go through the study one session at a time (issue 40): the
// sessions the context shares keep no turns after them, so a pass holds one window's turns.
import { expect, it } from "vitest";
import { cp, mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { turnsInMemory } from "../../src/study/validated-sessions.js";
import { openStudy, silentEffects } from "../../src/stages/context.js";
import { runConcepts } from "../../src/stages/concepts.js";
import { runTopics } from "../../src/stages/topics.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

it("concepts and topics leave the shared sessions without their turns; eachSession gives every session, in order, with its turns", async () => {
  const root = await mkdtemp(join(tmpdir(), "colloquy-each-session-"));
  try {
    const dir = join(root, "study");
    await cp(demo, dir, { recursive: true });
    for (const session of await loadSessions(dir)) await saveSession(dir, session);
    // Files older than the window in which a fresh file is not trusted, then remembered with their heads.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const name of await readdir(join(dir, "sessions"))) await utimes(join(dir, "sessions", name), hourAgo, hourAgo);
    await loadSessions(dir);

    const context = await openStudy(dir);
    const shared = await context.sessions();
    expect(shared.some(turnsInMemory)).toBe(false);
    await runConcepts(context, {}, silentEffects);
    await runTopics(context, { coder: "rules" }, silentEffects);
    expect(shared.some(turnsInMemory)).toBe(false);

    const passed = [];
    for await (const session of context.eachSession()) passed.push(session);
    expect(passed.map((s) => s.id)).toEqual(shared.map((s) => s.id));
    expect(passed.map((s) => s.turns.length)).toEqual((await loadSessions(dir)).map((s) => s.turns.length));
    expect(shared.some(turnsInMemory)).toBe(false);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
