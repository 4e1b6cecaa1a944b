/**
 * Codes files (issue 11, "code records stay compact"): size on disk and the time to read every
 * record of every coder, in the full-record form earlier versions wrote (one whole record per
 * line) and in the compact form (src/coding/codes-file.ts: one run header per append).
 *
 * The study: the pipeline benchmark's (bench/support/pipeline-study.ts: N turns, 20% coded by two
 * humans) coded by the rule coder with bales-ipa and pragmatic-style through the real coding job,
 * so the compact files are what `colloquy code` writes; or `--study <dir>`, any study (e.g. one
 * kept by `bench/pipeline.ts --keep`). The full-record copy is each record as the old writer put
 * it, one JSON line each.
 *
 * Timed (best of 5 rounds, after a warm-up round; each round runs every reader once, in turn):
 *   JSON.parse only   split and JSON.parse every line, nothing else: what the bytes cost [baseline]
 *   old reader        JSON.parse + a zod safeParse of every full record (readRecords before) [BASELINE]
 *   readCodeHistory   the store's reader today, on each form [measurement]
 * With `node --expose-gc` (NODE_OPTIONS=--expose-gc), also the heap the records hold.
 *
 * Run: npx tsx bench/codes-read.ts [turns] [--study <dir>]     (default 20000 turns)
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadCodebook } from "../src/coding/codebook/load.js";
import { runCodingJob } from "../src/coding/job.js";
import { codeRecordSchema, type CodeRecord } from "../src/coding/records.js";
import { codesPath, listCoders, readCodeHistory, replaceCodes } from "../src/coding/store.js";
import { loadSessions } from "../src/study/study.js";
import { readJsonl } from "../src/util/fs.js";
import { writePipelineStudy } from "./support/pipeline-study.js";
import { printTable } from "./support/table.js";

const args = process.argv.slice(2);
const TURNS = Number(args.find((a) => /^\d+$/.test(a)) ?? 20_000);
const given = args.includes("--study") ? args[args.indexOf("--study") + 1] : undefined;

const tmp = await mkdtemp(join(tmpdir(), "colloquy-bench-codes-"));
const oldStudy = join(tmp, "full-records");
const newStudy = given ?? join(tmp, "compact");

async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) bytes += (await stat(join(e.parentPath, e.name))).size;
  return bytes;
}

/** The readRecords of earlier versions: every line parsed, then a zod safeParse of every record. */
async function oldReader(path: string): Promise<CodeRecord[]> {
  const { records } = await readJsonl(path);
  return records.map((value, i) => {
    const parsed = codeRecordSchema.safeParse(value);
    if (!parsed.success) throw new Error(`${path}: record ${i + 1} is not a code record`);
    return parsed.data;
  });
}

async function parseOnly(path: string): Promise<unknown[]> {
  return (await readFile(path, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as unknown);
}

try {
  if (!given) {
    const t = performance.now();
    await writePipelineStudy(newStudy, TURNS);
    const sessions = await loadSessions(newStudy);
    for (const id of ["bales-ipa", "pragmatic-style"]) await runCodingJob({ study: newStudy, sessions, codebook: await loadCodebook(id), coder: "rules" });
    console.log(`generated ${TURNS} turns, coded by the rule coder with 2 codebooks (${((performance.now() - t) / 1000).toFixed(1)} s, not timed)`);
  }
  const files: { codebook: string; coder: string; old: string; compact: string }[] = [];
  for (const [codebook, coders] of Object.entries(await listCoders(newStudy))) {
    for (const coder of coders) {
      const records = await readCodeHistory(newStudy, codebook, coder);
      const old = codesPath(oldStudy, codebook, coder);
      await mkdir(dirname(old), { recursive: true });
      await writeFile(old, records.map((r) => JSON.stringify(codeRecordSchema.parse(r)) + "\n").join(""));
      let compact = codesPath(newStudy, codebook, coder);
      if (given) {
        // A study kept from any version: its records in the compact form, as replaceCodes writes them.
        compact = codesPath(join(tmp, "compact"), codebook, coder);
        await replaceCodes(join(tmp, "compact"), codebook, coder, records);
      }
      files.push({ codebook, coder, old, compact });
    }
  }

  // readCodeHistory takes a study, codebook and coder: each file's, by path.
  const owner = new Map(files.flatMap((f) => [f.old, f.compact].map((path) => [path, f] as const)));
  const store = (path: string) => readCodeHistory(dirname(dirname(dirname(path))), owner.get(path)!.codebook, owner.get(path)!.coder);

  const sessionsBytes = await folderBytes(join(given ?? newStudy, "sessions"));
  const oldBytes = await folderBytes(join(oldStudy, "codes"));
  let compactBytes = 0;
  for (const f of files) compactBytes += (await stat(f.compact)).size;

  const rows: string[][] = [["figure", "full records (before)", "compact (now)", "compact / full"]];
  const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;
  rows.push(["codes/ size [measurement]", mb(oldBytes), mb(compactBytes), `${((compactBytes / oldBytes) * 100).toFixed(0)}%`]);
  rows.push([
    "codes/ : sessions/ (" + mb(sessionsBytes) + ")",
    `${(oldBytes / sessionsBytes).toFixed(2)}x`,
    `${(compactBytes / sessionsBytes).toFixed(2)}x`,
    "-",
  ]);
  // The machine is shared: each round times every reader once, in turn, and each keeps its best
  // round, so all of them are measured under the same load.
  const readers = {
    parseOld: [parseOnly, "old"],
    parseNew: [parseOnly, "compact"],
    zod: [oldReader, "old"],
    storeOld: [store, "old"],
    storeNew: [store, "compact"],
  } as const;
  const timed = Object.fromEntries(Object.keys(readers).map((k) => [k, { seconds: Infinity, records: 0 }])) as Record<
    keyof typeof readers,
    { seconds: number; records: number }
  >;
  for (let round = 0; round < 6; round++) {
    for (const [name, [read, which]] of Object.entries(readers) as [keyof typeof readers, (typeof readers)[keyof typeof readers]][]) {
      const t = performance.now();
      let records = 0;
      for (const f of files) records += (await read(f[which])).length;
      // Round 0 warms up (JIT, file cache) and is not counted.
      if (round > 0) timed[name] = { seconds: Math.min(timed[name].seconds, (performance.now() - t) / 1000), records };
    }
  }
  const { parseOld, parseNew, zod, storeOld, storeNew } = timed;
  const s = (x: number) => `${x.toFixed(3)} s`;
  rows.push([`JSON.parse only, ${parseOld.records} lines / ${parseNew.records} lines [baseline]`, s(parseOld.seconds), s(parseNew.seconds), "-"]);
  rows.push([`old reader: JSON.parse + zod per record [BASELINE]`, s(zod.seconds), "- (cannot read it)", "-"]);
  rows.push([
    `readCodeHistory, ${storeNew.records} records [measurement]`,
    `${s(storeOld.seconds)} (${(storeOld.seconds / parseOld.seconds).toFixed(2)}x parse)`,
    `${s(storeNew.seconds)} (${(storeNew.seconds / parseNew.seconds).toFixed(2)}x parse)`,
    "-",
  ]);
  rows.push(["readCodeHistory (compact) vs old reader (full) [speed-up]", "-", `${(zod.seconds / storeNew.seconds).toFixed(1)}x faster`, "-"]);

  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    const held = async (read: (path: string) => Promise<unknown[]>, which: "old" | "compact") => {
      gc();
      const before = process.memoryUsage().heapUsed;
      const all: unknown[][] = [];
      for (const f of files) all.push(await read(f[which]));
      gc();
      const after = process.memoryUsage().heapUsed;
      if (all.length !== files.length) throw new Error("unreachable: keeps the records alive until measured");
      return (after - before) / 2 ** 20;
    };
    let heapOld = Infinity;
    let heapNew = Infinity;
    for (let round = 0; round < 3; round++) {
      heapOld = Math.min(heapOld, await held(oldReader, "old"));
      heapNew = Math.min(heapNew, await held(store, "compact"));
    }
    rows.push(["heap held by every record, least of 3 [measurement]", `${heapOld.toFixed(0)} MB (old reader)`, `${heapNew.toFixed(0)} MB`, "-"]);
  }
  printTable(rows);
} finally {
  await rm(tmp, { recursive: true, force: true });
}
