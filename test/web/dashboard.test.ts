import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { writeDashboardFixture, KNOWN, HOSTILE } from "../../fixtures/dashboard/generate.js";
import { buildSite } from "../../src/report/build.js";
import { initStudy, saveSession } from "../../src/study/study.js";
import { sessionSchema } from "../../src/transcript/schema.js";
import { startServer, type RunningServer } from "../../src/report/server.js";
import { launchBrowser, openView, SCREENSHOTS, watchErrors } from "./browser.js";

let dir: string;
let server: RunningServer;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-dash-"));
  await writeDashboardFixture(dir);
  await buildSite(dir);
  server = await startServer(join(dir, "site"), { port: 0 });
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  errors = watchErrors(page);
});

// Each test asserts no console errors itself; start the next one clean.
afterEach(() => {
  errors.length = 0;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

describe("dashboard in Chromium (fixture study with known numbers)", () => {
  it("overview shows the study's counts and provenance", async () => {
    await openView(page, server.url, "overview");
    expect(await page.textContent('[data-stat="sessions"] .stat-value')).toBe(String(KNOWN.sessions));
    expect(await page.textContent('[data-stat="turns"] .stat-value')).toBe(String(KNOWN.turns));
    expect(await page.locator('table[data-table="sessions"] tbody tr').count()).toBe(KNOWN.sessions);
    expect(await page.locator("[data-view]").filter({ hasText: "" }).count()).toBeGreaterThan(0);
    await shot("01-overview");
    expect(errors).toEqual([]);
  });

  it("who does what: one donut per speaker with the known slices, stacked bars per condition", async () => {
    await openView(page, server.url, "who");
    for (const [speaker, slices] of Object.entries(KNOWN.donutSlices)) {
      expect(await page.locator(`[data-chart="donut-${speaker}"] path.slice`).count()).toBe(slices);
    }
    expect(await page.locator('[data-chart="codes-per-condition"] g.row').count()).toBe(2);
    // The machine coder's codes say whether it was checked against people (the overview's words), as every view showing them does.
    expect(await page.textContent('[data-coder-status="rules"]')).toBe("rules: not recorded");
    // Switching the coder redraws from the human coder's codes (she coded only c1 and d1).
    await page.selectOption('select[data-control="coder"]', "human:alice");
    await page.waitForSelector('[data-chart="donut-Critic"]');
    expect(await page.locator('[data-chart="donut-Critic"] path.slice').count()).toBe(1);
    expect(await page.locator("[data-coder-status]").count()).toBe(0);
    await page.selectOption('select[data-control="coder"]', "rules");
    await page.selectOption('select[data-control="by"]', "role");
    await page.waitForSelector('[data-chart="donut-designer"]');
    expect(await page.locator('[data-chart^="donut-"]').count()).toBe(3);
    expect(await page.locator('[data-chart="donut-critic"] path.slice').count()).toBe(KNOWN.donutSlices.Critic);
    await page.selectOption('select[data-control="by"]', "speaker");
    await page.waitForSelector('[data-chart="donut-Alice"]');
    await shot("02-who");
    expect(errors).toEqual([]);
  });

  it("conditions vs control: heatmap cells with % and counts, grouped bars", async () => {
    await openView(page, server.url, "compare");
    const cells = page.locator('[data-chart="compare-heatmap"] g.cell');
    expect(await cells.count()).toBe(KNOWN.heatmapCells);
    const opinion = page.locator('[data-chart="compare-heatmap"] g.cell[data-row="debate"][data-col="Gives opinion"] text');
    expect(await opinion.allTextContents()).toEqual([KNOWN.opinion.pct, `${KNOWN.opinion.debate} vs ${KNOWN.opinion.control}`]);
    const suggestion = page.locator('[data-chart="compare-heatmap"] g.cell[data-row="debate"][data-col="Gives suggestion"] text');
    expect(await suggestion.allTextContents()).toEqual([KNOWN.suggestion.pct, `${KNOWN.suggestion.debate} vs ${KNOWN.suggestion.control}`]);
    // 13 codes x 2 conditions (control + debate) raw-count bars.
    expect(await page.locator('[data-chart="compare-counts"] rect.bar').count()).toBe(26);
    // No analysis/compare file (colloquy compare not run): the view says so and how to test, instead of no word at all.
    expect(await page.textContent('[data-tests="none"]')).toBe(
      `TestsNo tests of the codes of rules: analysis/compare-bales-ipa.json has none to show (it is not made yet, or names no control condition). To test them, run colloquy compare ${basename(dir)} --codebook bales-ipa --coder rules.`,
    );
    // The command is shown as typed (the study's folder name verbatim, whatever it looks like).
    expect(await page.textContent('[data-tests="none"] code')).toBe(`colloquy compare ${basename(dir)} --codebook bales-ipa --coder rules`);
    await shot("03-compare");
    expect(errors).toEqual([]);
  });

  it("interaction sequences: one row per session, one cell per turn, hover shows the text", async () => {
    await openView(page, server.url, "sequences");
    expect(await page.locator("g.seq-row").count()).toBe(KNOWN.sequenceRows);
    const cells = page.locator('g.seq-row[data-session="d1"] rect.seq-cells');
    expect(Number(await cells.getAttribute("data-cells"))).toBe(KNOWN.d1Turns);
    // Every cell is drawn: the code paths of the row cover one cell width per turn.
    const cellWidth = Number(await cells.getAttribute("data-cell-width"));
    const covered = await page
      .locator('g.seq-row[data-session="d1"] path.seq-code')
      .evaluateAll((paths) =>
        paths.reduce((sum, p) => sum + [...(p.getAttribute("d") ?? "").matchAll(/,0h([\d.]+)/g)].reduce((a, m) => a + Number(m[1]), 0), 0),
      );
    expect(Math.round(covered / cellWidth)).toBe(KNOWN.d1Turns);
    // Hover over the second cell (turn 2): its code, speaker and text.
    await cells.hover({ position: { x: cellWidth * 1.5, y: 3 } });
    await page.waitForTimeout(200);
    await cells.hover({ position: { x: cellWidth * 1.5 + 1, y: 4 } });
    await page.waitForFunction(() => document.querySelector(".tooltip")?.textContent?.includes("herbs are a waste"));
    expect(await page.textContent(".tooltip")).toContain("Critic: Gives opinion");
    await shot("04-sequences");
    expect(errors).toEqual([]);
  });

  it("timeline and transcript are synced both ways and filter by speaker", async () => {
    await openView(page, server.url, "timeline");
    await page.selectOption('select[data-control="session"]', "d1");
    await page.waitForSelector('[data-transcript="d1"]');
    expect(await page.locator('[data-chart="timeline"] g.turn').count()).toBe(KNOWN.d1Turns);
    await page.click('[data-chart="timeline"] g.turn[data-turn="t0003"]');
    await expect.poll(() => page.getAttribute('.turn-row[data-turn="t0003"]', "class")).toContain("active");
    await page.click('.turn-row[data-turn="t0001"]');
    await expect.poll(() => page.getAttribute('[data-chart="timeline"] g.turn[data-turn="t0001"]', "class")).toContain("highlight");
    const badges = await page.locator('.turn-row[data-turn="t0004"] .badge').allTextContents();
    expect(badges.slice(0, 2)).toEqual(["human (alice): Disagrees", "rules: Disagrees"]);
    expect(badges[2]).toMatch(/^rules: sentiment \d, formality 4/);
    await page.selectOption('select[data-control="speaker"]', "Critic");
    await page.waitForSelector('.turn-row[data-turn="t0000"][hidden]', { state: "attached" });
    expect(await page.locator(".turn-row:not([hidden])").count()).toBe(2);
    await page.selectOption('select[data-control="speaker"]', "");
    await page.waitForSelector('.turn-row[data-turn="t0000"]:not([hidden])');
    await shot("05-timeline");
    expect(errors).toEqual([]);
  });

  it("agreement: pair statistics, confusion matrix, F1 and the disagreement text", async () => {
    await openView(page, server.url, "agreement");
    expect(await page.locator('[data-chart="confusion"] g.cell').count()).toBe(13 * 13);
    expect(await page.locator('[data-chart="confusion"] g.cell[data-row="Gives suggestion"][data-col="Gives opinion"] text').textContent()).toBe("1");
    expect(await page.locator('[data-chart="agreement-pairs"] rect.bar').count()).toBe(3);
    expect(await page.locator('[data-chart="per-category-f1"] rect.bar').count()).toBe(9);
    // The F1 scores name their pair; the pairs' table shows agreement as the percentage its column names.
    expect(await page.textContent('[data-chart="per-category-f1"] .card-title')).toBe("Per-category precision, recall, F1 (rules against human (alice))");
    const pairs = page.locator('[data-chart="agreement-pairs"]');
    await pairs.locator('[data-action="table"]').click();
    expect(await pairs.locator(".table-box tbody tr").first().locator("td").nth(2).textContent()).toBe("90.0%");
    expect(await page.textContent('table[data-table="disagreements"] tbody')).toContain("Honestly a mix seems best to me.");
    await shot("06-agreement");
    expect(errors).toEqual([]);
  });

  it("pragmatic style: a box per participant and scale, and a radar", async () => {
    await openView(page, server.url, "style");
    expect(await page.textContent('[data-coder-status="rules"]')).toBe("rules: not recorded");
    expect(await page.locator('[data-chart="style-sentiment"] g.box').count()).toBe(3);
    expect(await page.locator('[data-chart="style-radar"] polygon.radar-series').count()).toBe(3);
    await page.selectOption('select[data-control="by"]', "condition");
    await page.waitForSelector('[data-chart="style-radar"]');
    expect(await page.locator('[data-chart="style-radar"] polygon.radar-series').count()).toBe(2);
    await shot("07-style");
    expect(errors).toEqual([]);
  });

  it("topics and concepts: collapsible tree, branching, rates, first mentions", async () => {
    await openView(page, server.url, "topics");
    const nodes = page.locator('[data-chart="topic-tree"] g.node');
    const before = await nodes.count();
    expect(before).toBeGreaterThan(1);
    await page.locator('[data-chart="topic-tree"] g.node').nth(1).click();
    await expect.poll(() => page.locator('[data-chart="topic-tree"] g.node').count()).toBeLessThan(before);
    expect(await page.locator('[data-chart="branching"] rect.bar').count()).toBe(2);
    expect(await page.locator('[data-chart="concept-rates"] rect.bar').count()).toBe(2);
    expect(await page.locator('[data-chart="first-mentions"] path.series').count()).toBe(2);
    await shot("08-topics");
    expect(errors).toEqual([]);
  });

  it("participation: shares, balance per session, who-follows-whom", async () => {
    await openView(page, server.url, "participation");
    expect(await page.locator('[data-chart="balance"] rect.bar').count()).toBe(KNOWN.sessions);
    expect(await page.locator('[data-chart="follows"] g.cell').count()).toBeGreaterThanOrEqual(9);
    await page.selectOption('select[data-control="session"]', "d1");
    await page.waitForSelector('[data-chart="cumulative-words"]');
    expect(await page.locator('[data-chart="cumulative-words"] path.series').count()).toBe(3);
    await shot("09-participation");
    expect(errors).toEqual([]);
  });

  it("Bales profile: areas per member and phase movement", async () => {
    await openView(page, server.url, "bales");
    expect(await page.locator('[data-chart^="bales-"]').count()).toBe(5);
    expect(await page.locator('[data-chart="bales-attempted-answers"] rect.bar').count()).toBe(9);
    // Each panel scales to its own data; on request all panels share one y scale (the same top tick).
    const topTicks = () =>
      page.$$eval('[data-chart^="bales-"]:not([data-chart="bales-phases"]) svg', (svgs) =>
        svgs.map((svg) =>
          Math.max(
            ...[...svg.querySelectorAll("g.tick")]
              .map((t) => (t as unknown as { __data__: unknown }).__data__)
              .filter((v): v is number => typeof v === "number"),
          ),
        ),
      );
    const own = await topTicks();
    expect(new Set(own).size).toBeGreaterThan(1);
    await page.check('input[data-control="shared-scales"]');
    await page.waitForSelector('input[data-control="shared-scales"]:checked');
    const shared = await topTicks();
    expect(shared).toHaveLength(4);
    expect(new Set(shared).size).toBe(1);
    await page.uncheck('input[data-control="shared-scales"]');
    await shot("10-bales");
    expect(errors).toEqual([]);
  });

  it("data-table toggle and SVG/PNG export", async () => {
    await openView(page, server.url, "compare");
    const card = page.locator('[data-chart="compare-heatmap"]');
    await card.locator('[data-action="table"]').click();
    expect(await card.locator(".table-box table tbody tr").count()).toBe(KNOWN.heatmapCells);
    await card.locator('[data-action="table"]').click();
    const [svgDownload] = await Promise.all([page.waitForEvent("download"), card.locator('[data-action="svg"]').click()]);
    expect(svgDownload.suggestedFilename()).toBe("compare-heatmap.svg");
    const svg = await readFile((await svgDownload.path())!, "utf8");
    expect(svg).toContain("<svg");
    expect(svg).toContain("+600%");
    const [pngDownload] = await Promise.all([page.waitForEvent("download"), card.locator('[data-action="png"]').click()]);
    const png = await readFile((await pngDownload.path())!);
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(errors).toEqual([]);
  });

  it("hostile transcript text is shown literally and never runs", async () => {
    await openView(page, server.url, "timeline");
    await page.selectOption('select[data-control="condition"]', "control");
    await page.selectOption('select[data-control="session"]', "xss");
    await page.waitForSelector('[data-transcript="xss"]');
    const text = await page.textContent('[data-transcript="xss"]');
    expect(text).toContain(HOSTILE.script);
    expect(text).toContain(HOSTILE.img);
    expect(text).toContain(HOSTILE.link);
    expect(text).toContain(HOSTILE.name);
    expect(await page.locator('[data-transcript="xss"] script, [data-transcript="xss"] img, [data-transcript="xss"] a, main style').count()).toBe(0);
    // Hover everything that could carry a handler, then check no payload ran.
    for (const row of await page.locator('[data-transcript="xss"] .turn-row').all()) await row.hover();
    await shot("11-hostile-text");
    await openView(page, server.url, "overview");
    await page.locator('table[data-table="speakers"]').hover();
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.textContent('table[data-table="speakers"]')).toContain(HOSTILE.name);
    expect(errors).toEqual([]);
  });

  it("loads the index first and a view's own data file only when that view is shown, once", async () => {
    const fetched: string[] = [];
    const listen = (request: { url(): string }) => {
      const path = new URL(request.url()).pathname;
      if (path.endsWith(".json")) fetched.push(path.replace(/\.[0-9a-f]{12}\.json$/, ""));
    };
    // A fresh page load: the tests before left the page on this site, where a hash change fetches nothing.
    await page.goto("about:blank");
    page.on("request", listen);
    try {
      await openView(page, server.url, "overview");
      expect(fetched).toEqual(["/data", "/views/overview"]);
      fetched.length = 0;
      // Another view fetches its file (the timeline has none: it draws from the index and a session's chunk).
      await page.evaluate(() => (location.hash = "#/who"));
      await page.waitForSelector('main[data-view="who"][data-ready="true"]');
      await page.evaluate(() => (location.hash = "#/timeline"));
      await page.waitForSelector('main[data-view="timeline"][data-ready="true"]');
      await page.evaluate(() => (location.hash = "#/who"));
      await page.waitForSelector('main[data-view="who"][data-ready="true"]');
      expect(fetched.filter((f) => !f.startsWith("/sessions/"))).toEqual(["/views/who"]);
    } finally {
      page.off("request", listen);
    }
    expect(errors).toEqual([]);
  });

  it("a view left while its data file loads draws nothing under the next view", async () => {
    await page.goto("about:blank");
    // Hold the "who" view's file back, then move on to the timeline before it arrives.
    await page.route(/\/views\/who\.[0-9a-f]{12}\.json$/, async (route) => {
      await new Promise((done) => setTimeout(done, 1500));
      await route.continue();
    });
    try {
      await openView(page, server.url, "overview");
      await page.evaluate(() => (location.hash = "#/who"));
      await page.waitForTimeout(100);
      await page.evaluate(() => (location.hash = "#/timeline"));
      await page.waitForSelector('main[data-view="timeline"][data-ready="true"]');
      await page.waitForTimeout(2000);
      expect(await page.locator('main[data-view="timeline"] [data-chart^="donut-"]').count()).toBe(0);
      expect(await page.locator("main h1").allTextContents()).toHaveLength(1);
    } finally {
      await page.unrouteAll();
    }
    expect(errors).toEqual([]);
  });

  it("views without data show an empty state naming the command that fills them", async () => {
    const bare = await mkdtemp(join(tmpdir(), "colloquy-dash-bare-"));
    try {
      await initStudy(bare);
      await saveSession(
        bare,
        sessionSchema.parse({
          id: "only",
          participants: [{ id: "a", name: "Ann", kind: "human" }],
          turns: [{ id: "t0", index: 0, speaker: "a", text: "hello" }],
        }),
      );
      await buildSite(bare);
      const other = await startServer(join(bare, "site"), { port: 0 });
      try {
        const expected: Record<string, RegExp> = {
          who: /colloquy code .* --codebook bales-ipa/,
          compare: /colloquy code/,
          sequences: /colloquy code/,
          agreement: /colloquy agree .* --coders rules,human:/,
          style: /--codebook pragmatic-style/,
          topics: /colloquy topics .*colloquy concepts/,
          bales: /--codebook bales-ipa/,
        };
        for (const [view, pattern] of Object.entries(expected)) {
          await openView(page, other.url, view);
          expect(await page.textContent("main [data-empty]"), view).toMatch(pattern);
        }
        await openView(page, other.url, "timeline");
        expect(await page.textContent('[data-transcript="only"]')).toContain("hello");
        await shot("12-empty-states");
      } finally {
        await other.close();
      }
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
    expect(errors).toEqual([]);
  });
});
