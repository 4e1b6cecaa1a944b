/**
 * REFI-QDA export benchmark (issue 38): `colloquy export <study> --format qdpx` on a 100,000-turn
 * study, end to end (open the study, read sessions and every coder's codes, build project.qde and
 * one source per session, zip, write), next to a baseline in the same run: the same study's
 * session files and codes files read and zipped as they are (what any export must at least do).
 * Target: < 10 s.
 *
 * The study: the pipeline benchmark's (bench/support/pipeline-study.ts: 100-turn sessions, Bales
 * codes by two humans on 20% of turns), coded by the rule coder with bales-ipa through the real
 * coding job, plus one human coder whose codes hold sub-turn segments (a phrase of every tenth
 * turn), as an NVivo import makes them. Generation is not timed. Best of 3 rounds.
 *
 * Run: npx tsx bench/qdpx-export.ts [turns] [--keep <dir>]     (default 100000 turns)
 *      npx tsx bench/qdpx-export.ts --study <dir>               (a study made with --keep, or any)
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fflate } from "../src/util/zip.js";
import { loadCodebook } from "../src/coding/codebook/load.js";
import { runCodingJob } from "../src/coding/job.js";
import type { CodeRecord } from "../src/coding/records.js";
import { replaceCodes } from "../src/coding/store.js";
import { main } from "../src/cli/main.js";
import { withIo } from "../src/cli/io.js";
import { loadSessions } from "../src/study/study.js";
import { silentReporter } from "../src/util/reporter.js";
import { writePipelineStudy } from "./support/pipeline-study.js";
import { printTable } from "./support/table.js";

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const TURNS = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
const TARGET_SECONDS = 10;
const tmp = await mkdtemp(join(tmpdir(), "colloquy-bench-qdpx-"));
const given = option("--study");
const study = given ?? option("--keep") ?? join(tmp, "study");

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { withFileTypes: true, recursive: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Wall and CPU seconds of `work`. */
async function time(work: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - t) / 1000, cpu: (used.user + used.system) / 1e6 };
}

/** The benchmark's study (see the top of this file); not timed. */
async function generate(): Promise<void> {
  const t = performance.now();
  await writePipelineStudy(study, TURNS);
  const sessions = await loadSessions(study);
  await runCodingJob({ study, sessions, codebook: await loadCodebook("bales-ipa"), coder: "rules" });
  const phrases: CodeRecord[] = sessions.flatMap((s) =>
    s.turns
      .filter((turn) => turn.index % 10 === 0 && Array.from(turn.text).length > 4)
      .map((turn) => ({
        session: s.id,
        turn: turn.id,
        codebook: "bales-ipa",
        codebookVersion: "1.0.0",
        coder: "human:nvivo-user",
        codes: ["gives-opinion"],
        segments: [{ start: 0, end: Math.min(12, Array.from(turn.text).length), codes: ["gives-opinion"] }],
        provenance: { via: "colloquy import qdpx", user: "NVivo User" },
        createdAt: "2026-12-01T00:00:00.000Z",
      })),
  );
  await replaceCodes(study, "bales-ipa", "human:nvivo-user", phrases);
  console.log(
    `generated ${TURNS} turns, coded by rules, 2 humans (20%) and one with phrase segments (${phrases.length}); ${((performance.now() - t) / 1000).toFixed(1)} s, not timed`,
  );
}

try {
  if (!given) await generate();

  const out = join(tmp, "study.qdpx");
  let printed = "";
  const exportRun = () =>
    withIo({ out: (text) => void (printed = text), err: (text) => void (printed = text), reporter: () => silentReporter }, () =>
      main(["node", "colloquy", "export", study, "--format", "qdpx", "--out", out]),
    );
  const baseline = async () => {
    const entries: Record<string, Uint8Array> = {};
    for (const file of [...(await filesUnder(join(study, "sessions"))), ...(await filesUnder(join(study, "codes")))]) entries[file] = await readFile(file);
    await writeFile(join(tmp, "baseline.zip"), fflate().zipSync(entries, { level: 6 }));
  };
  const best = { export: { wall: Infinity, cpu: Infinity }, baseline: { wall: Infinity, cpu: Infinity } };
  for (let round = 0; round < 3; round++) {
    const e = await time(exportRun);
    const b = await time(baseline);
    if (e.wall < best.export.wall) best.export = e;
    if (b.wall < best.baseline.wall) best.baseline = b;
  }
  console.log(printed.trim());
  const mb = async (path: string) => `${((await stat(path)).size / 2 ** 20).toFixed(1)} MB`;
  printTable([
    ["run", "wall s", "cpu s", "output"],
    ["colloquy export --format qdpx [measurement]", best.export.wall.toFixed(2), best.export.cpu.toFixed(2), await mb(out)],
    ["read + zip the study's files [baseline]", best.baseline.wall.toFixed(2), best.baseline.cpu.toFixed(2), await mb(join(tmp, "baseline.zip"))],
  ]);
  const ok = best.export.wall < TARGET_SECONDS;
  console.log(`${ok ? "PASS" : "FAIL"}: ${TURNS} turns exported in ${best.export.wall.toFixed(2)} s (target < ${TARGET_SECONDS} s)`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await rm(tmp, { recursive: true, force: true });
}
