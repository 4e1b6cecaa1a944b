/**
 * End-to-end pipeline benchmark (issue 11). Generates a study of N turns (3 conditions, 100-turn
 * sessions, 20% of turns double human-coded; bench/support/pipeline-study.ts), then times the
 * real command, `node bin/colloquy.js study <dir>` in a child process with CI=true:
 *   a. the full run: the BASELINE every ratio divides by (timed three times, on the study and on
 *      two copies of it made before any run; judged by its median run)
 *   b. a no-op re-run (nothing changed)                        target <= 5% of (a)
 *   c. one more 100-turn session dropped into inbox/ as a Slack paste, so the import stage runs
 *      too (the realistic path), then a re-run                 target <= 15% of (a)
 *   b and c are timed three times each (c with a new session before each run) and judged by the
 *   median run (by wall time; its CPU time is printed beside it): one run of them varies by about
 *   +-10% on the shared 2-core machine. d and d' then run on a study of N+3 and N+4 sessions.
 *   d. `colloquy build <dir>` alone: wall time and peak RSS    target <= 300 MB
 *   d'. the same after another session went through every stage but the build
 *      (`colloquy study --only import,…,concepts`), so the build in its own process shapes a
 *      session whose codes it must read                         target <= 300 MB
 * next to two library baselines: parsing every session and code file once (JSON.parse, no
 * validation: what the data costs to read) and the CLI's own start-up (`--version`).
 * Peak RSS is the child's process.resourceUsage().maxRSS, written at exit by a preload
 * (bench/support/peak-rss.mjs), so it covers every stage the child ran in-process.
 * Then the byte-identical check (issue 33): a copy of the study's inputs alone (no .cache, state,
 * analysis or site) is run from scratch, and every analysis file and the dashboard's data must be
 * what the memoised runs left (times and the study's path masked).
 * Generation is not timed. Exits 0 even when a target fails: it is a report.
 * Run: npx tsx bench/pipeline.ts [turns] [--keep]     (default 100000; 5000 for a smoke run)
 * Corpus scale (issue 40): npx tsx bench/pipeline.ts --scale=100000,300000,1000000   (see scaleBench;
 * a 1,000,000-turn study takes about 1 GB on disk and its full run minutes: run it with nice, in the background)
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { listCoders, readCodes } from "../src/coding/store.js";
import { listSessionIds, loadSessions } from "../src/study/study.js";
import { CONDITIONS, makeSession, slackPaste, writePipelineStudy } from "./support/pipeline-study.js";
import { printTable } from "./support/table.js";

const ROOT = join(import.meta.dirname, "..");
const rssFile = join(tmpdir(), `colloquy-bench-rss-${process.pid}.json`);
const args = process.argv.slice(2);
const TURNS = Number(args.find((a) => /^\d+$/.test(a) && !args[args.indexOf(a) - 1]?.startsWith("--scale")) ?? 100_000);
const KEEP = args.includes("--keep");
/** `--scale 100000,300000,1000000`: the corpus-scale figures (issue 40) at these sizes instead of the engine figures. */
const scaleArg = args.find((a) => a.startsWith("--scale"));
const SCALE = scaleArg === undefined ? undefined : (scaleArg.split("=")[1] ?? args[args.indexOf(scaleArg) + 1] ?? "").split(",").map(Number);
const TARGET = { noop: 0.05, addOne: 0.15, buildMB: 300 };

interface Measure {
  seconds: number;
  cpu: number;
  peakMB: number;
  stages: string;
}

/** Newest mtime (ms) under a folder. */
async function newest(dir: string): Promise<number> {
  let max = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) max = Math.max(max, (await stat(join(e.parentPath, e.name))).mtimeMs);
  }
  return max;
}

/**
 * bin/colloquy.js runs dist/ (the CLI bundled in dist/src/bundle/), so rebuild when src/ or web/ is newer. Other engineers edit src/
 * concurrently, so a build can fail transiently: wait and retry rather than time stale code.
 */
async function ensureBuilt(): Promise<void> {
  const built = await stat(join(ROOT, "dist/src/bundle/main.js")).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  const bundled = await stat(join(ROOT, "dist/web/app.js")).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  if ((await newest(join(ROOT, "src"))) < built && (await newest(join(ROOT, "web"))) < bundled) return;
  for (let attempt = 1; attempt <= 10; attempt++) {
    console.log(`dist/ is older than src/ or web/: npm run build (attempt ${attempt})`);
    if (spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "inherit" }).status === 0) return;
    await new Promise((r) => setTimeout(r, 30_000));
  }
  throw new Error("npm run build kept failing; dist/ would be stale");
}

/**
 * One CLI command in a fresh child, as a researcher runs it: wall time, CPU, peak RSS, and where
 * the time went. Each output line is time-stamped on arrival (stderr to a pipe is synchronous on
 * Linux), so the gap before a "[stage] ..." line is that stage's re-plan + run, skipped or not;
 * the CLI's own "(x s)" covers only run(). "start" = process start to the plan, "plan" = planning
 * every stage once, "exit" = the last stage to process exit.
 */
async function cli(argv: string[], label: string): Promise<Measure> {
  const preload = pathToFileURL(join(ROOT, "bench/support/peak-rss.mjs")).href;
  const t0 = performance.now();
  const child = spawn(process.execPath, ["--import", preload, join(ROOT, "bin/colloquy.js"), ...argv], {
    cwd: ROOT,
    env: { ...process.env, CI: "true", COLLOQUY_BENCH_RSS_FILE: rssFile },
  });
  const lines: { at: number; text: string }[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (text) => lines.push({ at: (performance.now() - t0) / 1000, text }));
  }
  const status = await new Promise<number | null>((done) => child.on("close", done));
  const seconds = (performance.now() - t0) / 1000;
  if (status !== 0)
    throw new Error(
      `${label}: colloquy ${argv.join(" ")} exited ${status}\n${lines
        .slice(-15)
        .map((l) => l.text)
        .join("\n")}`,
    );
  // The preload writes synchronously at exit, so the file is complete once the child has closed.
  const usage = JSON.parse(readFileSync(rssFile, "utf8")) as { maxRSS: number; user: number; system: number };
  const parts: string[] = [];
  let last = lines.find((l) => l.text === "Plan:")?.at;
  if (last !== undefined) parts.push(`start ${last.toFixed(1)}`);
  for (const l of lines) {
    const m = /^(?:  LLM:|\[(\w+)\] (skipped)?)/.exec(l.text);
    if (!m || last === undefined) continue;
    parts.push(`${m[1] ?? "plan"} ${(l.at - last).toFixed(1)}${m[2] ? " (skip)" : ""}`);
    last = l.at;
  }
  if (last !== undefined) parts.push(`exit ${(seconds - last).toFixed(1)}`);
  return { seconds, cpu: (usage.user + usage.system) / 1e6, peakMB: usage.maxRSS / 1024, stages: parts.join(", ") };
}

/** Baseline: read and JSON.parse every session file and every code line once (no validation). */
async function readEverything(dir: string): Promise<{ seconds: number; files: number; mb: number }> {
  const t = performance.now();
  let files = 0;
  let bytes = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(e.parentPath, e.name);
    const isSession = e.isFile() && e.parentPath.endsWith("sessions") && e.name.endsWith(".json");
    const isCodes = e.isFile() && path.includes(`${join(dir, "codes")}/`) && e.name.endsWith(".jsonl") && !e.name.endsWith(".failures.jsonl");
    if (!isSession && !isCodes) continue;
    const text = await readFile(path, "utf8");
    if (isSession) JSON.parse(text);
    else for (const line of text.split("\n")) if (line) JSON.parse(line);
    files++;
    bytes += Buffer.byteLength(text);
  }
  return { seconds: (performance.now() - t) / 1000, files, mb: bytes / 2 ** 20 };
}

/**
 * Second baseline: the library's zod-validated readers (loadSessions + readCodes), on a copy of the
 * study without its .cache/. Run here from the TypeScript sources, loadSessions would otherwise
 * replace the study's record of validated files with one for the sources' schema code, and the
 * measured runs (dist/) would validate every session again: 0.5-0.6 s of the +1 run, which a
 * researcher's own runs never pay.
 */
async function libraryRead(dir: string): Promise<number> {
  const copy = join(await mkdtemp(join(tmpdir(), "colloquy-bench-library-")), "study");
  try {
    await cp(dir, copy, { recursive: true, filter: (path) => ![join(dir, ".cache"), join(dir, "site")].includes(path) });
    const t = performance.now();
    await loadSessions(copy);
    for (const [codebook, coders] of Object.entries(await listCoders(copy))) for (const coder of coders) await readCodes(copy, codebook, coder);
    return (performance.now() - t) / 1000;
  } finally {
    await rm(dirname(copy), { recursive: true, force: true });
  }
}

/** Analysis files and the dashboard's data (index and views) of two studies that differ (creation times and the study's path masked). */
async function differingOutputs(a: string, b: string): Promise<string[]> {
  const read = async (dir: string) => {
    const out = new Map<string, string>();
    const mask = (text: string) => text.replaceAll(dir, "<study>").replace(/"createdAt": ?"[^"]*"/g, "<time>");
    for (const name of await readdir(join(dir, "analysis"))) out.set(`analysis/${name}`, mask(await readFile(join(dir, "analysis", name), "utf8")));
    // The current build's index is the one index.html names: a rebuild keeps the build before's files beside it.
    const index = (await readFile(join(dir, "site", "index.html"), "utf8")).match(/data\.[0-9a-f]+\.json/)?.[0];
    if (index) {
      const text = await readFile(join(dir, "site", index), "utf8");
      // The index names each view's file by its hash, which a masked time in it changes: each view is compared by its id.
      out.set("site/data", mask(text).replace(/(views\/[a-z]+)\.[0-9a-f]{12}\.json/g, "$1.json"));
      for (const [file, view] of text.matchAll(/views\/([a-z]+)\.[0-9a-f]{12}\.json/g))
        out.set(`site/views/${view}`, mask(await readFile(join(dir, "site", file), "utf8")));
    }
    return out;
  };
  const [x, y] = [await read(a), await read(b)];
  return [...new Set([...x.keys(), ...y.keys()])].filter((k) => x.get(k) !== y.get(k)).sort();
}

const s = (x: number) => `${x.toFixed(2)} s`;
/** The run of median wall time of an odd number of runs. */
const median = (runs: Measure[]): Measure => [...runs].sort((a, b) => a.seconds - b.seconds)[(runs.length - 1) >> 1];
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const mb = (x: number) => `${x.toFixed(0)} MB`;

await ensureBuilt();
// Others edit src/ and codebooks/ while this runs: if dist/ or codebooks/ change mid-run, the
// figures mix two versions of the code, so the summary says so.
/** Session `index` of a generated study, as a transcript someone drops into inbox/<condition>/<run>/. */
async function dropInbox(dir: string, index: number): Promise<void> {
  const { session } = makeSession(index);
  const inbox = join(dir, "inbox", String(session.metadata.condition), String(session.metadata.run));
  await mkdir(inbox, { recursive: true });
  await writeFile(join(inbox, `run-${session.metadata.run}.md`), slackPaste(session));
}

/**
 * The corpus-scale figures (issue 40), one run each per size (a 1,000,000-turn full run takes
 * minutes): the full run, a no-op re-run and a re-run after one more 100-turn session, with wall
 * time, CPU and peak RSS, under Node's default heap. Targets: every size completes; peak <= 1.5 GB
 * at 1,000,000 turns, growing sub-linearly; time linear (the largest size's full run within 1.2x
 * of the smallest's scaled by the sizes' ratio: 12x for 1,000,000 against 100,000).
 */
async function scaleBench(sizes: number[]): Promise<void> {
  console.log(
    `commit ${spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim()}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const rows: string[][] = [["turns", "full run", "no-op", "+1 session", "peak RSS (full)", "load after"]];
  const fulls: { turns: number; m: Measure }[] = [];
  for (const turns of sizes) {
    const dir = await mkdtemp(join(tmpdir(), `colloquy-bench-scale-${turns}-`));
    try {
      const study = await writePipelineStudy(dir, turns);
      const run = (label: string) => cli(["study", dir], label).catch((error: Error) => error);
      const full = await run(`full run at ${turns}`);
      if (full instanceof Error) {
        rows.push([String(turns), `FAILED: ${full.message.split("\n").slice(0, 3).join(" ")}`, "-", "-", "-", loadavg()[0].toFixed(1)]);
        continue;
      }
      fulls.push({ turns, m: full });
      const noop = await run(`no-op at ${turns}`);
      await dropInbox(dir, study.sessions);
      const addOne = await run(`+1 session at ${turns}`);
      const ratio = (m: Measure | Error) =>
        m instanceof Error ? "FAILED" : `${s(m.seconds)} = ${pct(m.seconds / full.seconds)} (CPU ${pct(m.cpu / full.cpu)})`;
      rows.push([String(turns), `${s(full.seconds)} wall, ${s(full.cpu)} CPU`, ratio(noop), ratio(addOne), mb(full.peakMB), loadavg()[0].toFixed(1)]);
      console.log(`${turns} turns: full [${full.stages}]`);
    } finally {
      if (KEEP) console.log(`kept ${dir}`);
      else await rm(dir, { recursive: true, force: true });
    }
  }
  printTable(rows);
  const [first, last] = [fulls[0], fulls[fulls.length - 1]];
  const failed = sizes.length - fulls.length;
  if (first && last && last !== first) {
    const scale = last.turns / first.turns;
    const time = last.m.cpu / first.m.cpu;
    const peak = last.m.peakMB / first.m.peakMB;
    console.log(
      `\nsummary: ${failed === 0 ? "every size completed" : `${failed} size(s) FAILED`}; ${last.turns} vs ${first.turns} turns (${scale}x): CPU time ${time.toFixed(1)}x (target <= ${(1.2 * scale).toFixed(0)}x: ${time <= 1.2 * scale ? "PASS" : "FAIL"}), ` +
        `peak ${mb(last.m.peakMB)} = ${peak.toFixed(1)}x (sub-linear: ${peak < scale ? "PASS" : "FAIL"}; <= 1500 MB at 1,000,000 turns: ${last.turns < 1_000_000 ? "not measured" : last.m.peakMB <= 1500 ? "PASS" : "FAIL"})`,
    );
  }
}

/** The engine figures (a-g above) at TURNS turns. */
async function engineBench(): Promise<void> {
  const codeStamp = async () => Math.max(await newest(join(ROOT, "dist")), await newest(join(ROOT, "codebooks")));
  const stampBefore = await codeStamp();
  const head = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const dirty = spawnSync("git", ["--no-optional-locks", "status", "--porcelain", "--", "src", "web"], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const dir = await mkdtemp(join(tmpdir(), "colloquy-bench-pipeline-"));
  try {
    const t = performance.now();
    const study = await writePipelineStudy(dir, TURNS);
    console.log(`commit ${head}${dirty ? " + uncommitted changes in src/ or web/" : ""}; study ${dir}`);
    console.log(
      `generated ${TURNS} turns: ${study.sessions} sessions x 100 turns, ${CONDITIONS.length} conditions, ${study.humanTurns} turns coded by human:alice and human:bob (${s((performance.now() - t) / 1000)}, not timed)\n`,
    );

    const startup = await cli(["--version"], "startup");
    // The full run, the baseline every ratio divides by, varies as much from run to run: it is timed
    // three times, on the study and on two copies of it made before any run, and its median run divides.
    const copies = [`${dir}-full-2`, `${dir}-full-3`];
    for (const copy of copies) await cp(dir, copy, { recursive: true });
    const fulls: Measure[] = [];
    for (const study of [dir, ...copies]) {
      fulls.push(await cli(["study", study], "full run"));
      if (study !== dir) await rm(study, { recursive: true, force: true });
    }
    const full = median(fulls);
    console.log(`full run:   ${s(full.seconds)} (median of ${fulls.map((m) => s(m.seconds)).join(", ")})  [${full.stages}]`);
    const read = await readEverything(dir);
    const library = await libraryRead(dir);
    // The quick runs vary by +-10% on the shared machine from one run to the next: each is timed
    // three times and judged by its median run (all three printed), as the full run is.
    const noops: Measure[] = [];
    for (let i = 0; i < 3; i++) noops.push(await cli(["study", dir], "no-op re-run"));
    const noop = median(noops);
    console.log(`no-op run:  ${s(noop.seconds)} (median of ${noops.map((m) => s(m.seconds)).join(", ")})  [${noop.stages}]`);

    const dropSession = (index: number) => dropInbox(dir, index);
    let next = study.sessions;
    const adds: Measure[] = [];
    const before = (await listSessionIds(dir)).length;
    for (let i = 0; i < 3; i++) {
      await dropSession(next++);
      adds.push(await cli(["study", dir], "add one session"));
    }
    const after = (await listSessionIds(dir)).length;
    const addOne = median(adds);
    console.log(
      `add one:    ${s(addOne.seconds)} (median of ${adds.map((m) => s(m.seconds)).join(", ")}: one session added before each)  [${addOne.stages}]  (sessions ${before} -> ${after})`,
    );
    const build = await cli(["build", dir], "build alone");
    console.log(`build:      ${s(build.seconds)}`);
    await dropSession(next++);
    await cli(["study", dir, "--only", "import,code,agree,compare,stats,topics,concepts"], "stages but the build");
    const buildNew = await cli(["build", dir], "build alone, a new session");
    console.log(`build new:  ${s(buildNew.seconds)}  (after another session went through every stage but the build)\n`);

    // The memoised runs' outputs against a run from scratch on the same inputs.
    // Same folder name as the study (the dashboard shows it): only the path above differs, and it is masked.
    const fresh = join(`${dir}-fresh`, basename(dir));
    // inbox/ too: its files were imported into sessions/ already, and a study without state would import them again.
    const derived = [".cache", ".colloquy-state.json", "analysis", "site", "inbox"].map((name) => join(dir, name));
    await cp(dir, fresh, { recursive: true, filter: (path) => !derived.includes(path) });
    await cli(["study", fresh], "from scratch");
    const differing = await differingOutputs(dir, fresh);
    await rm(dirname(fresh), { recursive: true, force: true });
    console.log(
      `from scratch: ${differing.length === 0 ? "every analysis file and the dashboard data equal the memoised runs'" : `DIFFERENT: ${differing.join(", ")}`}\n`,
    );

    // Verdicts use wall time (what a researcher waits); the CPU ratio is printed beside it because
    // wall time on a shared 2-core machine also counts other processes' load.
    const ratioRow = (figure: string, m: Measure, target: number): string[] => [
      figure,
      `${s(m.seconds)} wall, ${s(m.cpu)} CPU`,
      `(a) full run ${s(full.seconds)} wall, ${s(full.cpu)} CPU`,
      `${pct(m.seconds / full.seconds)} (CPU ${pct(m.cpu / full.cpu)})`,
      `<= ${pct(target)}`,
      m.seconds / full.seconds <= target ? "PASS" : "FAIL",
    ];
    const rows: string[][] = [
      ["figure", "measured", "baseline it divides by", "ratio", "target", "result"],
      ["(a) full `colloquy study` run, median of 3  [BASELINE]", `${s(full.seconds)} wall, ${s(full.cpu)} CPU, peak ${mb(full.peakMB)}`, "-", "-", "-", "-"],
      ratioRow("(b) no-op re-run, median of 3  [measurement]", noop, TARGET.noop),
      ratioRow("(c) +1 session via inbox/, re-run, median of 3  [measurement]", addOne, TARGET.addOne),
      [
        "(d) `colloquy build` alone, peak RSS  [measurement]",
        `${mb(build.peakMB)} (${s(build.seconds)} wall)`,
        `none (absolute); CLI start-up peak ${mb(startup.peakMB)}`,
        "-",
        `<= ${TARGET.buildMB} MB`,
        build.peakMB <= TARGET.buildMB ? "PASS" : "FAIL",
      ],
      [
        "(d') the same after a session went through the stages  [measurement]",
        `${mb(buildNew.peakMB)} (${s(buildNew.seconds)} wall)`,
        "none (absolute)",
        "-",
        `<= ${TARGET.buildMB} MB`,
        buildNew.peakMB <= TARGET.buildMB ? "PASS" : "FAIL",
      ],
      [
        "(e) parse every session + code file  [library baseline]",
        `${s(read.seconds)} (${read.files} files, ${read.mb.toFixed(0)} MB)`,
        "-",
        `no-op / read ${(noop.seconds / read.seconds).toFixed(1)}x`,
        "-",
        "-",
      ],
      ["(e') loadSessions + readCodes, zod  [library baseline]", s(library), "-", `no-op / read ${(noop.seconds / library).toFixed(1)}x`, "-", "-"],
      [
        "(g) memoised outputs = from-scratch outputs",
        differing.length === 0 ? "equal" : differing.join(", "),
        "-",
        "-",
        "equal",
        differing.length === 0 ? "PASS" : "FAIL",
      ],
      ["(f) `colloquy --version`  [start-up baseline]", `${s(startup.seconds)}, peak ${mb(startup.peakMB)}`, "-", "-", "-", "-"],
    ];
    printTable(rows);
    const verdicts = rows
      .slice(1)
      .map((r) => r[5])
      .filter((v) => v === "PASS" || v === "FAIL");
    console.log(
      `\nsummary (${TURNS} turns): ${verdicts.filter((v) => v === "PASS").length}/${verdicts.length} targets met; no-op ${pct(noop.seconds / full.seconds)}, +1 session ${pct(addOne.seconds / full.seconds)} (medians of 3 runs), build peak ${mb(build.peakMB)} (${mb(buildNew.peakMB)} with a new session)`,
    );
    if ((await codeStamp()) !== stampBefore)
      console.log("WARNING: dist/ or codebooks/ changed during the run (someone rebuilt or edited them): run again for clean figures");
  } finally {
    if (KEEP) console.log(`kept ${dir}`);
    else await rm(dir, { recursive: true, force: true });
    for (const copy of [`${dir}-full-2`, `${dir}-full-3`]) await rm(copy, { recursive: true, force: true });
    await rm(rssFile, { force: true });
  }
}

await (SCALE ? scaleBench(SCALE) : engineBench());
