import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser } from "playwright-core";
import { launchBrowser, watchErrors } from "../web/browser.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { notingAgent } from "../orchestrator/support.js";
import { startRun } from "./kill-resume.js";

/**
 * A post is taken at the session's next decision point, which a slow model holds up: meanwhile
 * the sender's page shows it as sent (the box is empty), then as a turn, never both, never neither.
 */
let server: OpenAiServer;
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
  server = await startOpenAiServer({ handler: notingAgent(() => 2500) });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("a post while the agents' model answers", () => {
  it("shows on the sender's page as sent until the session takes it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-pending-"));
    await writeFile(
      join(dir, "p.yaml"),
      "id: p\ntask: Plan a picnic.\nparticipants: [{ name: Ann }, { name: Bob }, { name: Hana, kind: human }]\nstrategy: { type: autonomous, pauseSeconds: [1, 2] }\nstop: { maxTurns: 400 }\n",
    );
    const run = await startRun(
      [join(dir, "p.yaml"), "--serve", "--study", join(dir, "study"), "--base-url", server.url, "--model", "test-model", "--speed", "20"],
      ["Hana"],
    );
    const page = await browser.newPage();
    const errors = watchErrors(page);
    try {
      await page.goto(run.links.Hana);
      await page.waitForSelector('body[data-ready="true"]');
      // Right after Ann's message Bob is asked (2.5 s per reply): what Hana sends now waits for the next decision point.
      await page.waitForSelector('#log li[data-speaker="ann"]', { timeout: 10_000 });
      await sleep(500);
      await page.fill("#text", "Hello while Ann answers");
      await page.press("#text", "Enter");
      await page.waitForFunction(() => (document.getElementById("text") as HTMLTextAreaElement).value === "");
      expect(await page.locator('#log li[data-speaker="hana"]').count()).toBe(0);
      expect(await page.textContent("#pending")).toContain("Hello while Ann answers");
      await page.waitForSelector('#log li[data-speaker="hana"] .text >> text="Hello while Ann answers"', { timeout: 10_000 });
      expect(await page.locator("#pending li").count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      expect(await run.control("end")).toBe(200);
      await run.exit;
    }
  }, 40_000);
});
