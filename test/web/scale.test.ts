import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { writeLargeStudy } from "../../fixtures/dashboard/generate.js";
import { buildSite } from "../../src/report/build.js";
import { startServer, type RunningServer } from "../../src/report/server.js";
import { MAX_SEQUENCE_CELLS } from "../../src/report/shape/distributions.js";
import { launchBrowser, openView, SCREENSHOTS, watchErrors } from "./browser.js";

// A larger generated study: long sessions must be binned (sequences) and paged (transcript).
// Timing is measured by bench/dashboard.ts, not asserted here.
const TURNS = 9000;
const PER_SESSION = 3000;

let dir: string;
let server: RunningServer;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-scale-"));
  await writeLargeStudy(dir, TURNS, PER_SESSION);
  await buildSite(dir);
  server = await startServer(join(dir, "site"), { port: 0 });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  errors = watchErrors(page);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("dashboard on a generated study of 9,000 turns", () => {
  it("overview, binned sequences, paged transcript synced with a late timeline mark", async () => {
    await openView(page, server.url, "overview");
    expect(await page.textContent('[data-stat="turns"] .stat-value')).toBe("9,000");
    await openView(page, server.url, "sequences");
    expect(await page.locator("g.seq-row").count()).toBe(3);
    expect(await page.locator('g.seq-row[data-session="s0000"] rect.seq-cell').count()).toBe(Math.ceil(PER_SESSION / Math.ceil(PER_SESSION / MAX_SEQUENCE_CELLS)));
    await page.screenshot({ path: join(SCREENSHOTS, "20-scale-sequences.png") });
    await openView(page, server.url, "timeline");
    await page.waitForSelector('[data-transcript="s0000"]');
    expect(await page.locator(".turn-row").count()).toBe(400);
    // Clicking a turn far beyond the rendered page renders up to it and highlights it.
    await page.locator('g.turn[data-turn="t02500"]').dispatchEvent("click");
    await page.waitForSelector('.turn-row.active[data-turn="t02500"]');
    expect(await page.locator(".turn-row").count()).toBe(2500 + 400);
    await openView(page, server.url, "participation");
    await openView(page, server.url, "style");
    await openView(page, server.url, "bales");
    expect(errors).toEqual([]);
  }, 90_000);
});
