/**
 * bench/stats: everything `colloquy compare` and `colloquy stats` compute, on 1,000,000 coded turns
 * generated in memory (target: under 10 s in total), each part printed next to a naive single-pass
 * baseline over the same data so the overhead of the real analysis is visible. Then the same
 * pipeline loading a study folder from disk (sessions + codes JSONL) at a smaller size.
 *
 *   npx tsx bench/stats.ts [turns] [--load-turns N]     (defaults 1000000, 100000)
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadCodebook } from "../src/coding/codebook/load.js";
import type { NominalCodebook } from "../src/coding/codebook/schema.js";
import type { CodeRecord } from "../src/coding/records.js";
import { appendCodes } from "../src/coding/store.js";
import { initStudy, saveSession } from "../src/study/study.js";
import type { Session, Turn } from "../src/transcript/schema.js";
import { turnId } from "../src/transcript/ids.js";
import { codedTurns, type CodedTurns } from "../src/analysis/shared/table.js";
import { compareConditions } from "../src/analysis/compare/compare.js";
import { compareCsvs } from "../src/analysis/compare/output.js";
import { buildStats } from "../src/analysis/stats/report.js";
import { statsCsvs } from "../src/analysis/stats/output.js";
import { sessionMetrics } from "../src/analysis/stats/metrics.js";
import { balesProfiles, phaseMovement, profileFrame, transitions } from "../src/analysis/stats/bales.js";
import { codeSequences, segmentDistributions } from "../src/analysis/stats/sequences.js";
import { loadCodedStudy } from "../src/stages/coded.js";
import { diskReader } from "../src/study/reader.js";
import { mulberry32 } from "../src/util/random.js";
import { analyseVariable } from "../src/analysis/agreement/core.js";

const args = process.argv.slice(2);
const loadAt = args.indexOf("--load-turns");
const TURNS = Number(args.find((a, i) => /^\d+$/.test(a) && i !== loadAt + 1) ?? 1_000_000);
const LOAD_TURNS = loadAt >= 0 ? Number(args[loadAt + 1]) : 100_000;
const TURNS_PER_SESSION = 500;

const rng = mulberry32;

const SENTENCES = [
  "I think we should start with the budget.",
  "Agreed.",
  "Could you explain what you mean by that?",
  "Let me summarise: the deadline is Friday, and the draft needs two more sections.",
  "That's not going to work — it’s far too expensive.",
  "Haha, fair enough!",
  "What do the others think about option B, given the constraints we discussed yesterday?",
  "東京の会議は明日です。",
  "OK",
];

function generate(turns: number, codebook: NominalCodebook): { sessions: Session[]; records: CodeRecord[] } {
  const random = rng(42);
  const codes = codebook.categories.map((c) => c.id);
  const conditions = ["control", "ai-facilitator", "ai-peer"];
  const participants = [
    { id: "p1", name: "Ana", kind: "human" as const, role: "member" },
    { id: "p2", name: "Ben", kind: "human" as const, role: "member" },
    { id: "p3", name: "Chi", kind: "human" as const, role: "member" },
    { id: "ai", name: "Agent", kind: "ai" as const, role: "assistant" },
  ];
  const sessions: Session[] = [];
  const records: CodeRecord[] = [];
  const nSessions = Math.ceil(turns / TURNS_PER_SESSION);
  let left = turns;
  for (let s = 0; s < nSessions; s++) {
    const condition = conditions[s % conditions.length];
    const run = String(Math.floor(s / conditions.length) + 1);
    const id = `${condition}-run${run}`;
    const n = Math.min(TURNS_PER_SESSION, left);
    left -= n;
    const list: Turn[] = new Array(n);
    let clock = 0;
    for (let i = 0; i < n; i++) {
      const speaker = participants[Math.floor(random() * participants.length)].id;
      const text = SENTENCES[Math.floor(random() * SENTENCES.length)];
      const length = 1 + random() * 8;
      list[i] = { id: turnId(i), index: i, speaker, text, type: "message", start: clock, end: clock + length };
      clock += length + random() * 2;
      records.push({
        session: id,
        turn: list[i].id,
        codebook: codebook.id,
        codebookVersion: codebook.version,
        coder: "rules",
        codes: [codes[Math.floor(random() * codes.length)]],
        provenance: {},
        createdAt: "2026-01-01T00:00:00.000Z",
      });
    }
    sessions.push({ schemaVersion: 1, id, metadata: { condition, run }, participants, turns: list });
  }
  return { sessions, records };
}

interface Row {
  part: string;
  ms: number;
  /** CPU time of this process (user + system): less distorted than wall time on a busy machine. */
  cpuMs: number;
  baseline: string;
  baselineMs: number;
}
const rows: Row[] = [];

function time<T>(fn: () => T): [T, number, number] {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const value = fn();
  const c = process.cpuUsage(c0);
  return [value, performance.now() - t0, (c.user + c.system) / 1000];
}

async function timeAsync<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return [value, performance.now() - t0, (c.user + c.system) / 1000];
}

function part<T>(name: string, fn: () => T, baselineName: string, baseline: () => unknown): T {
  const [, baselineMs] = time(baseline);
  const [value, ms, cpuMs] = time(fn);
  rows.push({ part: name, ms, cpuMs, baseline: baselineName, baselineMs });
  return value;
}

function print(title: string, list: Row[]): void {
  console.log(`\n${title}`);
  console.log(
    `${"part".padEnd(34)} ${"wall ms".padStart(9)} ${"cpu ms".padStart(8)}   ${"baseline".padEnd(38)} ${"wall ms".padStart(9)} ${"ratio".padStart(6)}`,
  );
  for (const r of list) {
    console.log(
      `${r.part.padEnd(34)} ${r.ms.toFixed(0).padStart(9)} ${r.cpuMs.toFixed(0).padStart(8)}   ${r.baseline.padEnd(38)} ${r.baselineMs.toFixed(0).padStart(9)} ${(r.ms / Math.max(r.baselineMs, 0.001)).toFixed(1).padStart(6)}`,
    );
  }
  const total = list.reduce((a, r) => a + r.ms, 0);
  const cpu = list.reduce((a, r) => a + r.cpuMs, 0);
  const base = list.reduce((a, r) => a + r.baselineMs, 0);
  console.log(
    `${"sum".padEnd(34)} ${total.toFixed(0).padStart(9)} ${cpu.toFixed(0).padStart(8)}   ${"".padEnd(38)} ${base.toFixed(0).padStart(9)} ${(total / base).toFixed(1).padStart(6)}`,
  );
}

const codebook = (await loadCodebook("bales-ipa")) as NominalCodebook;
const labels = codebook.categories.map((c) => c.id);
console.log(`bench/stats: ${TURNS.toLocaleString("en")} coded turns, ${TURNS_PER_SESSION} per session, 4 participants, 3 conditions (node ${process.version})`);
// Shared machines distort wall-clock figures; the load average says how much (the ratios less so).
console.log(`machine load average (1 min): ${loadavg()[0].toFixed(1)}`);
const [{ sessions, records }, genMs] = time(() => generate(TURNS, codebook));
console.log(`generated ${sessions.length} sessions and ${records.length.toLocaleString("en")} code records in ${genMs.toFixed(0)} ms (not counted)`);

// Naive baselines: the least work that touches the same data once.
const countCodes = () => {
  const counts = new Map<string, number>();
  for (const r of records) for (const c of r.codes ?? []) counts.set(c, (counts.get(c) ?? 0) + 1);
  return counts;
};
const splitWords = () => {
  let words = 0;
  for (const s of sessions) for (const t of s.turns) words += t.text.split(/\s+/).length;
  return words;
};
const countTurns = () => {
  let n = 0;
  for (const s of sessions) for (const t of s.turns) n += t.speaker.length > 0 ? 1 : 0;
  return n;
};

const data: CodedTurns = part("join turns with codes", () => codedTurns(sessions, records, labels), "count codes in one pass over records", countCodes);
const compared = part(
  "compare (freq, diffs, tests)",
  () => compareConditions(data, { control: "control" }),
  "count codes in one pass over records",
  countCodes,
);
part(
  "compare: tests on proportions",
  () => compareConditions(data, { control: "control", measure: "proportion" }),
  "count codes in one pass over records",
  countCodes,
);
part("session metrics + participation", () => sessions.map(sessionMetrics), "split every text on whitespace", splitWords);
const frame = profileFrame(data.labels, codebook);
part("Bales profiles + ratios", () => balesProfiles(data, frame), "count turns in one pass", countTurns);
part("phase movement", () => phaseMovement(data, frame), "count turns in one pass", countTurns);
part("transition matrices", () => transitions(data), "count turns in one pass", countTurns);
part("sequences + segments", () => [codeSequences(data), segmentDistributions(data)], "count turns in one pass", countTurns);
const stats = part(
  "stats report (all of the above)",
  () => buildStats(sessions, { data, codebook, coder: "rules" }),
  "split every text on whitespace",
  splitWords,
);
part(
  "serialise JSON + CSV (both reports)",
  () => [JSON.stringify(compared, null, 2).length, JSON.stringify(stats, null, 2).length, compareCsvs(compared), statsCsvs(stats)],
  "JSON.stringify the code records",
  () => JSON.stringify(records).length,
);
print("In memory (the 10 s target: join + compare + stats report + serialisation; the rows in between are its parts)", rows);
const target = rows.filter((r) => /^(join|compare \(|stats report|serialise)/.test(r.part));
const targetMs = target.reduce((a, r) => a + r.ms, 0);
const targetCpu = target.reduce((a, r) => a + r.cpuMs, 0);
console.log(
  `\ncompare + stats end to end (join, compare, stats report, serialise): ${(targetMs / 1000).toFixed(2)} s wall, ${(targetCpu / 1000).toFixed(2)} s cpu` +
    `  -> ${targetMs < 10_000 ? "under" : "OVER"} the 10 s target in wall time, ${targetCpu < 10_000 ? "under" : "OVER"} in cpu time` +
    (loadavg()[0] > 2 ? ` (wall time is inflated: load average ${loadavg()[0].toFixed(1)} on this machine)` : ""),
);

// From a study folder: what `colloquy compare` + `colloquy stats` pay to read sessions and codes.
if (LOAD_TURNS > 0) {
  const small = generate(LOAD_TURNS, codebook);
  const root = await mkdtemp(join(tmpdir(), "colloquy-bench-stats-"));
  try {
    const dir = join(root, "study");
    await initStudy(dir);
    const [, writeMs] = await timeAsync(async () => {
      for (const s of small.sessions) await saveSession(dir, s);
      await appendCodes(dir, small.records);
    });
    const [loaded, loadMs, loadCpu] = await timeAsync(() => loadCodedStudy(dir, "bales-ipa", undefined, diskReader(dir)));
    const [, analyseMs, analyseCpu] = time(() => {
      compareConditions(loaded.data, { control: "control" });
      buildStats(loaded.sessions, { data: loaded.data, codebook, coder: loaded.coder });
    });
    const [, baseMs] = time(() => {
      const counts = new Map<string, number>();
      for (const r of small.records) counts.set(r.codes![0], (counts.get(r.codes![0]) ?? 0) + 1);
    });
    const perMillion = (ms: number) => ((ms / LOAD_TURNS) * 1e6) / 1000;
    console.log(`\nFrom a study folder (${LOAD_TURNS.toLocaleString("en")} turns; writing it took ${writeMs.toFixed(0)} ms, not counted):`);
    console.log(
      `  load sessions + codes (zod-validated)  ${loadMs.toFixed(0).padStart(7)} ms wall ${loadCpu.toFixed(0).padStart(7)} ms cpu  (~${perMillion(loadMs).toFixed(1)} s wall, ~${perMillion(loadCpu).toFixed(1)} s cpu per million turns)`,
    );
    console.log(
      `  compare + stats on what was loaded     ${analyseMs.toFixed(0).padStart(7)} ms wall ${analyseCpu.toFixed(0).padStart(7)} ms cpu  (baseline one-pass count ${baseMs.toFixed(0)} ms)`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

// Agreement (`colloquy agree`) on the same number of turns: two coders agreeing on ~80% of turns.
{
  const random = rng(7);
  const labels = codebook.kind === "nominal" ? codebook.categories.map((c) => c.id) : [];
  const human: string[] = [];
  const machine: string[] = [];
  for (let i = 0; i < TURNS; i++) {
    const code = labels[Math.floor(random() * 12)];
    human.push(code);
    machine.push(random() < 0.8 ? code : labels[Math.floor(random() * 13)]);
  }
  const run = (bootstrap: number) =>
    time(() =>
      analyseVariable({
        name: "codes",
        level: "nominal",
        coders: ["rules", "human:a"],
        ratings: [machine, human],
        labels,
        reference: "human:a",
        seed: 1,
        bootstrap,
      }),
    );
  const [plain, plainMs, plainCpu] = run(0);
  const [, bootMs, bootCpu] = run(200);
  const [, baseMs] = time(() => {
    let same = 0;
    for (let i = 0; i < TURNS; i++) if (human[i] === machine[i]) same++;
    return same;
  });
  const kappa = plain.pairs[0]?.kappa;
  console.log(`\nAgreement on ${TURNS.toLocaleString("en")} turns, 2 coders (colloquy agree's core: agreement, kappa, AC1, alpha, confusion, F1):`);
  console.log(
    `  without intervals                 ${plainMs.toFixed(0).padStart(7)} ms wall ${plainCpu.toFixed(0).padStart(7)} ms cpu   (baseline: count equal pairs ${baseMs.toFixed(0)} ms; kappa ${typeof kappa === "number" ? kappa.toFixed(3) : kappa})`,
  );
  console.log(
    `  with 200 bootstrap replicates     ${bootMs.toFixed(0).padStart(7)} ms wall ${bootCpu.toFixed(0).padStart(7)} ms cpu   (the CLI default is 1,000: about 5x the replicate cost)`,
  );
}
