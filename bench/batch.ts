/**
 * Benchmark of batch coding: `colloquy code --coder llm --via batch` on 100,000 turns (bales-ipa,
 * the longest shipped prompt) against the local OpenAI-compatible test server (on a worker
 * thread, as the provider would be another machine), then `colloquy batch collect`.
 * Each command runs as its own process (from source through tsx, so ~1 s of start-up is
 * included), timed end to end with its peak RSS (bench/support/peak-rss.mjs).
 * Prints:
 *   - submit (build + write + upload the request files): seconds, peak MB; targets < 20 s, < 300 MB
 *   - collect (download + response cache + codes):        seconds, peak MB; targets < 20 s, < 300 MB
 *   each with whether its targets hold (on the wall time), and the CPU time (user + system) of each
 *   - baseline: `colloquy code --coder rules` on the same turns (offline coding, no LLM)
 * The provider's own work (answering the batch) happens between the two and is not timed.
 * Run: npx tsx bench/batch.ts [turns] (default 100000). Data: synthetic sessions we write here.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { initStudy, saveSession } from "../src/study/study.js";
import { sessionSchema } from "../src/transcript/schema.js";
import { turnId } from "../src/transcript/ids.js";

const TURNS = Number(process.argv[2] ?? 100_000);
const PER_SESSION = 200;
const ROOT = join(import.meta.dirname, "..");
const PHRASES = [
  "I think we should start with the user interviews before anything else.",
  "What do you think about moving the deadline to Friday?",
  "Thanks, that's really helpful!",
  "No, I don't agree, the budget won't allow it.",
  "Could you summarise the options we have so far?",
  "The data shows a 20% drop in the second quarter.",
];

async function makeStudy(dir: string): Promise<void> {
  await initStudy(dir, {});
  for (let s = 0; s * PER_SESSION < TURNS; s++) {
    const n = Math.min(PER_SESSION, TURNS - s * PER_SESSION);
    await saveSession(
      dir,
      sessionSchema.parse({
        id: `s${String(s).padStart(4, "0")}`,
        participants: [
          { id: "ava", name: "Ava", kind: "human" },
          { id: "nova", name: "Nova", kind: "ai" },
        ],
        turns: Array.from({ length: n }, (_, i) => ({
          id: turnId(i),
          index: i,
          speaker: i % 2 ? "nova" : "ava",
          text: `${PHRASES[(i * 5 + s) % PHRASES.length]} (${s}.${i})`,
        })),
      }),
    );
  }
}

async function startServer() {
  const entry = new URL("./code-server.ts", import.meta.url).href;
  const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { latencyMs: 0 } });
  const { url } = await new Promise<{ url: string }>((resolve) => worker.once("message", resolve));
  return { url, close: () => worker.postMessage({ type: "close" }) };
}

async function colloquy(args: string[], rssFile: string): Promise<{ seconds: number; cpuSeconds: number; peakMB: number; out: string }> {
  const preload = pathToFileURL(join(ROOT, "bench/support/peak-rss.mjs")).href;
  const t0 = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "--import", preload, join(ROOT, "test/support/colloquy-bin.ts"), ...args], {
    cwd: ROOT,
    env: { ...process.env, CI: "true", COLLOQUY_BENCH_RSS_FILE: rssFile, OPENAI_API_KEY: "" },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`colloquy ${args.join(" ")} exited ${code}\n${out.slice(-2000)}`);
  const usage = JSON.parse(await readFile(rssFile, "utf8")) as { maxRSS: number; user: number; system: number };
  return { seconds, cpuSeconds: (usage.user + usage.system) / 1e6, peakMB: usage.maxRSS / 1024, out };
}

const dir = await mkdtemp(join(tmpdir(), "colloquy-bench-batch-"));
const server = await startServer();
try {
  const study = join(dir, "study");
  await makeStudy(study);
  const rss = join(dir, "rss.json");
  const endpoint = ["--base-url", server.url, "--model", "gpt-4o-mini"];
  const rules = await colloquy(["code", study, "--codebook", "bales-ipa", "--coder", "rules"], rss);
  const submit = await colloquy(["code", study, "--codebook", "bales-ipa", "--coder", "llm", "--via", "batch", ...endpoint], rss);
  // The provider answers the batches (first status starts them, the second waits for them).
  await colloquy(["batch", "status", study, "--base-url", server.url], rss);
  await colloquy(["batch", "status", study, "--base-url", server.url], rss);
  const collect = await colloquy(["batch", "collect", study, "--base-url", server.url], rss);
  const coded = /coded ([\d,]+), failed ([\d,]+)/.exec(collect.out);
  // CPU time (user + system) beside the wall time: on a loaded machine the wall time mostly measures the load.
  const fmt = (m: { seconds: number; cpuSeconds: number; peakMB: number }) =>
    `${m.seconds.toFixed(1)} s (CPU ${m.cpuSeconds.toFixed(1)} s), peak ${m.peakMB.toFixed(0)} MB`;
  const verdict = (m: { seconds: number; peakMB: number }) =>
    `target < 20 s, < 300 MB: ${m.seconds < 20 && m.peakMB < 300 ? "holds" : `MISSED (${[m.seconds >= 20 ? "time" : "", m.peakMB >= 300 ? "memory" : ""].filter(Boolean).join(", ")})`}`;
  console.log(`batch coding of ${TURNS.toLocaleString("en-US")} turns (bales-ipa, ~13 kB prompt each), local test server:`);
  console.log(`  submit  (build + write + upload request files): ${fmt(submit)}   ${verdict(submit)}`);
  console.log(
    `  ${
      submit.out
        .split("\n")
        .find((l) => l.includes("went to the batch"))
        ?.trim() ?? ""
    }`,
  );
  console.log(
    `  collect (download + response cache + codes):    ${fmt(collect)}   ${verdict(collect)}   [${coded ? `coded ${coded[1]}, failed ${coded[2]}` : "no summary"}]`,
  );
  console.log(`  baseline: colloquy code --coder rules (offline) on the same turns: ${fmt(rules)}`);
} finally {
  server.close();
  await rm(dir, { recursive: true, force: true });
}
