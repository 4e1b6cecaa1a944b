import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchBrowser, watchErrors } from "../web/browser.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { askedAgent } from "../orchestrator/support.js";
import { setTimeout as sleep } from "node:timers/promises";
import { startRun, type LiveRun } from "./kill-resume.js";

/**
 * A slow model holds the session up: the operator's page says whose model the session waits
 * for while the call is out, and no longer once the turn is there; the people's pages are not told.
 */
let browser: Browser;
let server: OpenAiServer;
let slow = false;
// Long enough that a page opened on a loaded machine still finds the call out.
const delayMs = () => (slow ? 8000 : 4000);
beforeAll(async () => {
  browser = await launchBrowser();
  server = await startOpenAiServer({ handler: (req) => ({ content: `${askedAgent(req)} says hello`, delayMs: delayMs() }) });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Ann (an agent, asked first) and Hana (a person) take turns: the session starts when Hana's page opens. */
async function startSession(): Promise<LiveRun> {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-model-wait-"));
  await writeFile(
    join(dir, "m.yaml"),
    "id: m\ntask: Plan a picnic.\nparticipants: [{ name: Ann }, { name: Hana, kind: human }]\nstrategy: { type: round-robin }\nstop: { maxTurns: 4 }\n",
  );
  return startRun([join(dir, "m.yaml"), "--serve", "--study", join(dir, "study"), "--base-url", server.url, "--model", "test-model"], ["Hana"]);
}

describe("the operator page while an agent's model answers slowly", () => {
  it("says the session waits for Ann's model until Ann's turn arrives", async () => {
    const run = await startSession();
    const context = await browser.newContext();
    const [operator, hana] = [await context.newPage(), await context.newPage()];
    const errors = [operator, hana].map((p) => watchErrors(p));
    try {
      await operator.goto(run.operator);
      await hana.goto(run.links.Hana);
      await hana.waitForSelector('body[data-ready="true"]');
      await operator.waitForFunction(() => /^Waiting for Ann's model since /.test(document.getElementById("waiting")!.textContent!), undefined, {
        timeout: 5_000,
      });
      await operator.waitForSelector('#log li[data-speaker="ann"]', { timeout: 15_000 });
      // Ann's turn is there: the session now waits for Hana, no longer for a model.
      await operator.waitForFunction(() => /^Waiting for Hana since /.test(document.getElementById("waiting")!.textContent!));
      expect(await operator.textContent("#waiting")).not.toContain("model");
      // Blind: the people's pages are not told about model calls.
      expect(await hana.content()).not.toContain("'s model");
      expect(errors.flat()).toEqual([]);
    } finally {
      await context.close();
      expect(await run.control("end")).toBe(200);
      await run.exit;
    }
  }, 40_000);

  it("an operator page opened while the call is out says since when the session has waited, not since the page opened", async () => {
    slow = true;
    const run = await startSession();
    const context = await browser.newContext();
    const [early, hana] = [await context.newPage(), await context.newPage()];
    try {
      await early.goto(run.operator);
      await hana.goto(run.links.Hana);
      await early.waitForFunction(() => /^Waiting for Ann's model since /.test(document.getElementById("waiting")!.textContent!), undefined, {
        timeout: 5_000,
      });
      const shown = await early.textContent("#waiting");
      // Seconds later (the model is slow): a page opened now, or this one reloaded, says the same.
      await sleep(2_200);
      const late = await context.newPage();
      await late.goto(run.operator);
      await late.waitForFunction(() => /^Waiting for Ann's model since /.test(document.getElementById("waiting")!.textContent!), undefined, { timeout: 5_000 });
      expect(await late.textContent("#waiting")).toBe(shown);
    } finally {
      await context.close();
      expect(await run.control("end")).toBe(200);
      await run.exit;
      slow = false;
    }
  }, 40_000);
});
