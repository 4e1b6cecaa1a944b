import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { notingAgent } from "../orchestrator/support.js";
import { loadSessions } from "../../src/study/study.js";
import { postWhenRunning, resumeAndEnd, startRun, type LiveRun } from "./kill-resume.js";

/**
 * Who agreed to the consent text is stored with the session even when they agreed after it
 * started (a late joiner released from the waiting room) or when the run was killed and resumed
 * (the resumed run's pages reconnect without agreeing again).
 */
let server: OpenAiServer;
beforeAll(async () => {
  server = await startOpenAiServer({ handler: notingAgent() });
});
afterAll(() => server?.close());

const scenario = (waitingRoom: boolean) => `id: consent
task: Plan a picnic.
participants: [{ name: Ann }, { name: Hana, kind: human }, { name: Ivo, kind: human }]
strategy: { type: autonomous, pauseSeconds: [1, 3] }
stop: { maxTurns: 400 }
studyFlow: { consent: I agree., waitingRoom: ${waitingRoom} }
`;

/** What the page's "I agree and join" button sends. */
function join_(run: LiveRun, person: string): Promise<number> {
  const origin = new URL(run.operator).origin;
  const token = new URL(run.links[person]).pathname.split("/")[2];
  return fetch(`${origin}/api/join`, {
    method: "POST",
    headers: { origin, "content-type": "application/json", "x-colloquy-token": token },
    body: JSON.stringify({ agree: true }),
  }).then((r) => r.status);
}

async function study(waitingRoom: boolean) {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-consent-"));
  const file = join(dir, "consent.yaml");
  await writeFile(file, scenario(waitingRoom));
  return {
    path: join(dir, "study"),
    args: [file, "--serve", "--study", join(dir, "study"), "--base-url", server.url, "--model", "test-model", "--speed", "20"],
  };
}

const consentOf = async (path: string) => ((await loadSessions(path))[0].metadata.orchestrator as { notes: { consent: Record<string, string> } }).notes.consent;

/** A waiting-room session the operator starts with Hana alone; Ivo agrees after the start and posts. */
async function withLateJoiner(args: string[]) {
  const run = await startRun(args, ["Hana", "Ivo"]);
  expect(await join_(run, "Hana")).toBe(200);
  await run.connect();
  expect(await run.control("next" as "end")).toBe(200);
  await postWhenRunning(run, "Hana", "Hello.");
  const agreedAt = Date.now();
  expect(await join_(run, "Ivo")).toBe(200);
  expect(await run.post("Ivo", "Sorry I am late.")).toBe(200);
  return { run, agreedAt };
}

describe("consent records", () => {
  it("keeps the consent of a person who agreed after the operator started the session", async () => {
    const { path, args } = await study(true);
    const { run } = await withLateJoiner(args);
    await sleep(100);
    expect(await run.control("end")).toBe(200);
    expect(await run.exit, run.stderr()).toBe(0);
    const consent = await consentOf(path);
    expect(Object.keys(consent).sort()).toEqual(["hana", "ivo"]);
  }, 30_000);

  it("keeps every consent after kill -9 and --resume, with the times people agreed", async () => {
    const { path, args } = await study(false);
    const first = await startRun(args, ["Hana", "Ivo"]);
    const agreedAt = Date.now();
    expect(await join_(first, "Hana")).toBe(200);
    expect(await join_(first, "Ivo")).toBe(200);
    await first.connect();
    await postWhenRunning(first, "Hana", "Before the kill.");
    first.child.kill("SIGKILL");
    expect(await first.exit).toBe(137);

    await resumeAndEnd(args, ["Hana", "Ivo"], "Ivo", "After the resume.");
    const consent = await consentOf(path);
    expect(Object.keys(consent).sort()).toEqual(["hana", "ivo"]);
    for (const at of Object.values(consent)) expect(Math.abs(Date.parse(at) - agreedAt)).toBeLessThan(5_000);
  }, 40_000);

  it("keeps the consent of a late joiner after kill -9 and --resume", async () => {
    const { path, args } = await study(true);
    const { run: first, agreedAt } = await withLateJoiner(args);
    await sleep(300);
    first.child.kill("SIGKILL");
    expect(await first.exit).toBe(137);

    await resumeAndEnd(args, ["Hana", "Ivo"], "Ivo", "After the resume.", { startNext: true });
    const consent = await consentOf(path);
    expect(Object.keys(consent).sort()).toEqual(["hana", "ivo"]);
    expect(Math.abs(Date.parse(consent.ivo) - agreedAt)).toBeLessThan(5_000);
  }, 40_000);
});
