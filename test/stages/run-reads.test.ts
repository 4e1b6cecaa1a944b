// What a pipeline run reads again: every codes file is parsed once a run (the dashboard's build takes
// each coder's records from what the analyses before it read, the context's code cuts), and a stage
// whose memo has a session's result does not read that session's turns.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeLargeStudy } from "../../fixtures/dashboard/generate.js";
import { runBuild } from "../../src/stages/build.js";
import { runConcepts } from "../../src/stages/concepts.js";
import { runTopics } from "../../src/stages/topics.js";
import { openStudy, silentEffects, type StudyContext } from "../../src/stages/context.js";
import { withStudyLock } from "../../src/study/lock.js";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { runCode } from "../../src/stages/code.js";
import { appendCodes } from "../../src/coding/store.js";

const { codeReads, sessionReads } = vi.hoisted(() => ({ codeReads: [] as string[], sessionReads: [] as string[] }));
vi.mock("../../src/coding/store.js", async (original) => {
  const store = await original<typeof import("../../src/coding/store.js")>();
  return {
    ...store,
    readCodes: (study: string, codebook: string, coder: string) => (codeReads.push(`${codebook}/${coder}`), store.readCodes(study, codebook, coder)),
  };
});
vi.mock("../../src/study/validated-sessions.js", async (original) => {
  const files = await original<typeof import("../../src/study/validated-sessions.js")>();
  return {
    ...files,
    withTurns: (session: Parameters<typeof files.withTurns>[0]) => (files.turnsInMemory(session) || sessionReads.push(session.id), files.withTurns(session)),
  };
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-run-reads-"));
  await writeLargeStudy(dir, 600, 100);
  // Files older than the window in which a fresh file is not trusted, then remembered with their heads (turns read on first use).
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const name of await readdir(join(dir, "sessions"))) await utimes(join(dir, "sessions", name), hourAgo, hourAgo);
  await loadSessions(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it("a build after the analyses of a run reads no codes file again, and gives the site a build alone gives", async () => {
  const context = await openStudy(dir);
  const coders = Object.entries(await context.coders()).flatMap(([codebook, list]) => list.map((coder) => [codebook, coder] as const));
  expect(coders.length).toBeGreaterThan(1);
  // What agree, compare and stats read of each coder.
  for (const [codebook, coder] of coders) await context.codeValues(codebook, coder);
  expect(codeReads.sort()).toEqual(coders.map(([codebook, coder]) => `${codebook}/${coder}`).sort());
  codeReads.length = 0;
  const held = await runBuild(context, { out: join(dir, "held") }, silentEffects);
  expect(codeReads).toEqual([]);
  // Alone, with no part of the dashboard kept, the build reads each codes file itself, once, and shapes the same dashboard.
  for (const memo of await readdir(join(dir, ".cache", "memo")))
    if (memo.startsWith("report-")) await rm(join(dir, ".cache", "memo", memo), { recursive: true });
  const alone = await runBuild(await openStudy(dir), { out: join(dir, "alone"), alone: true }, silentEffects);
  expect(codeReads.sort()).toEqual(coders.map(([codebook, coder]) => `${codebook}/${coder}`).sort());
  // Each view's file is named by its content.
  expect(held.files.views).toEqual(alone.files.views);
  expect(held.files.chunks).toBe(alone.files.chunks);
  expect(held.warnings).toEqual(alone.warnings);
});

it("the build lets go of the code values it read itself: the context keeps only those earlier stages shared", async () => {
  const context = await openStudy(dir);
  const [shared, own] = Object.entries(await context.coders()).flatMap(([codebook, list]) => list.map((coder) => [codebook, coder] as const));
  await context.codeValues(...shared);
  await runBuild(context, { out: join(dir, "held") }, silentEffects);
  codeReads.length = 0;
  await context.codeCut(...shared);
  expect(codeReads).toEqual([]);
  await context.codeCut(...own);
  expect(codeReads).toEqual([own.join("/")]);
});

it("concepts and topics read a session's turns only when their memo has no result for it", async () => {
  const ids = (await loadSessions(dir)).map((s) => s.id).sort();
  sessionReads.length = 0;
  const first = await openStudy(dir);
  const made = await runConcepts(first, {}, silentEffects);
  await runTopics(first, { coder: "rules" }, silentEffects);
  expect(sessionReads.sort()).toEqual([...ids, ...ids].sort());
  sessionReads.length = 0;
  const again = await openStudy(dir);
  const concepts = await runConcepts(again, {}, silentEffects);
  const topics = await runTopics(again, { coder: "rules" }, silentEffects);
  expect(sessionReads).toEqual([]);
  // The same report as the first run's, its provenance (times) aside.
  const { provenance: _again, ...report } = concepts.report;
  const { provenance: _first, ...firstReport } = made.report;
  expect(report).toEqual(firstReport);
  expect(topics.trees).toBeGreaterThan(0);

  // A kept entry that cannot be read (torn by a crash) is made again, never trusted, and the stage does not fail.
  const entries = join(dir, ".cache", "memo", "concepts");
  await writeFile(join(entries, (await readdir(entries))[0]), "");
  const { provenance: _torn, ...afterTorn } = (await runConcepts(await openStudy(dir), {}, silentEffects)).report;
  expect(afterTorn).toEqual(firstReport);

  // One session edited: the others are not read, and the reports are those of a run from scratch.
  const [session] = await loadSessions(dir);
  await saveSession(dir, { ...session, turns: session.turns.map((t, i) => (i === 1 ? { ...t, text: `${t.text} about the budget plan` } : t)) });
  sessionReads.length = 0;
  const edited = await openStudy(dir);
  const { provenance: _memoised, ...memoised } = (await runConcepts(edited, {}, silentEffects)).report;
  const memoisedTrees = (await runTopics(edited, { coder: "rules" }, silentEffects)).report.trees;
  expect(sessionReads).toEqual([]);
  await rm(join(dir, ".cache", "memo"), { recursive: true });
  const scratch = await openStudy(dir);
  const { provenance: _scratch, ...fromScratch } = (await runConcepts(scratch, {}, silentEffects)).report;
  expect(memoised).toEqual(fromScratch);
  expect(memoisedTrees).toEqual((await runTopics(scratch, { coder: "rules" }, silentEffects)).report.trees);
  expect(memoised).not.toEqual(firstReport);
});

it("the codes' currency check keeps each session's verdict: a later run reads no session for it, and a record of an edited turn is still withheld", async () => {
  // Records as the rules coder writes them (with their turns' fingerprints, not the fixture's); no verdict kept yet.
  await rm(join(dir, "codes", "bales-ipa", "rules.jsonl"));
  await runCode(await openStudy(dir), { codebook: "bales-ipa", coder: "rules" }, silentEffects);
  const verdicts = join(dir, ".cache", "memo", "code-currency");
  await rm(verdicts, { recursive: true, force: true });
  // Sessions remembered with their heads again (the test before edited one), so a check that reads one is seen.
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const name of await readdir(join(dir, "sessions"))) await utimes(join(dir, "sessions", name), hourAgo, hourAgo);
  await loadSessions(dir);
  const ids = (await loadSessions(dir)).map((s) => s.id).sort();
  const read = (context: StudyContext) => context.codes("bales-ipa", "rules", { keep: false });
  // A reader (no writer lock: export, a dry run) checks every session and stores nothing.
  sessionReads.length = 0;
  const first = await read(await openStudy(dir));
  expect(first.every((r) => r.fingerprint !== undefined)).toBe(true);
  expect(sessionReads.sort()).toEqual(ids);
  expect(existsSync(verdicts)).toBe(false);
  // A writer stores the verdicts; a later reader, or writer, reads no session for them.
  sessionReads.length = 0;
  expect(await withStudyLock(dir, "colloquy test", async () => read(await openStudy(dir)))).toEqual(first);
  expect(sessionReads.sort()).toEqual(ids);
  sessionReads.length = 0;
  expect(await read(await openStudy(dir))).toEqual(first);
  expect(await withStudyLock(dir, "colloquy test", async () => read(await openStudy(dir)))).toEqual(first);
  expect(sessionReads).toEqual([]);
  // A record given another version of a turn (a stale fingerprint) in an unchanged session: that session's verdict is made anew.
  const stale = first.find((r) => r.session === ids[1])!;
  await appendCodes(dir, [{ ...stale, fingerprint: "0".repeat(16), createdAt: new Date().toISOString() }]);
  const withStale = await withStudyLock(dir, "colloquy test", async () => read(await openStudy(dir)));
  expect(withStale).toEqual(first.filter((r) => r !== stale));
  first.splice(first.indexOf(stale), 1);
  // One turn's words edited outside colloquy: that session is checked anew, its record of the turn withheld.
  const [session] = await loadSessions(dir);
  await saveSession(dir, { ...session, turns: session.turns.map((t, i) => (i === 0 ? { ...t, text: `${t.text} (edited)` } : t)) });
  const now = await withStudyLock(dir, "colloquy test", async () => read(await openStudy(dir)));
  expect(now).toEqual(first.filter((r) => !(r.session === session.id && r.turn === session.turns[0].id)));
  expect(now.length).toBe(first.length - 1);
});
