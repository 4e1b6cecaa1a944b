import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeLargeStudy } from "../../fixtures/dashboard/generate.js";
import { buildSite } from "../../src/report/build.js";
import { diskSessions, heldSessions, type BuildSessions } from "../../src/report/sessions.js";
import { readCodes, replaceCodes } from "../../src/coding/store.js";
import { diskReader } from "../../src/study/reader.js";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { turnFingerprint } from "../../src/transcript/fingerprint.js";
import { fullCollection } from "../support/gc.js";

/**
 * The build alone holds each session's head, and a session whole only for the step that needs its
 * turns (issue 40): how many sessions' turns are alive at once must not grow with the study.
 */

const SESSIONS = 12;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-build-sessions-"));
  await writeLargeStudy(dir, SESSIONS * 20, 20);
  // Records carry their turn's fingerprint, as coders write them; one was given words its turn no longer has.
  const sessions = new Map((await loadSessions(dir)).map((s) => [s.id, s]));
  const records = (await readCodes(dir, "bales-ipa", "rules")).map((r, i) => {
    const turn = sessions.get(r.session)!.turns.find((t) => t.id === r.turn)!;
    return { ...r, fingerprint: i === 7 ? turnFingerprint({ ...turn, text: `${turn.text} (edited)` }) : turnFingerprint(turn) };
  });
  await replaceCodes(dir, "bales-ipa", "rules", records);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * `source` with each whole session it hands out watched: before each load (on a later task, so
 * nothing the build just let go is kept for it), a full collection, then the number of sessions
 * handed out earlier whose turns are still alive. Returns the largest number seen.
 */
function watched(source: BuildSessions): { source: BuildSessions; alive: () => number } {
  const turns: WeakRef<object>[] = [];
  let most = 0;
  return {
    alive: () => most,
    source: {
      ...source,
      async load(index) {
        await new Promise((resolve) => setImmediate(resolve));
        fullCollection();
        most = Math.max(most, turns.filter((ref) => ref.deref() !== undefined).length);
        const session = await source.load(index);
        turns.push(new WeakRef(session.turns));
        return session;
      },
    },
  };
}

async function siteFiles(site: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(site, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const rel = join(entry.parentPath, entry.name).slice(site.length + 1);
    // The index's provenance has the build's time (and so its name and index.html's).
    if (rel === "index.html" || rel.startsWith("data.")) continue;
    out.set(rel, await readFile(join(site, rel), "utf8"));
  }
  return out;
}

describe("the build's sessions", () => {
  it("are read one whole at a time: no session's turns outlive the step that needed them", async () => {
    const { source, alive } = watched(await diskSessions(dir));
    await buildSite(dir, { out: join(dir, "streamed"), sessions: source });
    expect(alive()).toBe(0);
    // The same watch on a source that holds every session sees them all alive: the check can fail.
    const held = watched(await heldSessions(diskReader(dir)));
    await buildSite(dir, { out: join(dir, "held"), sessions: held.source });
    expect(held.alive()).toBeGreaterThanOrEqual(SESSIONS - 1);
  });

  it("give the site a build from sessions held in memory gives, with codes whose turn changed withheld the same way", async () => {
    await buildSite(dir, { out: join(dir, "a") });
    await buildSite(dir, { out: join(dir, "b"), sessions: await heldSessions(diskReader(dir)) });
    const [a, b] = [await siteFiles(join(dir, "a")), await siteFiles(join(dir, "b"))];
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [name, text] of a) expect(text, name).toBe(b.get(name));
    expect(a.size).toBeGreaterThan(SESSIONS);
  });

  it("heads refuse to give turns (only a loaded session has them), and hold none of the sessions they were read from", async () => {
    const study = await mkdtemp(join(tmpdir(), "colloquy-build-heads-"));
    await writeLargeStudy(study, SESSIONS * 20, 20);
    // 12 sessions of 20 turns of ~20 kB each (~5 MB), first read whole and validated (nothing remembered).
    for (const session of await loadSessions(study))
      await saveSession(study, { ...session, turns: session.turns.map((t) => ({ ...t, text: `${t.text} `.repeat(1000) })) });
    await rm(join(study, ".cache"), { recursive: true, force: true });
    fullCollection();
    const before = process.memoryUsage().heapUsed;
    const { heads, load } = await diskSessions(study);
    fullCollection();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(1_000_000);
    expect(heads).toHaveLength(SESSIONS);
    expect(() => heads[0].turns).toThrow(/head only/);
    expect((await load(0)).turns).toHaveLength(20);
    await rm(study, { recursive: true, force: true });
  });
});
