/**
 * Learned coder benchmark (issue 13): on a generated study of N turns (100-turn sessions, 20% of
 * turns human-coded by human:alice; bench/support/pipeline-study.ts), times the real command in a
 * child process, end to end (start-up, loading the study, training with its grouped cross-validation,
 * coding every turn, writing the records):
 *   a. BASELINE  `colloquy code <dir> --codebook bales-ipa --coder rules` (the offline rule coder)
 *   b. MEASURED  `colloquy code <dir> --codebook bales-ipa --coder learned --train human:alice`
 * Target: (b) under 30 s at 100,000 turns on 2 cores, judged on both the CPU time (user + system,
 * all its threads, which each child reports and which a shared machine's load inflates far less than
 * the wall time) and the wall time. The generated texts come from small pools (5,080 distinct texts
 * in 100,000 turns: the bench does not merge equal turns, so that does not flatter it),
 * so the kappa printed here says nothing about quality; see test/coding/learned.test.ts for that.
 * Run: npx tsx bench/learned.ts [turns]     (default 100000)
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { writePipelineStudy } from "./support/pipeline-study.js";

const ROOT = join(import.meta.dirname, "..");
/** Preloaded into each child: its own CPU time, on stderr's last line as it exits. */
const REPORT_CPU = `data:text/javascript,process.on("exit",()=>process.stderr.write("\\ncpu "+JSON.stringify(process.cpuUsage())+"\\n"))`;
const TURNS = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 100_000);

if (spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" }).status !== 0) throw new Error("npm run build failed");
const dir = await mkdtemp(join(tmpdir(), "colloquy-bench-learned-"));
try {
  const { humanTurns } = await writePipelineStudy(dir, TURNS);
  console.log(`study: ${TURNS.toLocaleString("en-US")} turns, ${humanTurns.toLocaleString("en-US")} coded by human:alice (generation not timed)`);
  const time = (label: string, args: string[]) => {
    const t = performance.now();
    const run = spawnSync(
      process.execPath,
      ["--import", REPORT_CPU, join(ROOT, "bin/colloquy.js"), "code", dir, "--codebook", "bales-ipa", ...args, "--json"],
      {
        encoding: "utf8",
        env: { ...process.env, CI: "true" },
        maxBuffer: 1 << 28,
      },
    );
    const seconds = (performance.now() - t) / 1000;
    if (run.status !== 0) throw new Error(`${label} exited ${run.status}: ${run.stderr.slice(-2000)}`);
    const [job] = JSON.parse(run.stdout).jobs;
    const usage = JSON.parse(/cpu (.*)\n$/.exec(run.stderr)![1]) as { user: number; system: number };
    return { seconds, cpu: (usage.user + usage.system) / 1e6, job };
  };
  const rules = time("rules", ["--coder", "rules"]);
  const learned = time("learned", ["--coder", "learned", "--train", "human:alice"]);
  const rate = (n: number, s: number) => `${Math.round(n / s).toLocaleString("en-US")} turns/s`;
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} (2 cores)`,
  );
  console.log(
    `BASELINE rules coder:   ${rules.seconds.toFixed(1)} s end to end (CPU ${rules.cpu.toFixed(1)} s), ${rules.job.coded} turns coded (${rate(rules.job.coded, rules.seconds)})`,
  );
  const { trainingSize, validation } = learned.job.learned;
  console.log(
    `MEASURED learned coder: ${learned.seconds.toFixed(1)} s end to end (CPU ${learned.cpu.toFixed(1)} s; training on ${trainingSize} turns with ${validation.folds}-fold validation, then coding), ${learned.job.coded} turns coded (${rate(learned.job.coded, learned.seconds)})`,
  );
  const verdict = (s: number) => (TURNS >= 100_000 ? (s < 30 ? "PASS" : "FAIL") : "n/a at this size");
  console.log(
    `target < 30 s at 100,000 turns: CPU ${learned.cpu.toFixed(1)} s ${verdict(learned.cpu)}; wall ${learned.seconds.toFixed(1)} s ${verdict(learned.seconds)}`,
  );
  console.log(`ratio learned / rules: ${(learned.seconds / rules.seconds).toFixed(2)} wall, ${(learned.cpu / rules.cpu).toFixed(2)} CPU`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
