import { describe, expect, it } from "vitest";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { endWhenRunning, startRun } from "./kill-resume.js";
import { startOpenAiServer } from "../support/openai-server.js";

const SCENARIO = "id: s\ntask: Plan a picnic.\nparticipants: [{ name: Ann }, { name: Hana, kind: human }]\nstrategy: { type: autonomous }\n";

/** Ctrl-C on a run that waits for `scenario`'s first session to start: code 130, what it says, and the study's sessions (none). */
async function interruptWhileWaiting(scenario: string): Promise<{ code: number | string; stderr: string; sessions: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-wait-"));
  await writeFile(join(dir, "s.yaml"), scenario);
  const run = await startRun([join(dir, "s.yaml"), "--serve", "--study", join(dir, "study"), "--base-url", "http://127.0.0.1:9/v1"], ["Hana"]);
  run.child.kill("SIGINT");
  const code = await Promise.race([run.exit, sleep(8_000).then(() => "still running")]);
  if (code === "still running") run.child.kill("SIGKILL");
  const sessions = existsSync(join(dir, "study", "sessions")) ? await readdir(join(dir, "study", "sessions")) : [];
  return { code, stderr: run.stderr(), sessions };
}

/** Ctrl-C before the first session started: the run ends (no session to save) instead of hanging, and says nothing was saved. */
describe("Ctrl-C while colloquy run --serve waits for the participants", () => {
  it.each([
    ["before everyone has opened their page", SCENARIO],
    ["in the waiting room (studyFlow.waitingRoom)", `${SCENARIO}studyFlow: { waitingRoom: true }\n`],
  ])(
    "%s: ends the run with code 130, saying no session had started (not 'saved as incomplete')",
    async (_when, scenario) => {
      const { code, stderr, sessions } = await interruptWhileWaiting(scenario);
      expect(code, stderr).toBe(130);
      expect(stderr).toContain("no session had started, nothing was saved");
      expect(stderr).not.toContain("incomplete");
      expect(sessions).toEqual([]);
    },
    20_000,
  );

  it("between two sessions, says the sessions run are saved, not that one was saved as incomplete", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-wait-"));
    await writeFile(join(dir, "s.yaml"), SCENARIO);
    const server = await startOpenAiServer({
      handler: () => ({ content: JSON.stringify({ reasoning: "r", action: "message", message: "Hello.", fileName: null }) }),
    });
    const args = [join(dir, "s.yaml"), "--serve", "--runs", "2", "--study", join(dir, "study"), "--base-url", server.url, "--model", "test-model"];
    const run = await startRun(args, ["Hana"]);
    await run.connect();
    await endWhenRunning(run);
    for (let i = 0; i < 200 && !run.stderr().includes("Waiting for the operator to start"); i++) await sleep(50);
    run.child.kill("SIGINT");
    const code = await Promise.race([run.exit, sleep(8_000).then(() => "still running")]);
    if (code === "still running") run.child.kill("SIGKILL");
    expect(code, run.stderr()).toBe(130);
    expect(run.stderr()).toContain("before the next session started: the sessions already run are saved");
    expect(run.stderr()).not.toContain("incomplete");
    expect(await readdir(join(dir, "study", "sessions"))).toHaveLength(1);
    await server.close();
  }, 30_000);

  it("after the last session, while the pages stay up for the transcripts, closes them: the run is done (code 0), nothing to run again", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-wait-"));
    await writeFile(join(dir, "s.yaml"), `${SCENARIO}studyFlow: { transcript: true }\n`);
    const server = await startOpenAiServer({
      handler: () => ({ content: JSON.stringify({ reasoning: "r", action: "message", message: "Hello.", fileName: null }) }),
    });
    const run = await startRun([join(dir, "s.yaml"), "--serve", "--study", join(dir, "study"), "--base-url", server.url, "--model", "test-model"], ["Hana"]);
    await run.connect();
    await endWhenRunning(run);
    for (let i = 0; i < 200 && !run.stderr().includes("the pages stay open for the transcripts"); i++) await sleep(50);
    run.child.kill("SIGINT");
    const code = await Promise.race([run.exit, sleep(8_000).then(() => "still running")]);
    if (code === "still running") run.child.kill("SIGKILL");
    expect(code, run.stderr()).toBe(0);
    expect(run.stderr()).toContain("closing the pages (every session is done and saved)");
    expect(run.stderr()).not.toContain("run the rest");
    expect(run.stderr()).not.toContain("incomplete");
    await server.close();
  }, 30_000);
});
