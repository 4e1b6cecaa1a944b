/**
 * Dashboard benchmark: generate a study of 100,000 turns, build the site, serve it, and time how
 * long headless Chromium takes to render the overview (and the heavy views). Prints each figure
 * next to its target and a baseline: the build beside merely reading the study and writing it
 * back as one JSON file; each render beside loading a static page from the same server.
 * Run: npx tsx bench/dashboard.ts [turns]
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadSessions } from "../src/study/study.js";
import { listCoders, readCodes } from "../src/coding/store.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeLargeStudy } from "../fixtures/dashboard/generate.js";
import { buildSite } from "../src/report/build.js";
import { startServer } from "../src/report/server.js";
import { launchBrowser } from "../test/web/browser.js";

const turns = Number(process.argv[2] ?? 100_000);
const dir = await mkdtemp(join(tmpdir(), "colloquy-bench-dash-"));
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
try {
  let t = performance.now();
  await writeLargeStudy(dir, turns);
  console.log(`generated ${turns} turns in ${fmt(performance.now() - t)}`);
  t = performance.now();
  const sessions = await loadSessions(dir);
  const codes = [];
  for (const [codebook, coders] of Object.entries(await listCoders(dir))) for (const coder of coders) codes.push(...(await readCodes(dir, codebook, coder)));
  await writeFile(join(dir, "baseline.json"), JSON.stringify({ sessions, codes }));
  const baseline = performance.now() - t;
  t = performance.now();
  const result = await buildSite(dir);
  const build = performance.now() - t;
  console.log(`build:            ${fmt(build)} (shape ${fmt(result.timings.shape)}, write ${fmt(result.timings.write)}; app bundle ${result.files.js})`);
  console.log(`  baseline:       ${fmt(baseline)} to read the study and write it back as one JSON file (build / baseline ${(build / baseline).toFixed(2)})`);
  console.log(`bundle size:      app ${(result.bytes.app / 1024).toFixed(0)} KB, data ${(result.bytes.data / 1024).toFixed(0)} KB, session chunks ${(result.bytes.chunks / 1024 / 1024).toFixed(1)} MB in ${result.files.chunks} files`);
  const server = await startServer(join(dir, "site"), { port: 0 });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    await writeFile(join(dir, "site", "static.html"), "<!doctype html><title>static</title><p>A static page.</p>");
    const t1 = performance.now();
    await page.goto(`${server.url}static.html`);
    await page.waitForSelector("p");
    const staticMs = performance.now() - t1;
    console.log(`render baseline  ${fmt(staticMs)} to load a static page from the same server`);
    await page.goto("about:blank");
    for (const view of ["overview", "who", "sequences", "timeline", "participation", "bales", "style", "compare"]) {
      const t0 = performance.now();
      await page.goto(`${server.url}#/${view}`);
      await page.waitForSelector(`main[data-view="${view}"][data-ready="true"]`, { timeout: 60_000 });
      const wall = performance.now() - t0;
      const inPage = await page.getAttribute("main", "data-render-ms");
      const target = view === "overview" ? "  (target < 3.00 s)" : "";
      console.log(`render ${view.padEnd(14)} ${fmt(wall)} from navigation (view code ${inPage} ms)${target}`);
      await page.goto("about:blank");
    }
  } finally {
    await browser.close();
    await server.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
