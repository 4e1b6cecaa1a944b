/**
 * The chart checks of test/web/layout.test.ts (issue 39) at scale: on a generated study (default
 * 300,000 turns in 1,000-turn sessions, 20 speakers, every analysis file), every view of the
 * dashboard is drawn in headless Chromium and its charts are checked as a reader would: no text
 * cut by its chart's box or shortened without a tooltip, round axis ticks (d3's nice ticks), no
 * camelCase internal name in any text a reader sees, and one colour per meaning (a palette colour stands for one speaker, condition or code in every
 * chart, and an item keeps its colour). Then the paper report's figures (`colloquy compare` and
 * `colloquy report` on the same study) are measured as printed one column (85 mm) wide: the
 * smallest text in points, text leaving its figure or lying on another (also in DejaVu Sans), and
 * series that look alike in greyscale with no texture or label of their own. The suite runs the
 * same checks at 1,200 turns (test/web/layout.test.ts, test/web/report-figures.test.ts); this takes
 * minutes, so it is not part of `npm test`.
 *
 * Baseline, printed beside the figures: loading a static page from the same server in the same
 * browser. Per view: the time to draw and check it, the numeric axes and coloured items seen, and
 * the problems found. Exits 1 when any check fails.
 *
 * Run: nice npx tsx bench/chart-checks.ts [turns]   (e.g. `npx tsx bench/chart-checks.ts 20000`)
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeLargeStudy } from "../fixtures/dashboard/generate.js";
import { buildSite } from "../src/report/build.js";
import { startServer } from "../src/report/server.js";
import { views } from "../web/views/index.js";
import { launchBrowser, watchErrors } from "../test/web/browser.js";
import { checkChartsOf, greyscaleProblems, measurePrint, paletteProblems } from "../test/web/chart-checks.js";
import { runCli } from "../test/support/cli.js";
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

    t = performance.now();
    for (const args of [
      ["compare", dir, "--codebook", "bales-ipa", "--coder", "rules"],
      ["report", dir, "--out", join(dir, "paper", "report.md")],
    ]) {
      const run = await runCli(args);
      if (run.code !== 0) problems.push(`colloquy ${args[0]}: ${run.stderr.trim()}`);
    }
    console.log(`compare and report in ${fmt(performance.now() - t)}`);
    const folder = join(dir, "paper", "report-figures");
    const svgs = await Promise.all((await readdir(folder)).filter((f) => f.endsWith(".svg")).map((f) => readFile(join(folder, f), "utf8")));
    const figures = await measurePrint(page, svgs);
    const fallback = await measurePrint(page, svgs, "DejaVu Sans");
    const greyscale = greyscaleProblems(figures.flatMap((f) => f.swatches));
    problems.push(
      ...[...figures, ...fallback].flatMap((f) => [
        ...(Math.abs(f.widthMm - 85) > 0.1 ? [`${f.chart}: ${f.widthMm.toFixed(1)} mm wide`] : []),
        ...f.problems.map((p) => `${f.chart}: ${p}`),
      ]),
      ...greyscale,
    );
    printTable([
      ["report figure", "width", "smallest text", "series", "problems (as named / DejaVu Sans)"],
      ...figures.map((f, i) => [
        f.chart.slice(0, 60),
        `${f.widthMm.toFixed(1)} mm`,
        `${f.smallestPt.toFixed(1)} pt`,
        String(new Set(f.swatches.map((s) => s.item)).size),
        `${f.problems.length} / ${fallback[i].problems.length}`,
      ]),
    ]);
    console.log(`greyscale: ${greyscale.length} pair(s) of series alike in lightness with no texture or label`);
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
