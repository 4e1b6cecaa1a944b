/**
 * Import benchmark: generates a large corpus in each format, imports it with each importer in
 * its own child process, and prints throughput and peak memory next to baselines measured the
 * same way on the same file (fs.readFile; JSON.parse / Papa.parse / readline line count).
 *
 *   npx tsx bench/import.ts                 # ~1,000,000 turns per format (≈100 MB each)
 *   npx tsx bench/import.ts --turns 100000  # quicker
 *   npx tsx bench/import.ts --formats csv,chat-json --keep
 *
 * Peak memory is the child's maxRSS (process.resourceUsage) minus the RSS of an idle child that
 * loaded the same modules, so it is what parsing added. Targets (issue 2): >= 20 MB/s for CSV and
 * JSON; memory well below the input size for line-based formats.
 */
import { spawnSync } from "node:child_process";
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { fileInput } from "../src/ingest/input.js";
import { streamNativeJsonl } from "../src/ingest/formats/native.js";
import { importers } from "../src/ingest/registry.js";

const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------- corpus generation

const WORDS = ("the a we should could budget venue agenda draft idea plan think agree maybe next week offsite team client design blue logo font " +
  "schedule ship launch review QA notes risk cost café naïve résumé 日本語 emoji 🙂 data model agent human turn time because however also").split(" ");
const PEOPLE = [
  { name: "Aisha Khan", role: "Client", ai: false },
  { name: "Product Manager", role: "AI Agent", ai: true },
  { name: "CEO", role: "AI Agent", ai: true },
  { name: "Bob de Vries", role: "Designer", ai: false },
  { name: "Developer", role: "AI Agent", ai: true },
];

/** Deterministic PRNG (mulberry32) so every run benchmarks the same bytes. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Gen {
  person: (typeof PEOPLE)[number];
  /** One or two lines of 6-25 words. */
  text: string;
  /** Seconds since the start. */
  t: number;
}

function* turns(n: number, seed = 1): Generator<Gen> {
  const r = rng(seed);
  let t = 0;
  for (let i = 0; i < n; i++) {
    const words = 6 + Math.floor(r() * 20);
    let text = "";
    for (let w = 0; w < words; w++) text += (w ? " " : "") + WORDS[Math.floor(r() * WORDS.length)];
    if (r() < 0.15) text += "\nand, \"quoted\"; more " + WORDS[Math.floor(r() * WORDS.length)];
    // ~0.3 s per turn on average keeps 1M turns under 100 hours, so hh:mm:ss stays two-digit.
    if (r() < 0.3) t += 1;
    yield { person: PEOPLE[Math.floor(r() * PEOPLE.length)], text, t };
  }
}

const pad = (n: number) => String(n).padStart(2, "0");
const clock12 = (s: number) => {
  const h = Math.floor(s / 3600) % 24;
  return `${((h + 11) % 12) + 1}:${pad(Math.floor(s / 60) % 60)} ${h < 12 ? "AM" : "PM"}`;
};
const hms = (s: number, ms = ".000") => `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}${ms}`;
const csvCell = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** Each format: file extension, and a writer of n turns. Texts are the same across formats. */
const FORMATS: Record<string, { ext: string; write: (out: (s: string) => void, n: number) => void }> = {
  "slack-paste": {
    ext: ".md",
    write(out, n) {
      out("Condition: bench (generated)\n\n");
      for (const g of turns(n)) out(`${g.person.name} (${g.person.role})\n${g.person.ai ? "APP  " : "  "}${clock12(g.t)}\n${g.text}\n`);
    },
  },
  csv: {
    ext: ".csv",
    write(out, n) {
      out("session,speaker,role,time,text\n");
      let i = 0;
      for (const g of turns(n)) out(`run-${Math.floor(i++ / 1000)},${g.person.name},${g.person.role},${hms(g.t)},${csvCell(g.text)}\n`);
    },
  },
  plain: {
    ext: ".txt",
    write(out, n) {
      for (const g of turns(n)) out(`[${hms(g.t, "")}] ${g.person.name}: ${g.text}\n`);
    },
  },
  vtt: {
    ext: ".vtt",
    write(out, n) {
      out("WEBVTT\n\n");
      let i = 0;
      for (const g of turns(n)) out(`${++i}\n${hms(g.t)} --> ${hms(g.t + 1, ".500")}\n<v ${g.person.name}>${g.text}</v>\n\n`);
    },
  },
  "chat-json": {
    ext: ".json",
    write(out, n) {
      out("[\n");
      let first = true;
      for (const g of turns(n)) {
        out(`${first ? "" : ",\n"}${JSON.stringify({ role: g.person.ai ? "assistant" : "user", name: g.person.name.replace(/ /g, "_"), content: g.text })}`);
        first = false;
      }
      out("\n]\n");
    },
  },
  native: {
    ext: ".jsonl",
    write(out, n) {
      // One session per line, 1000 turns each: how a study's sessions are exchanged.
      let batch: Gen[] = [];
      let s = 0;
      const flush = () => {
        const ids = new Map(PEOPLE.map((p, i) => [p.name, `p${i}`]));
        const session = {
          schemaVersion: 1,
          id: `bench-${s++}`,
          metadata: { condition: "bench", run: String(s) },
          participants: PEOPLE.map((p, i) => ({ id: `p${i}`, name: p.name, role: p.role, kind: p.ai ? "ai" : "human" })),
          turns: batch.map((g, i) => ({ id: `t${String(i).padStart(4, "0")}`, index: i, speaker: ids.get(g.person.name), text: g.text, start: g.t, type: "message" })),
        };
        out(JSON.stringify(session) + "\n");
        batch = [];
      };
      for (const g of turns(n)) {
        batch.push(g);
        if (batch.length === 1000) flush();
      }
      if (batch.length) flush();
    },
  },
};

async function generate(dir: string, format: string, n: number): Promise<string> {
  const path = join(dir, `corpus-${format}${FORMATS[format].ext}`);
  const stream = createWriteStream(path, { encoding: "utf8", highWaterMark: 1 << 20 });
  let buffer = "";
  const out = (s: string) => {
    buffer += s;
    if (buffer.length > 1 << 20) {
      stream.write(buffer);
      buffer = "";
    }
  };
  FORMATS[format].write(out, n);
  stream.write(buffer);
  await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return path;
}

// ---------------------------------------------------------------- child: one measurement

interface Measure {
  seconds: number;
  /** CPU seconds (user + system) of the child: robust when other processes share the cores. */
  cpu: number;
  turns: number;
  maxRssMB: number;
  heapMB: number;
  error?: string;
}

async function child(mode: string, format: string, path: string): Promise<void> {
  const heap0 = process.memoryUsage().heapUsed;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let turnCount = 0;
  let keep: unknown;
  try {
    if (mode === "idle") {
      // nothing: the RSS of a child that loaded the modules
    } else if (mode === "readFile") {
      keep = await readFile(path, "utf8");
    } else if (mode === "JSON.parse") {
      const text = await readFile(path, "utf8");
      keep = format === "native" ? text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as unknown) : JSON.parse(text);
    } else if (mode === "Papa.parse") {
      keep = Papa.parse(await readFile(path, "utf8"), { header: true, skipEmptyLines: true }).data;
    } else if (mode === "stream") {
      // Native JSONL read session by session, each dropped after counting: the streaming path.
      for await (const session of streamNativeJsonl(fileInput(path))) turnCount += session.turns.length;
    } else if (mode === "readline") {
      const rl = createInterface({ input: createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 20 }), crlfDelay: Infinity });
      for await (const _ of rl) turnCount++;
    } else {
      const importer = importers.find((i) => i.name === format)!;
      const result = await importer.parse(fileInput(path), {});
      keep = result;
      turnCount = result.sessions.reduce((n, s) => n + s.turns.length, 0);
    }
  } catch (error) {
    process.stdout.write(JSON.stringify({ seconds: 0, cpu: 0, turns: 0, maxRssMB: 0, heapMB: 0, error: String(error).slice(0, 300) }));
    return;
  }
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu0);
  const cpu = (used.user + used.system) / 1e6;
  const heapMB = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
  void keep;
  const m: Measure = { seconds, cpu, turns: turnCount, maxRssMB: process.resourceUsage().maxRSS / 1024, heapMB };
  process.stdout.write(JSON.stringify(m));
}

function measure(mode: string, format: string, path: string): Measure {
  const run = spawnSync(process.execPath, [...process.execArgv, "--max-old-space-size=8192", SELF, "--child", mode, format, path], { encoding: "utf8", maxBuffer: 1 << 20 });
  try {
    return JSON.parse(run.stdout) as Measure;
  } catch {
    return { seconds: 0, cpu: 0, turns: 0, maxRssMB: 0, heapMB: 0, error: (run.stderr || run.stdout || `exit ${run.status}`).trim().split("\n").slice(-3).join(" ") };
  }
}

// ---------------------------------------------------------------- main

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "-");

async function main(): Promise<void> {
  const n = Number(arg("--turns") ?? 1_000_000);
  const formats = (arg("--formats") ?? Object.keys(FORMATS).join(",")).split(",");
  const dir = await mkdtemp(join(tmpdir(), "colloquy-bench-"));
  console.log(`Colloquy import benchmark: ${n.toLocaleString("en")} turns per format, corpus in ${dir}`);
  console.log(`node ${process.version}; each figure from a fresh child process. MB/s = input MB per CPU second of the child`);
  console.log(`(wall seconds shown too); peak = child's maxRSS minus an idle child's RSS; heap = heap still used by the result.\n`);
  const idle = measure("idle", "csv", SELF);
  const header = ["format", "input MB", "turns", "wall s", "cpu s", "MB/s", "turns/s", "peak MB", "heap MB", "| baseline", "MB/s", "peak MB", "readFile", "| target", "ok"];
  const rows: string[][] = [];
  let failed = false;
  try {
    for (const format of formats) {
      if (!FORMATS[format]) throw new Error(`unknown format ${format}; known: ${Object.keys(FORMATS).join(", ")}`);
      const path = await generate(dir, format, n);
      const mb = statSync(path).size / 2 ** 20;
      const imp = measure("import", format, path);
      const read = measure("readFile", format, path);
      const baseName = format === "csv" ? "Papa.parse" : format === "chat-json" || format === "native" ? "JSON.parse" : "readline";
      const base = measure(baseName, format, path);
      const peak = imp.maxRssMB - idle.maxRssMB;
      // Speeds use CPU time: on a shared machine wall time mostly measures the neighbours.
      const speed = mb / imp.cpu;
      const throughputTarget = format === "csv" || format === "chat-json" || format === "native";
      const target = throughputTarget ? ">= 20 MB/s" : "peak < input";
      const ok = imp.error ? "ERROR" : throughputTarget ? (speed >= 20 ? "yes" : "NO") : peak < mb ? "yes" : "NO";
      if (ok !== "yes") failed = true;
      rows.push([format, fmt(mb), imp.turns.toLocaleString("en"), fmt(imp.seconds, 2), fmt(imp.cpu, 2), fmt(speed), Math.round(imp.turns / imp.cpu).toLocaleString("en"), fmt(peak, 0), fmt(imp.heapMB, 0), `| ${baseName}`, fmt(mb / base.cpu, 0), fmt(base.maxRssMB - idle.maxRssMB, 0), fmt(mb / read.cpu, 0), `| ${target}`, ok]);
      if (format === "native") {
        // Streaming (sessions consumed one at a time) against the same line-based target.
        const st = measure("stream", format, path);
        const stPeak = st.maxRssMB - idle.maxRssMB;
        const stOk = st.error ? "ERROR" : stPeak < mb ? "yes" : "NO";
        rows.push(["native stream", fmt(mb), st.turns.toLocaleString("en"), fmt(st.seconds, 2), fmt(st.cpu, 2), fmt(mb / st.cpu), Math.round(st.turns / st.cpu).toLocaleString("en"), fmt(stPeak, 0), fmt(st.heapMB, 0), "| (same)", "", "", "", "| peak < input", stOk]);
        if (stOk !== "yes") failed = true;
        if (st.error) console.log(`  native stream: ${st.error}`);
      }
      if (imp.error) console.log(`  ${format}: ${imp.error}`);
      if (!process.argv.includes("--keep")) await rm(path, { force: true });
      printTable(header, rows);
    }
  } finally {
    if (!process.argv.includes("--keep")) await rm(dir, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

let printed = -1;
/** Rows print as soon as they are measured (fixed widths, so lines align without buffering). */
function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, i === 0 ? 13 : 8));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 9 || i === 13 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" ");
  if (printed < 0) console.log(line(header));
  for (const row of rows.slice(Math.max(0, printed))) console.log(line(row));
  printed = rows.length;
}

if (process.argv[2] === "--child") {
  await child(process.argv[3], process.argv[4], process.argv[5]);
} else {
  await main();
}
