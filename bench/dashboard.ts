/**
 * Dashboard benchmark (issue 11: every view drawn in Chromium < 1 s at 100,000 turns and linear
 * to 300,000). For each size (default 100,000 and 300,000 turns, 1,000-turn sessions) it
 * generates a study, builds the site in a child process (time and peak RSS), adds the analysis
 * files the agreement and topics views read (computed by the real analysis functions, see
 * fixtures/dashboard/generate.ts), builds again, serves the site and draws EVERY view of
 * web/views/index.ts in headless Chromium. Then one table: per view the time at each size, the
 * ratio (linear = the ratio of the sizes, 3; flagged above 1.5x that, 4.5) and the < 1 s target
 * at the first size.
 *
 * Baselines, printed next to the figures they are for:
 *  - build: reading the study (sessions + codes) and writing it back as one JSON file;
 *  - build memory: the peak RSS of a child that only loads the build code (an idle process);
 *  - views: loading a static page from the same server in the same browser.
 *
 * "drawn" is the page's own clock (web/main.ts) from the view's data being there to the first
 * frame laid out and painted after the view's code ran (data-drawn-ms); "code" is the view's code
 * alone (data-render-ms); "data" is fetching and parsing the view's own data file before that
 * (data-load-ms); "navigation" is the bench's wall clock from page.goto, which adds loading the
 * app and fetching and parsing the site's index. Each view is drawn 3 times; the fastest counts.
 *
 * Run: npx tsx bench/dashboard.ts [turns ...]   (e.g. `npx tsx bench/dashboard.ts 20000 60000`)
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

interface ChildBuild {
  ms: number;
  timings?: { shape: number; write: number };
  bytes?: { app: number; data: number; views: number; largestView: number; chunks: number };
  files?: { js: string; chunks: number };
  /** Peak resident set size of the child, bytes. */
  peakRss: number;
}

// Child mode: build one study (or only load the build code: the idle baseline), print JSON.
if (process.argv[2] === "--build-child" || process.argv[2] === "--idle-child") {
  const { buildSite } = await import("../src/report/build.js");
  const out: ChildBuild = { ms: 0, peakRss: 0 };
  if (process.argv[2] === "--build-child") {
    const t = performance.now();
    const result = await buildSite(process.argv[3]);
    out.ms = performance.now() - t;
    out.timings = result.timings;
    out.bytes = result.bytes;
    out.files = { js: result.files.js, chunks: result.files.chunks };
  }
  // maxRSS is the process's high-water mark (KiB on Linux and macOS).
  out.peakRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(0);
}

/** Run this file again in a child node (same tsx loader) and parse its JSON line. */
function child(args: string[]): Promise<ChildBuild> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let text = "";
    proc.stdout.on("data", (d: Buffer) => (text += d.toString()));
    proc.on("error", reject);
    proc.on("close", (code) => {
      const line = text.trim().split("\n").pop() ?? "";
      if (code !== 0 || !line.startsWith("{")) reject(new Error(`build child exited with ${code}: ${text.slice(-500)}`));
      else resolve(JSON.parse(line) as ChildBuild);
    });
  });
}

const { loadSessions } = await import("../src/study/study.js");
const { listCoders, readCodes } = await import("../src/coding/store.js");
const { writeLargeStudy, addLargeStudyAnalysis } = await import("../fixtures/dashboard/generate.js");
const { startServer } = await import("../src/report/server.js");
const { launchBrowser } = await import("../test/web/browser.js");
const { views } = await import("../web/views/index.js");

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
if (sizes.length === 0) sizes.push(100_000, 300_000);
const REPEATS = 3;
const viewIds = views.map((v) => v.id);

interface ViewTime {
  drawn: number;
  code: number;
  /** Fetching and parsing the view's own data file (data-load-ms), before its code runs. */
  load: number;
  navigation: number;
}
const results = new Map<number, Map<string, ViewTime>>();

/** Draw one view from a fresh navigation; the page reports its own times. */
async function drawView(page: Page, url: string, view: string): Promise<ViewTime> {
  await page.goto("about:blank");
  const t0 = performance.now();
  await page.goto(`${url}#/${view}`);
  await page.waitForSelector(`main[data-view="${view}"][data-drawn-ms]`, { timeout: 120_000 });
  const navigation = performance.now() - t0;
  const drawn = Number(await page.getAttribute("main", "data-drawn-ms"));
  const code = Number(await page.getAttribute("main", "data-render-ms"));
  const load = Number(await page.getAttribute("main", "data-load-ms"));
  const failed = await page.locator("main .empty.error").count();
  if (failed) throw new Error(`view ${view} failed to render: ${await page.textContent("main .empty.error")}`);
  return { drawn, code, load, navigation };
}

const idle = await child(["--idle-child"]);
console.log(`build memory baseline: ${mb(idle.peakRss)} peak RSS of a node process that only loads the build code`);
const browser = await launchBrowser();
try {
  for (const turns of sizes) {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-bench-dash-"));
    try {
      console.log(`\n== ${turns.toLocaleString("en")} turns (${Math.ceil(turns / 1000)} sessions of 1,000) ==`);
      let t = performance.now();
      await writeLargeStudy(dir, turns);
      console.log(`generated in ${fmt(performance.now() - t)}`);

      t = performance.now();
      const sessions = await loadSessions(dir);
      const codes: unknown[] = [];
      // A loop, not push(...records): spreading 300,000 records overflows the call stack.
      for (const [codebook, coders] of Object.entries(await listCoders(dir)))
        for (const coder of coders) for (const r of await readCodes(dir, codebook, coder)) codes.push(r);
      await writeFile(join(dir, "baseline.json"), JSON.stringify({ sessions, codes }));
      const baseline = performance.now() - t;
      sessions.length = 0;
      codes.length = 0;
      await rm(join(dir, "baseline.json"));

      const plain = await child(["--build-child", dir]);
      console.log(
        `build (sessions + codes):     ${fmt(plain.ms)} (shape ${fmt(plain.timings!.shape)}, write ${fmt(plain.timings!.write)}), peak RSS ${mb(plain.peakRss)} (${mb(plain.peakRss - idle.peakRss)} above idle)`,
      );
      console.log(
        `  baseline:                   ${fmt(baseline)} to read the study and write it back as one JSON file (build / baseline ${(plain.ms / baseline).toFixed(2)})`,
      );

      const analysis = await addLargeStudyAnalysis(dir);
      console.log(
        `analysis files (real agree, concepts, topics): ${fmt(analysis.ms)}; ${analysis.firstMentions.toLocaleString("en")} first mentions, ${analysis.topicNodes.toLocaleString("en")} topic nodes, ` +
          `${analysis.disagreements.toLocaleString("en")} disagreements; ${Object.entries(analysis.bytes)
            .map(([f, b]) => `${f} ${mb(b)}`)
            .join(", ")}`,
      );
      const full = await child(["--build-child", dir]);
      console.log(
        `build (with analysis files):  ${fmt(full.ms)} (shape ${fmt(full.timings!.shape)}, write ${fmt(full.timings!.write)}), peak RSS ${mb(full.peakRss)} (${mb(full.peakRss - idle.peakRss)} above idle)`,
      );
      console.log(
        `bundle size:                  app ${(full.bytes!.app / 1024).toFixed(0)} KB, index ${mb(full.bytes!.data)}, views ${mb(full.bytes!.views)} (largest ${mb(full.bytes!.largestView)}), session chunks ${mb(full.bytes!.chunks)} in ${full.files!.chunks} files`,
      );

      const server = await startServer(join(dir, "site"), { port: 0 });
      const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      try {
        await writeFile(join(dir, "site", "static.html"), "<!doctype html><title>static</title><p>A static page.</p>");
        let staticMs = Infinity;
        for (let i = 0; i < REPEATS; i++) {
          await page.goto("about:blank");
          const t1 = performance.now();
          await page.goto(`${server.url}static.html`);
          await page.waitForSelector("p");
          staticMs = Math.min(staticMs, performance.now() - t1);
        }
        console.log(`render baseline:              ${fmt(staticMs)} to load a static page from the same server`);
        const times = new Map<string, ViewTime>();
        for (const view of viewIds) {
          let best: ViewTime | undefined;
          for (let i = 0; i < REPEATS; i++) {
            const r = await drawView(page, server.url, view);
            if (!best || r.drawn < best.drawn) best = r;
          }
          times.set(view, best!);
          console.log(
            `  ${view.padEnd(14)} drawn ${fmt(best!.drawn)} (view code ${fmt(best!.code)}; its data file fetched and parsed in ${fmt(best!.load)} before; ${fmt(best!.navigation)} from navigation)`,
          );
        }
        results.set(turns, times);
      } finally {
        await page.close();
        await server.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
} finally {
  await browser.close();
}

// Summary: drawn time per view at each size, growth, and the target at the first size.
const [small, large] = sizes;
const k = (n: number) => `${Math.round(n / 1000)}k`;
console.log(`\nper view, drawn (view code + first frame), fastest of ${REPEATS}:`);
const head = ["view".padEnd(14), ...sizes.map((n) => `${k(n)}`.padStart(9))];
if (large) head.push(`${k(large)}/${k(small)}`.padStart(10), "growth".padEnd(12));
head.push(`< 1 s at ${k(small)}`);
console.log(head.join("  "));
const expected = large ? large / small : 1;
for (const view of viewIds) {
  const row = [view.padEnd(14), ...sizes.map((n) => fmt(results.get(n)!.get(view)!.drawn).padStart(9))];
  const a = results.get(small)!.get(view)!.drawn;
  if (large) {
    const b = results.get(large)!.get(view)!.drawn;
    const ratio = b / Math.max(a, 1);
    // Below ~50 ms the page's clock and frame timing dominate; the ratio says little there.
    const growth = ratio > expected * 1.5 ? (b < 50 ? "~ (tiny)" : "NOT LINEAR") : "linear";
    row.push(ratio.toFixed(2).padStart(10), growth.padEnd(12));
  }
  row.push(a < 1000 ? "PASS" : "FAIL");
  console.log(row.join("  "));
}
