import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import { readState, writeState } from "../../src/pipeline/state.js";
import { runPipeline } from "../../src/pipeline/run.js";
import { studyStages } from "../../src/pipeline/stages.js";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { silentReporter, type Reporter } from "../../src/util/reporter.js";

/**
 * Issue 11, incremental where the work is per session: after a session is added or edited, the
 * code stage looks at only the sessions that changed, and what every stage writes is exactly
 * what a run from scratch on the same data writes.
 */

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

/**
 * A working copy of the demo study, its sessions written as `colloquy import` writes them and
 * aged past the window in which a fresh file is not trusted: remembered as validated, so later
 * runs load them from their heads (study/validated-sessions.ts), as a study's runs do.
 */
async function demoCopy(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-incremental-")), "demo");
  await cp(demo, dir, { recursive: true });
  const past = new Date(Date.now() - 3_600_000);
  for (const session of await loadSessions(dir)) await utimes(await saveSession(dir, session), past, past);
  return dir;
}

async function study(dir: string) {
  const run = await runCli(["study", dir, "--json"]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { stages: { name: string; status: string; summary?: string }[]; warnings: string[] };
}

/** The same changes to a study: one new session (a copy of control-1 as run 9) and one edited turn of critical-1. */
async function changeSessions(dir: string): Promise<void> {
  const session = JSON.parse(await readFile(join(dir, "sessions", "control-1.json"), "utf8"));
  session.id = "control-9";
  session.metadata.run = "9";
  session.turns[2].text = "A new session's own words, never coded before.";
  await writeFile(join(dir, "sessions", "control-9.json"), JSON.stringify(session));
  const path = join(dir, "sessions", "critical-1.json");
  const edited = JSON.parse(await readFile(path, "utf8"));
  edited.turns[1].text += " (edited after coding)";
  await writeFile(path, JSON.stringify(edited, null, 2));
}

/** Every analysis file, with what differs between two runs by nature (creation times, the study's path) masked. */
async function analysisFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(join(dir, "analysis"))).sort()) {
    out[name] = (await readFile(join(dir, "analysis", name), "utf8")).replaceAll(dir, "<study>").replace(/"createdAt": "[^"]*"/g, '"createdAt": "<time>"');
  }
  return out;
}

const summaryOf = (run: Awaited<ReturnType<typeof study>>, name: string) => run.stages.find((s) => s.name === name)!;

describe("colloquy study, per session", () => {
  it("codes only the new and edited sessions, and writes the same analysis files as a run from scratch", async () => {
    const incremental = await demoCopy();
    const scratch = await demoCopy();
    await study(incremental);
    await changeSessions(incremental);
    const again = await study(incremental);
    const code = summaryOf(again, "code");
    expect(code.status).toBe("ran");
    // Two sessions looked at: the new one (all its turns) and the edited one (its edited turn only).
    expect(code.summary).toMatch(/^bales-ipa\/rules: \d+ coded, \d+ already coded.*\(only the 2 new or changed session\(s\)\)$/);
    const [coded, already] = /(\d+) coded, (\d+) already coded/.exec(code.summary!)!.slice(1).map(Number);
    const critical1 = JSON.parse(await readFile(join(incremental, "sessions", "critical-1.json"), "utf8")).turns.length;
    expect(coded + already).toBeLessThanOrEqual(critical1 + JSON.parse(await readFile(join(incremental, "sessions", "control-9.json"), "utf8")).turns.length);
    expect(already).toBeGreaterThan(0);

    await changeSessions(scratch);
    const fresh = await study(scratch);
    expect(summaryOf(fresh, "code").summary).not.toContain("only the");
    const got = await analysisFiles(incremental);
    const want = await analysisFiles(scratch);
    expect(Object.keys(got)).toEqual(Object.keys(want));
    for (const name of Object.keys(want)) expect(got[name], name).toBe(want[name]);
    expect(again.warnings).toEqual(fresh.warnings);
  }, 240_000);

  it("a session removed, then put back (under another file name too), is not coded twice", async () => {
    const dir = await demoCopy();
    await study(dir);
    const { rename } = await import("node:fs/promises");
    const codedTwice = async () => {
      const run = await study(dir);
      return summaryOf(run, "code").summary ?? "";
    };
    // A first per-session run reads the codes files once and remembers which sessions they hold.
    const session = JSON.parse(await readFile(join(dir, "sessions", "control-1.json"), "utf8"));
    await writeFile(join(dir, "sessions", "control-9.json"), JSON.stringify({ ...session, id: "control-9", metadata: { ...session.metadata, run: "9" } }));
    expect(await codedTwice()).toMatch(/only the 1 new/);
    expect(Object.keys((await readState(dir)).codeInputs?.coded ?? {}).length).toBeGreaterThan(0);
    await rename(join(dir, "sessions", "control-2.json"), join(dir, "control-2.json"));
    expect(await codedTwice()).toMatch(/sessions removed only/);
    await rename(join(dir, "control-2.json"), join(dir, "sessions", "control-2.json"));
    expect(await codedTwice()).toMatch(/^bales-ipa\/rules: 0 coded, \d+ already coded.*only the 1 new/);
    await rename(join(dir, "sessions", "control-2.json"), join(dir, "sessions", "renamed.json"));
    expect(await codedTwice()).toMatch(/^bales-ipa\/rules: 0 coded, \d+ already coded.*only the 1 new/);
  }, 240_000);

  it("a session edited while the code stage runs is coded by the next run", async () => {
    const dir = await demoCopy();
    const code = async (reporter: Reporter = silentReporter) =>
      (await runPipeline(dir, studyStages, { only: ["code"] }, reporter)).stages.find((s) => s.name === "code")!;
    expect((await code()).status).toBe("ran");
    const session = JSON.parse(await readFile(join(dir, "sessions", "control-1.json"), "utf8"));
    await writeFile(join(dir, "sessions", "control-9.json"), JSON.stringify({ ...session, id: "control-9", metadata: { ...session.metadata, run: "9" } }));
    // critical-1 is edited once the run has decided to code control-9 only, before it finishes.
    const path = join(dir, "sessions", "critical-1.json");
    let edited = false;
    const editing: Reporter = {
      ...silentReporter,
      progress() {
        if (edited) return;
        edited = true;
        const critical = JSON.parse(readFileSync(path, "utf8"));
        critical.turns[1].text += " (edited while coding)";
        writeFileSync(path, JSON.stringify(critical, null, 2));
      },
    };
    expect((await code(editing)).summary).toMatch(/only the 1 new or changed session\(s\)/);
    expect(edited).toBe(true);
    const next = await code();
    expect(next.status).toBe("ran");
    expect(next.summary).toMatch(/^bales-ipa\/rules: [1-9]\d* coded, .*only the 1 new or changed session\(s\)/);
  }, 120_000);

  it("looks at the whole study again when anything but the sessions changed, and reads state files of earlier versions", async () => {
    const dir = await demoCopy();
    await study(dir);
    // A state file written before per-session coding: no codeInputs, no remembered warnings.
    const state = await readState(dir);
    expect(state.codeInputs).toBeDefined();
    delete state.codeInputs;
    delete state.emptyViews;
    await writeState(dir, state);
    const session = JSON.parse(await readFile(join(dir, "sessions", "control-1.json"), "utf8"));
    await writeFile(join(dir, "sessions", "control-9.json"), JSON.stringify({ ...session, id: "control-9", metadata: { ...session.metadata, run: "9" } }));
    const old = await study(dir);
    expect(summaryOf(old, "code").summary).not.toContain("only the");
    expect((await readState(dir)).codeInputs).toBeDefined();

    // Codes changed by something else (a codes file removed): every session is looked at.
    const { rm } = await import("node:fs/promises");
    await rm(join(dir, "codes", "pragmatic-style"), { recursive: true, force: true });
    await writeFile(join(dir, "sessions", "control-8.json"), JSON.stringify({ ...session, id: "control-8", metadata: { ...session.metadata, run: "8" } }));
    const recoded = await study(dir);
    expect(summaryOf(recoded, "code").status).toBe("ran");
    expect(summaryOf(recoded, "code").summary).not.toContain("only the");
  }, 240_000);

  it("remembers the end-of-run warnings while the sessions and settings are unchanged, and works them out again when not", async () => {
    const dir = await demoCopy();
    const config = JSON.parse(await readFile(join(dir, "colloquy.json"), "utf8"));
    delete config.compare.control;
    await writeFile(join(dir, "colloquy.json"), JSON.stringify(config));
    const first = await study(dir);
    expect(first.warnings.join("\n")).toMatch(/no control condition/);
    const state = await readState(dir);
    expect(state.emptyViews?.warnings).toEqual(first.warnings);
    // What is remembered is what a no-op run says (shown by planting a remembered value).
    await writeState(dir, { ...state, emptyViews: { ...state.emptyViews!, warnings: ["remembered"] } });
    expect((await study(dir)).warnings).toEqual(["remembered"]);
    config.compare.control = "control";
    await writeFile(join(dir, "colloquy.json"), JSON.stringify(config));
    const fixed = await study(dir);
    expect(fixed.warnings).not.toContain("remembered");
    expect(fixed.warnings.join("\n")).not.toMatch(/no control condition/);
  }, 240_000);
});
