import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../web/browser.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { askedAgent } from "../orchestrator/support.js";
import { endWhenRunning, startRun, type LiveRun } from "./kill-resume.js";

/**
 * What a person's page says once `colloquy run --serve` is gone: after the last session ended,
 * that it is over (not "connection lost: reconnecting"); after a model failure stopped it, that
 * it may go on; and after --resume, that it goes on.
 */
let server: OpenAiServer;
let browser: Browser;
let failing = false;
beforeAll(async () => {
  browser = await launchBrowser();
  let n = 0;
  server = await startOpenAiServer({
    handler: (req) =>
      failing
        ? { status: 500, message: "the model is down" }
        : { content: JSON.stringify({ reasoning: "r", action: "message", message: `${askedAgent(req)} note ${++n}`, fileName: null }), delayMs: 30 },
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const SCENARIO = `id: end
task: Plan a picnic.
participants: [{ name: Ann }, { name: Hana, kind: human }]
strategy: { type: autonomous, pauseSeconds: [1, 3] }
stop: { maxTurns: 400 }
`;

async function args() {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-end-"));
  await writeFile(join(dir, "end.yaml"), SCENARIO);
  // No retries: a failing model stops the run at once instead of after up to 7.5 s of backoff,
  // which under the whole suite's load pushed the second test past its time limit.
  await mkdir(join(dir, "study"));
  await writeFile(join(dir, "study", "colloquy.json"), JSON.stringify({ version: 1, model: { maxRetries: 0 } }));
  return [join(dir, "end.yaml"), "--serve", "--study", join(dir, "study"), "--base-url", server.url, "--model", "test-model", "--speed", "20"];
}

/** The run's exit code, or "still running" after `ms` (then it is killed). */
async function exitWithin(run: LiveRun, ms = 30_000): Promise<number | string> {
  const code = await Promise.race([run.exit, sleep(ms).then(() => "still running")]);
  if (code === "still running") run.child.kill("SIGKILL");
  return code;
}

describe("the participant's page when the run stops", () => {
  it("still says the session is over after the run has closed the pages", async () => {
    failing = false;
    const run = await startRun(await args(), ["Hana"]);
    const page = await browser.newPage();
    try {
      await page.goto(run.links.Hana);
      await page.waitForSelector('body[data-ready="true"]');
      await endWhenRunning(run);
      expect(await run.exit, run.stderr()).toBe(0);
      await page.waitForSelector('body[data-ended="true"]');
      await sleep(1500);
      expect(await page.textContent("#status")).toBe("The session is over.");
    } finally {
      await page.close();
    }
  }, 30_000);

  // Two runs of the real process, each started through tsx: under the whole suite's load that alone
  // can take many seconds, hence the longer limit. A run that does not end in 30 s is killed.
  it("after a model failure says the session may go on, and goes on after --resume", { timeout: 90_000 }, async () => {
    const runArgs = await args();
    failing = false;
    const first = await startRun(runArgs, ["Hana"]);
    const page = await browser.newPage();
    try {
      await page.goto(first.links.Hana);
      await page.waitForSelector('body[data-ready="true"]');
      failing = true;
      // Ann may have answered before the model failed, and then has nothing new to answer: Hana's
      // post makes her speak, so the failing model is asked (unless the run already failed).
      await first.post("Hana", "Are you still there?").catch(() => undefined);
      expect(await exitWithin(first), first.stderr()).toBe(1);
      await page.waitForSelector('body[data-ended="stopped"]');
      expect(await page.textContent("#status")).not.toContain("The session is over");
      failing = false;
      const second = await startRun([...runArgs, "--resume"], ["Hana"]);
      await page.waitForFunction(() => document.getElementById("status")!.textContent!.startsWith("Reconnected"), undefined, { timeout: 15_000 });
      // "Reconnected" comes with the page's stream, which can be before the resumed session runs: an
      // End pressed then is refused (409), where it used to be lost and the session never ended.
      await endWhenRunning(second);
      expect(await exitWithin(second), second.stderr()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
