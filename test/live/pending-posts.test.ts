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
 * the sender's page shows it as sent (the box is empty), then as a turn, never both, never neither,
 * also when the page reconnects and gets the session's turns again.
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

/** Two agents (2.5 s per reply) and Hana, served live. */
async function startPicnic() {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-pending-"));
  await writeFile(
    join(dir, "p.yaml"),
    "id: p\ntask: Plan a picnic.\nparticipants: [{ name: Ann }, { name: Bob }, { name: Hana, kind: human }]\nstrategy: { type: autonomous, pauseSeconds: [1, 2] }\nstop: { maxTurns: 400 }\n",
  );
  return startRun(
    [join(dir, "p.yaml"), "--serve", "--study", join(dir, "study"), "--base-url", server.url, "--model", "test-model", "--speed", "20"],
    ["Hana"],
  );
}

describe("a post while the agents' model answers", () => {
  it("shows on the sender's page as sent until the session takes it", async () => {
    const run = await startPicnic();
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

  it("stays pending though an earlier turn of this person has the same words", async () => {
    const run = await startPicnic();
    const context = await browser.newContext();
    const page = await context.newPage();
    // An event stream the test can drop: the page then reconnects as a browser does (and gets the session again).
    await page.addInitScript(() => {
      const Real = window.EventSource;
      class Droppable {
        onerror: ((e: Event) => void) | null = null;
        onopen: ((e: Event) => void) | null = null;
        onmessage: ((e: MessageEvent) => void) | null = null;
        private named: [string, (e: MessageEvent) => void][] = [];
        private real!: EventSource;
        constructor(private url: string) {
          (window as unknown as { dropStream: () => void }).dropStream = () => {
            this.real.close();
            this.onerror?.(new Event("error"));
            this.open();
          };
          this.open();
        }
        private open() {
          this.real = new Real(this.url);
          this.real.onopen = (e) => this.onopen?.(e);
          this.real.onerror = (e) => this.onerror?.(e);
          this.real.onmessage = (e) => this.onmessage?.(e);
          for (const [type, f] of this.named) this.real.addEventListener(type, f as EventListener);
        }
        addEventListener(type: string, f: (e: MessageEvent) => void) {
          this.named.push([type, f]);
          this.real.addEventListener(type, f as EventListener);
        }
      }
      (window as unknown as { EventSource: unknown }).EventSource = Droppable;
    });
    try {
      await page.goto(run.links.Hana);
      await page.waitForSelector('body[data-ready="true"]');
      await page.fill("#text", "Yes");
      await page.press("#text", "Enter");
      await page.waitForSelector('#log li[data-speaker="hana"]', { timeout: 15_000 });
      // Right after a turn the model is asked again (2.5 s): the second "Yes" waits meanwhile.
      await page.waitForSelector('#log li[data-speaker="ann"], #log li[data-speaker="bob"]', { timeout: 15_000 });
      await page.fill("#text", "Yes");
      await page.press("#text", "Enter");
      await page.waitForSelector("#pending li");
      await page.evaluate(() => (window as unknown as { dropStream: () => void }).dropStream());
      await page.waitForFunction(() => document.getElementById("status")!.textContent!.startsWith("Reconnected"), undefined, { timeout: 10_000 });
      const mine = await page.locator('#log li[data-speaker="hana"]').count();
      expect(mine + (await page.locator("#pending li").count())).toBe(2);
    } finally {
      await context.close();
      expect(await run.control("end")).toBe(200);
      await run.exit;
      await sleep(10);
    }
  }, 60_000);
});
