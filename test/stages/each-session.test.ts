// The concepts and topics stages go through the study one session at a time (issue 40): the
// sessions the context shares keep no turns after them, so a pass holds one window's turns.
import { expect, it } from "vitest";
import { cp, mkdtemp, readFile, readdir, rename, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { join } from "node:path";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { turnsInMemory, withTurns } from "../../src/study/validated-sessions.js";
import { diskSessions, heldSessions } from "../../src/report/sessions.js";
import { buildSite } from "../../src/report/build.js";
import { openStudy, silentEffects } from "../../src/stages/context.js";
import { runConcepts } from "../../src/stages/concepts.js";
import { runTopics } from "../../src/stages/topics.js";
import { runCode } from "../../src/stages/code.js";
import { runPipeline } from "../../src/pipeline/run.js";
import { studyStages } from "../../src/pipeline/stages.js";
import type { Stage, StageName } from "../../src/pipeline/types.js";
import { currentCodes } from "../../src/study/reader.js";
import { readCodes } from "../../src/coding/store.js";
import { silentReporter } from "../../src/util/reporter.js";
import type { Session } from "../../src/transcript/schema.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

/**
 * `test` on a copy of the demo study (`dir`, in the temp folder `root`) whose session files are
 * remembered with their heads (turns read on first use); the copy is removed after.
 */
async function withRememberedStudy(test: (dir: string, root: string) => Promise<void>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "colloquy-each-session-"));
  try {
    const dir = join(root, "study");
    await cp(demo, dir, { recursive: true });
    for (const session of await loadSessions(dir)) await saveSession(dir, session);
    // Files older than the window in which a fresh file is not trusted, then remembered with their heads.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const name of await readdir(join(dir, "sessions"))) await utimes(join(dir, "sessions", name), hourAgo, hourAgo);
    await loadSessions(dir);
    await test(dir, root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

it("a pass that reads a session again stops when its file changed or went away since the run read it, as reading a head's turns does", async () =>
  withRememberedStudy(async (dir) => {
    const [first] = await readdir(join(dir, "sessions"));
    const file = join(dir, "sessions", first!);
    const context = await openStudy(dir);
    await context.sessions();
    const build = await diskSessions(dir);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace(/"text": ?"/, '"text":"edited meanwhile: '));
    await expect(async () => {
      for (const session of await context.sessions()) withTurns(session);
    }).rejects.toThrow(`${file}: the file changed while this run was using it`);
    const at = build.heads.findIndex((h) => file.endsWith(`${h.id}.json`));
    await expect(build.load(at)).rejects.toThrow(`${file}: the file changed while this run was using it`);
    await rm(file);
    await expect(build.load(at)).rejects.toThrow(`${file}: the file was removed while this run was using it`);
  }));

it("a session whose file is named otherwise than its id is read again from its own file", async () =>
  withRememberedStudy(async (dir) => {
    const [first] = await readdir(join(dir, "sessions"));
    await rename(join(dir, "sessions", first!), join(dir, "sessions", `renamed-${first}`));
    await loadSessions(dir); // remembered under its new name: its turns are read on first use
    const context = await openStudy(dir);
    expect((await context.sessions()).some(turnsInMemory)).toBe(false);
    const passed = (await context.sessions()).map(withTurns);
    expect(passed.map((s) => s.turns.length)).toEqual((await loadSessions(dir)).map((s) => s.turns.length));
  }));

it("the pipeline's build reads a session whose turns were never read for its step, and leaves the shared one without them", async () =>
  withRememberedStudy(async (dir, root) => {
    // Without codes, nothing else reads the turns: only the build's own steps would.
    await rm(join(dir, "codes"), { recursive: true, force: true });
    const context = await openStudy(dir);
    const shared = await context.sessions();
    await buildSite(dir, { out: join(root, "site"), sessions: await heldSessions(context) });
    expect(shared.some(turnsInMemory)).toBe(false);
  }));

it("concepts and topics leave the shared sessions without their turns; withTurns gives every session with its turns and keeps them off the shared one", async () =>
  withRememberedStudy(async (dir) => {
    const context = await openStudy(dir);
    const shared = await context.sessions();
    expect(shared.some(turnsInMemory)).toBe(false);
    await runConcepts(context, {}, silentEffects);
    await runTopics(context, { coder: "rules" }, silentEffects);
    expect(shared.some(turnsInMemory)).toBe(false);

    const passed = shared.map(withTurns);
    expect(passed.map((s) => s.turns.length)).toEqual((await loadSessions(dir)).map((s) => s.turns.length));
    expect(shared.some(turnsInMemory)).toBe(false);
  }));

it("the code records' currency check reads one session at a time: the shared sessions keep no turns after it, and a record of an edited turn is still withheld", async () =>
  withRememberedStudy(async (dir) => {
    // Rules codes carry their turns' fingerprints (the demo's human codes have none to check).
    await runCode(await openStudy(dir), { codebook: "bales-ipa", coder: "rules" }, silentEffects);
    const context = await openStudy(dir);
    const shared = await context.sessions();
    const [codebook, coder] = ["bales-ipa", "rules"];
    const records = await context.codes(codebook, coder);
    expect(records.length).toBeGreaterThan(0);
    expect(shared.some(turnsInMemory)).toBe(false);
    // The same records as the check against the whole study holds them.
    expect(records).toEqual(currentCodes(await readCodes(dir, codebook, coder), await loadSessions(dir)));

    // A turn edited (and the session remembered anew): its record no longer describes it.
    const first = records.find((r) => r.fingerprint !== undefined);
    const session = (await loadSessions(dir)).find((s) => s.id === first!.session)!;
    const turn = session.turns.find((t) => t.id === first!.turn)!;
    turn.text = `${turn.text} (edited)`;
    await saveSession(dir, session);
    // Remembered with its head, as an older file is: the check must read its turns anew.
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(dir, "sessions", `${session.id}.json`), hourAgo, hourAgo);
    await loadSessions(dir);
    const again = await openStudy(dir);
    expect((await again.sessions()).find((s) => s.id === session.id)!).toSatisfy((head: Session) => !turnsInMemory(head));
    const kept = await again.codes(codebook, coder);
    expect(kept).toHaveLength(records.length - 1);
    expect(kept.some((r) => r.session === first!.session && r.turn === first!.turn)).toBe(false);
  }));

it("the code stage of a first run (no file validated before) plans and codes one session at a time: the shared sessions keep no turns", async () =>
  withRememberedStudy(async (dir) => {
    // Nothing remembered: every file is validated in this run, and given as its head all the same.
    await rm(join(dir, ".cache"), { recursive: true, force: true });
    const code = studyStages.find((s) => s.name === "code")!;
    let heldAfter: boolean | undefined;
    const watched: Stage = {
      ...code,
      async run(c) {
        const summary = await code.run(c);
        heldAfter = (await c.study.sessions()).some(turnsInMemory);
        return summary;
      },
    };
    await runPipeline(dir, [watched], {}, silentReporter);
    expect(heldAfter).toBe(false);
    // It coded every codebook the study names, rules validated against the demo's human codes included.
    const records = await readCodes(dir, "bales-ipa", "rules");
    expect(records.length).toBeGreaterThan(0);
    expect(records[0]!.provenance.validation).toMatchObject({ against: ["human:coder-a", "human:coder-b"] });
  }));

it("the pipeline lets go of the sessions after each stage: the next stage reads them (and any turns it needs) anew", async () =>
  withRememberedStudy(async (dir) => {
    const seen: Session[][] = [];
    const heldAtStart: boolean[] = [];
    const stage = (name: StageName): Stage => ({
      name,
      description: name,
      writes: [],
      plan: async () => ({ fingerprint: String(Math.random()), work: name }),
      async run(c) {
        const sessions = await c.study.sessions();
        heldAtStart.push(sessions.some(turnsInMemory));
        // A stage that reads every session's turns through the shared heads holds them while it runs.
        for (const s of sessions) void s.turns.length;
        seen.push(sessions);
        return name;
      },
    });
    await runPipeline(dir, [stage("agree"), stage("compare")], {}, silentReporter);
    expect(seen).toHaveLength(2);
    expect(seen[1]).not.toBe(seen[0]);
    expect(heldAtStart).toEqual([false, false]);
  }));

it("sessions loaded again after the context let them go must be the files it let go: an edit, a new or a removed file in between stops the run", async () =>
  withRememberedStudy(async (dir) => {
    const folder = join(dir, "sessions");
    const [first, second] = (await readdir(folder)).sort();
    const context = await openStudy(dir);
    const before = await context.sessions();
    context.releaseSessions();
    // Unchanged files: the same sessions, loaded anew.
    expect((await context.sessions()).map((s) => s.id)).toEqual(before.map((s) => s.id));
    context.releaseSessions();
    const file = join(folder, first!);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace(/"text": ?"/, '"text":"edited between stages: '));
    await expect(context.sessions()).rejects.toThrow(/sessions: session .+ was edited or added while this run was using the study/);
    // A stage that writes sessions says so (changed): what it wrote is the study from then on.
    context.changed("sessions");
    await context.sessions();
    context.releaseSessions();
    await rm(join(folder, second!));
    await expect(context.sessions()).rejects.toThrow(/sessions: a session was removed while this run was using the study/);
  }));

it("letting go of the sessions holds nothing of them (a collection right after frees them), and a release while a load is under way keeps the check", async () =>
  withRememberedStudy(async (dir) => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const context = await openStudy(dir);
    const list = new WeakRef(await context.sessions());
    context.releaseSessions();
    // A WeakRef's target stays alive to the end of the job that made it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(list.deref()).toBeUndefined();

    // Released before its load finished (a stage that failed early): the next load is still checked.
    const again = await openStudy(dir);
    const loading = again.sessions();
    again.releaseSessions();
    await loading;
    const [first] = await readdir(join(dir, "sessions"));
    const file = join(dir, "sessions", first!);
    await writeFile(file, (await readFile(file, "utf8")).replace(/"text": ?"/, '"text":"edited while a stage failed: '));
    await expect(again.sessions()).rejects.toThrow(/was edited or added while this run was using the study/);
  }));
