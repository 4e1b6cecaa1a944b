/**
 * bench/compare: the compare stage on a generated study of N turns (default 100,000: 1,000
 * sessions of 100 turns in 3 conditions; bench/support/pipeline-study.ts), sessions as units, one
 * permutation test per comparison and code with 10,000 Monte Carlo resamples per test (333 vs 334
 * sessions have far more splits than that), Hedges' g with 2,000 bootstrap resamples each, Holm
 * per family. Target: under 5 s. It times the real command (`colloquy compare <dir> --coder
 * rules`, in-process through the CLI's main) next to its baseline, the same command with the
 * decision table's closed-form alternative (`--test welch`: no resampling, the cost of reading,
 * joining and counting), each three times, judged by the median. Coding is not timed.
 *
 *   npx tsx bench/compare.ts [turns] [--keep]
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../src/cli/main.js";
import type { CompareReport } from "../src/analysis/compare/compare.js";
import { writePipelineStudy } from "./support/pipeline-study.js";
import { printTable } from "./support/table.js";

const args = process.argv.slice(2);
const TURNS = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
const KEEP = args.includes("--keep");
const RUNS = 3;

async function cli(...argv: string[]): Promise<number> {
  const code = await main(["node", "colloquy", ...argv]);
  if (code !== 0) throw new Error(`colloquy ${argv.join(" ")} exited with ${code}`);
  return code;
}

/** Median wall time (ms) of RUNS runs of `colloquy compare` with these extra flags, and the CPU time of that run. */
async function timeCompare(dir: string, extra: string[]): Promise<{ wall: number; cpu: number }> {
  const runs: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await cli("compare", dir, "--coder", "rules", "--json", ...extra);
    const c = process.cpuUsage(c0);
    runs.push({ wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 });
  }
  return runs.sort((a, b) => a.wall - b.wall)[Math.floor(RUNS / 2)];
}

const dir = await mkdtemp(join(tmpdir(), "colloquy-bench-compare-"));
try {
  const { sessions } = await writePipelineStudy(dir, TURNS);
  // The study's coder: the offline rules, so the compare file has one coder to take (not timed).
  const out = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await cli("code", dir, "--coder", "rules", "--codebook", "bales-ipa");
    await cli("compare", dir, "--coder", "rules", "--json");
  } finally {
    process.stdout.write = out;
  }
  const report = JSON.parse(await readFile(join(dir, "analysis", "compare-bales-ipa.json"), "utf8")) as CompareReport;
  const tests = report.tests.filter((t) => t.family === "permutation" && t.p !== null);
  console.log(
    `bench/compare: ${TURNS.toLocaleString("en")} turns, ${sessions} sessions, unit ${report.options.unit}; ${tests.length} permutation tests ` +
      `(${tests[0]?.method}); ${report.comparisons.length} families (${report.options.adjust}); load average ${loadavg()[0].toFixed(1)} (node ${process.version})`,
  );
  process.stdout.write = (() => true) as typeof process.stdout.write;
  let permutation: { wall: number; cpu: number };
  let welch: { wall: number; cpu: number };
  try {
    permutation = await timeCompare(dir, []);
    welch = await timeCompare(dir, ["--test", "welch"]);
  } finally {
    process.stdout.write = out;
  }
  printTable([
    ["command", "wall ms (median of 3)", "cpu ms", "target"],
    [
      "compare (permutation, 10,000 resamples per test)",
      permutation.wall.toFixed(0),
      permutation.cpu.toFixed(0),
      `< 5000 ms: ${permutation.wall < 5000 ? "met" : "NOT met"}`,
    ],
    ["baseline: compare --test welch (no resampling)", welch.wall.toFixed(0), welch.cpu.toFixed(0), ""],
    ["resampling's share", `${(permutation.wall - welch.wall).toFixed(0)} (${((permutation.wall / welch.wall - 1) * 100).toFixed(0)}% over baseline)`, "", ""],
  ]);
} finally {
  if (KEEP) console.log(`kept ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}
