import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../web/browser.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { askedAgent } from "../orchestrator/support.js";
import { startRun } from "./kill-resume.js";

/** A page that reconnects gets the session's turns again: a pending post that repeats earlier words stays pending. */
let server: OpenAiServer;
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
  let n = 0;
  server = await startOpenAiServer({
    handler: (req) => ({
      content: JSON.stringify({ reasoning: "r", action: "message", message: `${askedAgent(req)} note ${++n}`, fileName: null }),
      delayMs: 2500,
    }),
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("a pending post when the page reconnects", () => {
  it("stays pending though an earlier turn of this person has the same words", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-pending-re-"));
    await writeFile(
      join(dir, "p.yaml"),
      "id: p\ntask: Plan a picnic.\nparticipants: [{ name: Ann }, { name: Bob }, { name: Hana, kind: human }]\nstrategy: { type: autonomous, pauseSeconds: [1, 2] }\nstop: { maxTurns: 400 }\n",
    );
    const run = await startRun(
      [join(dir, "p.yaml"), "--serve", "--study", join(dir, "study"), "--base-url", server.url, "--model", "test-model", "--speed", "20"],
      ["Hana"],
    );
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
