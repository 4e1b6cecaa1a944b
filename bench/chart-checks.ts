/**
 * The chart checks of test/web/layout.test.ts (issue 39) at scale: on a generated study (default
 * 300,000 turns in 1,000-turn sessions, 20 speakers, every analysis file), every view of the
 * dashboard is drawn in headless Chromium and its charts are checked as a reader would: no text
 * cut by its chart's box or shortened without a tooltip, round axis ticks (d3's nice ticks), no
 * camelCase internal name in any text a reader sees, and one colour per meaning (a palette colour stands for one speaker, condition or code in every
 * chart, and an item keeps its colour). The suite runs the same checks at 1,200 turns; this takes
 * minutes, so it is not part of `npm test`.
 *
 * Baseline, printed beside the figures: loading a static page from the same server in the same
 * browser. Per view: the time to draw and check it, the numeric axes and coloured items seen, and
 * the problems found. Exits 1 when any check fails.
 *
 * Run: nice npx tsx bench/chart-checks.ts [turns]   (e.g. `npx tsx bench/chart-checks.ts 20000`)
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeLargeStudy } from "../fixtures/dashboard/generate.js";
import { buildSite } from "../src/report/build.js";
import { startServer } from "../src/report/server.js";
import { views } from "../web/views/index.js";
import { launchBrowser, watchErrors } from "../test/web/browser.js";
import { checkChartsOf, paletteProblems } from "../test/web/chart-checks.js";
import { printTable } from "./support/table.js";

const turns = Number(process.argv[2] ?? 300_000);
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const dir = await mkdtemp(join(tmpdir(), "colloquy-chart-checks-"));
const browser = await launchBrowser();
try {
  let t = performance.now();
  await writeLargeStudy(dir, turns, 1000, { analysis: true, speakers: 20 });
  console.log(`generated ${turns.toLocaleString("en")} turns in ${fmt(performance.now() - t)}`);
  t = performance.now();
  await buildSite(dir);
  console.log(`site built in ${fmt(performance.now() - t)}`);
  await writeFile(join(dir, "site", "blank.html"), "<!doctype html><title>blank</title><main></main>");
  const server = await startServer(join(dir, "site"), { port: 0 });
  try {
    const blank = await browser.newPage();
    t = performance.now();
    await blank.goto(`${server.url}blank.html`);
    const baseline = performance.now() - t;
    await blank.close();
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.setDefaultTimeout(600_000);
    // tsx keeps function names with a __name helper that the page lacks (vitest's transform does not).
    await page.addInitScript("window.__name = (f) => f");
    const errors = watchErrors(page);
    const rows: string[][] = [];
    const problems: string[] = [];
    const swatches = [];
    for (const view of views.map((v) => v.id)) {
      t = performance.now();
      const report = await checkChartsOf(page, server.url, view);
      const ms = performance.now() - t;
      problems.push(...report.clipped, ...report.ticks, ...report.internalNames);
      swatches.push(...report.swatches);
      rows.push([
        view,
        fmt(ms),
        String(report.axes),
        String(report.swatches.length),
        String(report.clipped.length + report.ticks.length + report.internalNames.length),
      ]);
    }
    const palette = paletteProblems(swatches);
    problems.push(...palette, ...errors);
    printTable([["view", "drawn and checked", "numeric axes", "coloured items", "label/tick/name problems"], ...rows]);
    console.log(`baseline: a static page from the same server: ${fmt(baseline)}`);
    console.log(`palette: ${swatches.length} coloured items over ${views.length} views, ${palette.length} problem(s)`);
    for (const p of problems) console.log(`PROBLEM ${p}`);
    console.log(problems.length === 0 ? `all chart checks pass at ${turns.toLocaleString("en")} turns` : `${problems.length} problem(s)`);
    process.exitCode = problems.length === 0 ? 0 : 1;
  } finally {
    await server.close();
  }
} finally {
  await browser.close();
  await rm(dir, { recursive: true, force: true });
}
