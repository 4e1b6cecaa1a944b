/**
 * Import benchmark (issue 2). Two parts, printed side by side in one run:
 *
 * 1. Corpus (the memory target): ~1,000,000 turns per line-based format written as many files
 *    (default 1,000 files x 1,000 turns, in condition folders), imported as a whole folder into a
 *    fresh study by `colloquy import` itself (in-process `main([... "import", dir, "--study", …])`:
 *    detection, the per-file stream, validation, saving), in a child process. Its peak memory is
 *    set against the total input size and against a baseline child that only reads the same files
 *    line by line (readline). Two verdicts: memory does not grow with the corpus (heap retained
 *    after the import <= 5 MB, and the whole corpus imports with node's old space capped at
 *    64 MB), and the default peak RSS is at most half the input ("well below the input size").
 *    The second is mostly V8's heap-growing slack: with plenty of memory V8 lets garbage pile up
 *    to ~100 MB before a full GC, whatever the corpus size (see the 20% and capped columns).
 * 2. Single file (the speed target): the same number of turns as ONE file per format, parsed by
 *    its importer in a child, next to fs.readFile and JSON.parse / Papa.parse / readline on the
 *    same file. Target: >= 20 MB/s for CSV and JSON. A single file is one session (or one file's
 *    sessions), which must be held whole to be validated and saved, so its memory is shown but
 *    the memory target is judged on the corpus.
 *
 *   npx tsx bench/import.ts                      # 1,000,000 turns per format (~100 MB each)
 *   npx tsx bench/import.ts --turns 200000       # quicker (200 files in the corpus)
 *   npx tsx bench/import.ts --only corpus --corpus-formats slack-paste,plain --per-file 500
 *   npx tsx bench/import.ts --only single --formats csv,chat-json --keep
 *   npx tsx bench/import.ts --only single --formats whatsapp,chat-jsonl --turns 200000
 *
 * Speeds are input MB per CPU second (user + system) of the child: the machine is shared, so
 * wall time mostly measures the neighbours (wall seconds are shown too). Peak memory is the
 * child's maxRSS (process.resourceUsage) minus the RSS of an idle child that loaded the same
 * modules, so it is what the work added. Exit code 1 when a target is missed.
 */
import { spawnSync } from "node:child_process";
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join, relative } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { fileInput } from "../src/ingest/input.js";
import { streamNativeJsonl } from "../src/ingest/formats/native.js";
import { importers } from "../src/ingest/registry.js";
import { mulberry32 } from "../src/util/random.js";

const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------- corpus generation

const WORDS = (
  "the a we should could budget venue agenda draft idea plan think agree maybe next week offsite team client design blue logo font " +
  "schedule ship launch review QA notes risk cost café naïve résumé 日本語 emoji 🙂 data model agent human turn time because however also"
).split(" ");
const PEOPLE = [
  { name: "Aisha Khan", role: "Client", ai: false },
  { name: "Product Manager", role: "AI Agent", ai: true },
  { name: "CEO", role: "AI Agent", ai: true },
  { name: "Bob de Vries", role: "Designer", ai: false },
  { name: "Developer", role: "AI Agent", ai: true },
];

const rng = mulberry32;

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
    if (r() < 0.15) text += '\nand, "quoted"; more ' + WORDS[Math.floor(r() * WORDS.length)];
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
const FORMATS: Record<string, { ext: string; write: (out: (s: string) => void, n: number, seed: number) => void }> = {
  "slack-paste": {
    ext: ".md",
    write(out, n, seed) {
      out("Condition: bench (generated)\n\n");
      for (const g of turns(n, seed)) out(`${g.person.name} (${g.person.role})\n${g.person.ai ? "APP  " : "  "}${clock12(g.t)}\n${g.text}\n`);
    },
  },
  csv: {
    ext: ".csv",
    write(out, n, seed) {
      out("session,speaker,role,time,text\n");
      let i = 0;
      for (const g of turns(n, seed)) out(`run-${Math.floor(i++ / 1000)},${g.person.name},${g.person.role},${hms(g.t)},${csvCell(g.text)}\n`);
    },
  },
  plain: {
    ext: ".txt",
    write(out, n, seed) {
      for (const g of turns(n, seed)) out(`[${hms(g.t, "")}] ${g.person.name}: ${g.text}\n`);
    },
  },
  vtt: {
    ext: ".vtt",
    write(out, n, seed) {
      out("WEBVTT\n\n");
      let i = 0;
      for (const g of turns(n, seed)) out(`${++i}\n${hms(g.t)} --> ${hms(g.t + 1, ".500")}\n<v ${g.person.name}>${g.text}</v>\n\n`);
    },
  },
  "chat-json": {
    ext: ".json",
    write(out, n, seed) {
      out("[\n");
      let first = true;
      for (const g of turns(n, seed)) {
        out(`${first ? "" : ",\n"}${JSON.stringify({ role: g.person.ai ? "assistant" : "user", name: g.person.name.replace(/ /g, "_"), content: g.text })}`);
        first = false;
      }
      out("\n]\n");
    },
  },
  whatsapp: {
    ext: ".txt",
    write(out, n, seed) {
      // Android, day-first, 24-hour: one message per generated turn, a new day every 86,400 s.
      for (const g of turns(n, seed)) {
        const day = new Date(Date.UTC(2024, 0, 1) + Math.floor(g.t) * 1000);
        out(
          `${pad(day.getUTCDate())}/${pad(day.getUTCMonth() + 1)}/${day.getUTCFullYear()}, ${pad(day.getUTCHours())}:${pad(day.getUTCMinutes())} - ${g.person.name}: ${g.text}\n`,
        );
      }
    },
  },
  "chat-jsonl": {
    ext: ".jsonl",
    write(out, n, seed) {
      // A fine-tuning file: ten messages per line.
      let line: object[] = [];
      const flush = () => {
        out(JSON.stringify({ messages: line }) + "\n");
        line = [];
      };
      for (const g of turns(n, seed)) {
        line.push({ role: g.person.ai ? "assistant" : "user", name: g.person.name.replace(/ /g, "_"), content: g.text });
        if (line.length === 10) flush();
      }
      if (line.length) flush();
    },
  },
  native: {
    ext: ".jsonl",
    write(out, n, seed) {
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
          turns: batch.map((g, i) => ({
            id: `t${String(i).padStart(4, "0")}`,
            index: i,
            speaker: ids.get(g.person.name),
            text: g.text,
            start: g.t,
            type: "message",
          })),
        };
        out(JSON.stringify(session) + "\n");
        batch = [];
      };
      for (const g of turns(n, seed)) {
        batch.push(g);
        if (batch.length === 1000) flush();
      }
      if (batch.length) flush();
    },
  },
};

/** Write n turns of `format` to `path` (buffered: generation should not dominate the run). */
async function writeFormat(path: string, format: string, n: number, seed: number): Promise<void> {
  const stream = createWriteStream(path, { encoding: "utf8", highWaterMark: 1 << 20 });
  let buffer = "";
  const out = (s: string) => {
    buffer += s;
    if (buffer.length > 1 << 20) {
      stream.write(buffer);
      buffer = "";
    }
  };
  FORMATS[format].write(out, n, seed);
  stream.write(buffer);
  await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

async function generate(dir: string, format: string, n: number): Promise<string> {
  const path = join(dir, `corpus-${format}${FORMATS[format].ext}`);
  await writeFormat(path, format, n, 1);
  return path;
}

/** Conditions a corpus's files are spread over: `<condition>/run-<k>.<ext>`, like a published dataset. */
const CORPUS_CONDITIONS = 10;

/**
 * `total` turns of `format` as files of `perFile` turns each (one session per file, a different
 * seed per file), spread over condition folders. Returns the folder and its total size in bytes.
 */
async function generateCorpus(dir: string, format: string, total: number, perFile: number): Promise<{ folder: string; bytes: number; files: number }> {
  const folder = join(dir, `corpus-${format}`);
  const files = Math.max(1, Math.ceil(total / perFile));
  let bytes = 0;
  for (let k = 0; k < files; k++) {
    const sub = join(folder, `condition-${k % CORPUS_CONDITIONS}`);
    if (k < CORPUS_CONDITIONS) await mkdir(sub, { recursive: true });
    const path = join(sub, `run-${k + 1}${FORMATS[format].ext}`);
    await writeFormat(path, format, Math.min(perFile, total - k * perFile), k + 1);
    bytes += statSync(path).size;
  }
  return { folder, bytes, files };
}

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory()) yield* walk(join(dir, entry.name));
    else yield join(dir, entry.name);
  }
}

// ---------------------------------------------------------------- child: one measurement

interface Measure {
  seconds: number;
  /** CPU seconds (user + system) of the child: robust when other processes share the cores. */
  cpu: number;
  turns: number;
  /** Sessions written (corpus import only). */
  sessions?: number;
  /** Corpus import only: heap still in use after a forced GC at the end minus before (what was retained). */
  liveMB?: number;
  maxRssMB: number;
  heapMB: number;
  error?: string;
}

async function child(mode: string, format: string, path: string, study?: string): Promise<void> {
  // The CLI is loaded before the clock starts, in "idle-cli" too, so module memory cancels out.
  const cli =
    mode === "corpus" || mode === "idle-cli"
      ? { ...(await import("../src/cli/main.js")), ...(await import("../src/cli/io.js")), ...(await import("../src/util/reporter.js")) }
      : undefined;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let turnCount = 0;
  let sessions: number | undefined;
  let keep: unknown;
  try {
    if (mode === "idle" || mode === "idle-cli") {
      // nothing: the RSS of a child that loaded the modules
    } else if (mode === "corpus") {
      // Exactly `colloquy import <folder> --study <study>`: format detection, path pattern, the
      // per-file stream, validation and atomic saves. Only the summary line is kept.
      let summary = "";
      let errors = "";
      const io = {
        out: (t: string) => void (t.startsWith("Imported ") ? (summary = t) : undefined),
        err: (t: string) => void (errors += t),
        reporter: () => cli!.silentReporter,
      };
      const code = await cli!.withIo(io, () =>
        cli!.main(["node", "colloquy", "import", ...path.split(delimiter), "--study", study!, "--path-pattern", "{condition}/*"]),
      );
      const m = /Imported (\d+) session\(s\), (\d+) turns/.exec(summary);
      if (code !== 0 || !m) throw new Error(`colloquy import exited ${code}: ${errors.trim() || summary}`);
      sessions = Number(m[1]);
      turnCount = Number(m[2]);
    } else if (mode === "corpus-readline") {
      // Baseline: every file of the corpus read line by line, nothing kept.
      for await (const file of walk(path)) {
        const rl = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
        for await (const _ of rl) turnCount++;
      }
    } else if (mode === "readFile") {
      keep = await readFile(path, "utf8");
    } else if (mode === "JSON.parse") {
      const text = await readFile(path, "utf8");
      keep =
        format === "native"
          ? text
              .split("\n")
              .filter(Boolean)
              .map((l) => JSON.parse(l) as unknown)
          : JSON.parse(text);
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
  const maxRssMB = process.resourceUsage().maxRSS / 1024;
  let liveMB: number | undefined;
  if (gc && mode === "corpus") {
    gc();
    liveMB = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
  }
  const m: Measure = { seconds, cpu, turns: turnCount, ...(sessions !== undefined ? { sessions, liveMB } : {}), maxRssMB, heapMB };
  process.stdout.write(JSON.stringify(m));
}

/**
 * One measurement in a fresh child. Single-file parses get a large heap limit (a 100 MB file is
 * held whole); corpus children run with node's defaults, as `colloquy import` does.
 */
function measure(mode: string, format: string, path: string, study?: string, flags: string[] = []): Measure {
  // --expose-gc only lets the corpus child measure what it retained once it is done (after maxRSS is read).
  const heap = mode.startsWith("corpus") || mode === "idle-cli" ? ["--expose-gc"] : ["--max-old-space-size=8192"];
  const run = spawnSync(process.execPath, [...process.execArgv, ...heap, ...flags, SELF, "--child", mode, format, path, ...(study ? [study] : [])], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  try {
    return JSON.parse(run.stdout) as Measure;
  } catch {
    return {
      seconds: 0,
      cpu: 0,
      turns: 0,
      maxRssMB: 0,
      heapMB: 0,
      error: (run.stderr || run.stdout || `exit ${run.status}`).trim().split("\n").slice(-3).join(" "),
    };
  }
}

// ---------------------------------------------------------------- main

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "-");
const MB = 2 ** 20;

/** Line-based formats: the memory target applies to them. */
const LINE_FORMATS = ["slack-paste", "plain", "vtt", "csv"];
/** "Well below the input size": peak memory of a corpus import at most this share of the input. */
const MEMORY_SHARE = 0.5;
/** Heap a finished corpus import may still hold (after a forced GC): more means it accumulates per file. */
const LIVE_LIMIT_MB = 5;
const SPEED_TARGET = 20;
/** Share of the corpus imported a second time, to show peak memory does not grow with the corpus. */
const SUBSET = 0.2;
/**
 * Old-space cap of a third import of the whole corpus. V8 lets the heap grow to a few times the
 * live set before a full GC, so the default peak is mostly slack; completing under this cap
 * shows what the import needs (the idle CLI alone holds ~25 MB of heap).
 */
const CAP_MB = 64;

interface Verdict {
  target: string;
  figure: string;
  pass: boolean;
}

async function corpusSection(dir: string, n: number, perFile: number, formats: string[], verdicts: Verdict[]): Promise<void> {
  const files = Math.ceil(n / perFile);
  console.log(
    `\n== Corpus: ${n.toLocaleString("en")} turns per format as ${files.toLocaleString("en")} files of ${perFile.toLocaleString("en")} turns, imported as one folder by \`colloquy import\` into a fresh study`,
  );
  console.log(`   peak = maxRSS of the importing child minus an idle child that loaded the CLI; target: peak <= ${MEMORY_SHARE * 100}% of the input`);
  const idleCli = measure("idle-cli", "-", SELF);
  const idle = measure("idle", "-", SELF);
  console.log(`   live = heap retained after the import (forced GC); peak ${SUBSET * 100}% = peak importing ${SUBSET * 100}% of the files (same command): flat means memory does not grow with the corpus;
   peak ${CAP_MB}M heap = the whole corpus again with node --max-old-space-size=${CAP_MB} (ERROR = it needed more)`);
  const header = [
    "format",
    "files",
    "input MB",
    "sessions",
    "turns",
    "wall s",
    "cpu s",
    "MB/s",
    "peak MB",
    "peak/input",
    "live MB",
    `peak ${SUBSET * 100}%`,
    `peak ${CAP_MB}M heap`,
    "| readline",
    "MB/s",
    "peak MB",
    "| target",
    "peak",
  ];
  const table = new Table(header, [0, 13, 16]);
  for (const format of formats) {
    if (!FORMATS[format]) throw new Error(`unknown format ${format}; known: ${Object.keys(FORMATS).join(", ")}`);
    const corpus = await generateCorpus(dir, format, n, perFile);
    const study = await mkdtemp(join(tmpdir(), "colloquy-bench-study-"));
    const mb = corpus.bytes / MB;
    const subsetStudy = await mkdtemp(join(tmpdir(), "colloquy-bench-study-"));
    let imp: Measure;
    let part: Measure;
    let capped: Measure;
    try {
      imp = measure("corpus", format, corpus.folder, study);
      const some = Array.from({ length: Math.max(1, Math.round(SUBSET * CORPUS_CONDITIONS)) }, (_, c) => join(corpus.folder, `condition-${c}`));
      part = measure("corpus", format, some.join(delimiter), subsetStudy);
      await rm(subsetStudy, { recursive: true, force: true });
      capped = measure("corpus", format, corpus.folder, subsetStudy, [`--max-old-space-size=${CAP_MB}`]);
    } finally {
      await rm(study, { recursive: true, force: true });
      await rm(subsetStudy, { recursive: true, force: true });
    }
    const base = measure("corpus-readline", format, corpus.folder);
    const peak = imp.maxRssMB - idleCli.maxRssMB;
    const basePeak = base.maxRssMB - idle.maxRssMB;
    const complete = !imp.error && imp.turns === n;
    const pass = complete && peak <= MEMORY_SHARE * mb;
    const bounded = complete && !capped.error && capped.turns === n && (imp.liveMB ?? Infinity) <= LIVE_LIMIT_MB;
    verdicts.push({
      target: `corpus ${format}: memory does not grow with the corpus (nothing retained per file: live <= ${LIVE_LIMIT_MB} MB after the import; completes with the heap capped at ${CAP_MB} MB)`,
      figure: capped.error
        ? `capped run failed: ${capped.error}`
        : `live ${fmt(imp.liveMB ?? NaN, 1)} MB; capped peak ${fmt(capped.maxRssMB - idleCli.maxRssMB, 0)} MB (${capped.turns.toLocaleString("en")} turns)`,
      pass: bounded,
    });
    verdicts.push({
      target: `corpus ${format}: peak memory <= ${MEMORY_SHARE * 100}% of input`,
      figure: imp.error
        ? `error: ${imp.error}`
        : `${fmt(peak, 0)} MB of ${fmt(mb, 0)} MB (${fmt((100 * peak) / mb, 0)}%)${complete ? "" : `; imported ${imp.turns} of ${n} turns`}`,
      pass,
    });
    if (capped.error) console.log(`   ${format} with --max-old-space-size=${CAP_MB}: ${capped.error}`);
    table.row([
      format,
      String(corpus.files),
      fmt(mb),
      String(imp.sessions ?? "-"),
      imp.turns.toLocaleString("en"),
      fmt(imp.seconds, 1),
      fmt(imp.cpu, 1),
      fmt(mb / imp.cpu),
      fmt(peak, 0),
      `${fmt((100 * peak) / mb, 0)}%`,
      fmt(imp.liveMB ?? NaN, 0),
      fmt(part.maxRssMB - idleCli.maxRssMB, 0),
      capped.error ? "ERROR" : fmt(capped.maxRssMB - idleCli.maxRssMB, 0),
      "| readline",
      fmt(mb / base.cpu, 0),
      fmt(basePeak, 0),
      `| <= ${MEMORY_SHARE * 100}%`,
      pass ? "PASS" : "FAIL",
    ]);
    if (imp.error) console.log(`   ${format}: ${imp.error}`);
    if (!process.argv.includes("--keep")) await rm(corpus.folder, { recursive: true, force: true });
    else console.log(`   kept ${relative(process.cwd(), corpus.folder)}`);
  }
}

async function singleSection(dir: string, n: number, formats: string[], verdicts: Verdict[]): Promise<void> {
  console.log(`\n== Single file: ${n.toLocaleString("en")} turns per format in ONE file`);
  console.log(`   MEASUREMENT: \`colloquy import <file> --study <fresh>\` end to end (detection, parse, validation, atomic saves); the target is judged on it`);
  console.log(`   BASELINES: the importer's parse alone (no saving), the format's plain parser (Papa.parse / JSON.parse / readline), fs.readFile`);
  console.log(`   MB/s = input MB per CPU second of the child; peak = child's maxRSS minus an idle child's; heap = heap still used by the parse`);
  const idle = measure("idle", "csv", SELF);
  const idleCli = measure("idle-cli", "csv", SELF);
  const header = [
    "format",
    "input MB",
    "turns",
    "command s",
    "cpu s",
    "MB/s",
    "peak MB",
    "| importer parse",
    "MB/s",
    "peak MB",
    "heap MB",
    "| plain parser",
    "MB/s",
    "readFile",
    "| target",
    "result",
  ];
  const table = new Table(header, [0, 7, 11, 14]);
  for (const format of formats) {
    if (!FORMATS[format]) throw new Error(`unknown format ${format}; known: ${Object.keys(FORMATS).join(", ")}`);
    const path = await generate(dir, format, n);
    const mb = statSync(path).size / MB;
    const study = join(dir, `single-study-${format}`);
    const cmd = measure("corpus", format, path, study);
    await rm(study, { recursive: true, force: true });
    const imp = measure("import", format, path);
    const read = measure("readFile", format, path);
    const baseName = format === "csv" ? "Papa.parse" : format === "chat-json" || format === "native" ? "JSON.parse" : "readline";
    const base = measure(baseName, format, path);
    const peak = imp.maxRssMB - idle.maxRssMB;
    // Speeds use CPU time: on a shared machine wall time mostly measures the neighbours.
    const speed = mb / cmd.cpu;
    const speedTarget = format === "csv" || format === "chat-json" || format === "native";
    let target = "(speed only)";
    let result = cmd.error ? "ERROR" : "-";
    if (speedTarget) {
      target = `>= ${SPEED_TARGET} MB/s`;
      const pass = !cmd.error && speed >= SPEED_TARGET;
      result = pass ? "PASS" : "FAIL";
      verdicts.push({
        target: `single ${format}: colloquy import >= ${SPEED_TARGET} MB/s per CPU second`,
        figure: cmd.error ? `error: ${cmd.error}` : `${fmt(speed)} MB/s (importer parse alone ${fmt(mb / imp.cpu)} MB/s)`,
        pass,
      });
    }
    table.row([
      format,
      fmt(mb),
      (cmd.turns || imp.turns).toLocaleString("en"),
      fmt(cmd.seconds, 2),
      fmt(cmd.cpu, 2),
      fmt(speed),
      fmt(cmd.maxRssMB - idleCli.maxRssMB, 0),
      "|",
      fmt(mb / imp.cpu),
      fmt(peak, 0),
      fmt(imp.heapMB, 0),
      `| ${baseName}`,
      fmt(mb / base.cpu, 0),
      fmt(mb / read.cpu, 0),
      `| ${target}`,
      result,
    ]);
    if (cmd.error) console.log(`   ${format} (command): ${cmd.error}`);
    if (format === "native") {
      // Streaming (sessions consumed one at a time) on the same file.
      const st = measure("stream", format, path);
      const stPeak = st.maxRssMB - idle.maxRssMB;
      table.row([
        "native stream parse",
        fmt(mb),
        st.turns.toLocaleString("en"),
        "",
        "",
        "",
        "",
        "|",
        fmt(mb / st.cpu),
        fmt(stPeak, 0),
        fmt(st.heapMB, 0),
        "| (same)",
        "",
        "",
        "| (memory)",
        st.error ? "ERROR" : "-",
      ]);
      if (st.error) console.log(`   native stream: ${st.error}`);
    }
    if (imp.error) console.log(`   ${format}: ${imp.error}`);
    if (!process.argv.includes("--keep")) await rm(path, { force: true });
  }
}

async function main(): Promise<void> {
  const n = Number(arg("--turns") ?? 1_000_000);
  const perFile = Number(arg("--per-file") ?? 1000);
  const only = arg("--only");
  if (!(n > 0) || !(perFile > 0) || (only && only !== "corpus" && only !== "single")) {
    throw new Error("usage: npx tsx bench/import.ts [--turns N] [--per-file N] [--only corpus|single] [--formats a,b] [--corpus-formats a,b] [--keep]");
  }
  const formats = (arg("--formats") ?? Object.keys(FORMATS).join(",")).split(",");
  const corpusFormats = (arg("--corpus-formats") ?? LINE_FORMATS.join(",")).split(",");
  const dir = await mkdtemp(join(tmpdir(), "colloquy-bench-"));
  console.log(`Colloquy import benchmark: ${n.toLocaleString("en")} turns per format; node ${process.version}; scratch folder ${dir}`);
  console.log(`Every figure comes from a fresh child process; MB/s are input MB per CPU second of that child (wall seconds shown too).`);
  const verdicts: Verdict[] = [];
  try {
    if (only !== "single") await corpusSection(dir, n, perFile, corpusFormats, verdicts);
    if (only !== "corpus") await singleSection(dir, n, formats, verdicts);
  } finally {
    if (!process.argv.includes("--keep")) await rm(dir, { recursive: true, force: true });
  }
  console.log("\n== Targets (issue 2)");
  for (const v of verdicts) console.log(`   ${v.pass ? "PASS" : "FAIL"}  ${v.target}: ${v.figure}`);
  if (verdicts.some((v) => !v.pass)) process.exitCode = 1;
}

/** Rows print as soon as they are measured (fixed widths, so lines align without buffering). */
class Table {
  private readonly widths: number[];
  constructor(
    header: string[],
    /** Columns padded on the right (text); the rest are numbers, padded on the left. */
    private readonly leftAligned: number[],
  ) {
    this.widths = header.map((h, i) => Math.max(h.length, i === 0 ? 13 : 8));
    console.log(this.line(header));
  }
  row(cells: string[]): void {
    console.log(this.line(cells));
  }
  private line(cells: string[]): string {
    return cells.map((c, i) => (this.leftAligned.includes(i) ? c.padEnd(this.widths[i]!) : c.padStart(this.widths[i]!))).join(" ");
  }
}

if (process.argv[2] === "--child") {
  await child(process.argv[3]!, process.argv[4]!, process.argv[5]!, process.argv[6]);
} else {
  await main();
}
