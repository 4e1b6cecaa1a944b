/**
 * Benchmark of `colloquy code`: 10,000 turns against the local OpenAI-compatible test server
 * with 50 ms simulated latency at concurrency 16, through the real SDK, cache and job.
 * Prints, in one run:
 *   - wall time vs the ideal (turns x latency / concurrency) and their ratio (target <= 1.10)
 *   - the cached re-run time (target < 2 s; zero requests)
 *   - prompt tokens per coded turn, single vs batched (--batch 10)
 *   - the rules coder's throughput (turns/s)
 * Run: npx tsx bench/code.ts  [turns] (default 10000)
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import os, { loadavg } from "node:os";
import { loadCodebook } from "../src/coding/codebook/load.js";
import { runCodingJob } from "../src/coding/job.js";
import { createChatModel } from "../src/llm/client.js";
import { resolveModelConfig } from "../src/llm/config.js";
import { initStudy, loadSessions, saveSession } from "../src/study/study.js";
import { sessionSchema, type Session } from "../src/transcript/schema.js";
import { turnId } from "../src/transcript/ids.js";

const TURNS = Number(process.argv[2] ?? 10_000);
const LATENCY_MS = 50;
const CONCURRENCY = 16;
const TURNS_PER_SESSION = 100;
const BATCH = 10;

const PHRASES = [
  "I think we should start with the user interviews before anything else.",
  "What do you think about moving the deadline to Friday?",
  "Thanks, that's really helpful!",
  "No, I don't agree, the budget won't allow it.",
  "Could you summarise the options we have so far?",
  "Let's split the work: Nova drafts, Ava reviews.",
  "Haha, fair enough.",
  "The data shows a 20% drop in the second quarter.",
];

function makeSessions(): Session[] {
  const sessions: Session[] = [];
  for (let s = 0; s * TURNS_PER_SESSION < TURNS; s++) {
    const n = Math.min(TURNS_PER_SESSION, TURNS - s * TURNS_PER_SESSION);
    sessions.push(
      sessionSchema.parse({
        id: `s${String(s).padStart(3, "0")}`,
        participants: [
          { id: "ava", name: "Ava", kind: "human", role: "facilitator" },
          { id: "nova", name: "Nova", kind: "ai", role: "assistant" },
          { id: "sam", name: "Sam", kind: "human" },
        ],
        turns: Array.from({ length: n }, (_, i) => ({
          id: turnId(i),
          index: i,
          speaker: ["ava", "nova", "sam"][i % 3],
          text: `${PHRASES[(i * 7 + s) % PHRASES.length]} (${s}.${i})`,
        })),
      }),
    );
  }
  return sessions;
}

/** The server runs on a worker thread (see bench/code-server.ts). */
async function startServerWorker(latencyMs: number) {
  // Workers do not inherit tsx's loader hook on Node 20: register it inside the worker first.
  const entry = new URL("./code-server.ts", import.meta.url).href;
  const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { latencyMs } });
  const next = () => new Promise<any>((resolve) => worker.once("message", resolve));
  const { url } = (await next()) as { url: string };
  return {
    url,
    async chatCount(): Promise<number> {
      const reply = next();
      worker.postMessage({ type: "count" });
      return ((await reply) as { count: number }).count;
    },
    async close() {
      worker.postMessage({ type: "close" });
      await new Promise((resolve) => worker.once("exit", resolve));
    },
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main() {
  const root = await mkdtemp(join(tmpdir(), "colloquy-bench-code-"));
  const server = await startServerWorker(LATENCY_MS);
  try {
    const codebook = await loadCodebook("bales-ipa");
    const studies = { single: join(root, "single"), rerun: join(root, "rerun"), batched: join(root, "batched"), rules: join(root, "rules") };
    const sessions = makeSessions();
    for (const dir of Object.values(studies)) {
      await initStudy(dir);
      for (const s of sessions) await saveSession(dir, s);
    }
    const model = (study: string) =>
      createChatModel(resolveModelConfig({ env: {}, cli: { baseURL: server.url, model: "bench-model", concurrency: CONCURRENCY }, studyDir: study }));
    const run = async (study: string, extra: { batch?: number; coder?: "llm" | "rules" } = {}) => {
      const loaded = await loadSessions(study);
      const started = performance.now();
      const summary = await runCodingJob({ study, sessions: loaded, codebook, coder: extra.coder ?? "llm", model: model(study), batch: extra.batch });
      return { summary, ms: performance.now() - started };
    };

    const ideal = (TURNS * LATENCY_MS) / CONCURRENCY;
    const before = await server.chatCount();
    const cpuBefore = process.cpuUsage();
    const single = await run(studies.single);
    const cpu = process.cpuUsage(cpuBefore);
    const singleRequests = (await server.chatCount()) - before;
    const ratio = single.ms / ideal;

    // Cached re-run as a new process would see it: a copy of the study's cache in another
    // folder (so nothing is already in memory), no codes yet, every reply cached.
    await cp(join(studies.single, ".cache"), join(studies.rerun, ".cache"), { recursive: true });
    const beforeCached = await server.chatCount();
    const cached = await run(studies.rerun);
    const cachedRequests = (await server.chatCount()) - beforeCached;

    const batched = await run(studies.batched, { batch: BATCH });
    const rules = await run(studies.rules, { coder: "rules" });

    const ok = (pass: boolean) => (pass ? "OK" : "MISSED");
    console.log(`colloquy code benchmark: ${TURNS.toLocaleString("en-US")} turns, ${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}`);
    console.log(
      `  llm, single:   ${seconds(single.ms)} wall vs ideal ${seconds(ideal)}  ratio ${ratio.toFixed(3)} (target <= 1.10) ${ok(ratio <= 1.1)}  [${single.summary.coded} coded, ${single.summary.failed} failed, ${singleRequests} requests]`,
    );
    console.log(
      `                 client CPU ${((cpu.user + cpu.system) / 1000 / TURNS).toFixed(2)} ms per turn; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} on ${os.availableParallelism()} cores`,
    );
    console.log(
      `  cached re-run: ${seconds(cached.ms)} (target < 2 s) ${ok(cached.ms < 2000)}  [${cached.summary.coded} coded, ${cached.summary.cached} from cache, ${cachedRequests} requests]`,
    );
    console.log(
      `  prompt tokens per coded turn: single ${single.summary.promptTokensPerTurn?.toFixed(0)}, batched (--batch ${BATCH}) ${batched.summary.promptTokensPerTurn?.toFixed(0)}` +
        `  (${(single.summary.promptTokensPerTurn! / batched.summary.promptTokensPerTurn!).toFixed(1)}x fewer; batched run ${seconds(batched.ms)}, ${batched.summary.requests} requests)`,
    );
    console.log(
      `  rules coder:   ${Math.round(rules.summary.coded / (rules.ms / 1000)).toLocaleString("en-US")} turns/s (${rules.summary.coded} turns in ${seconds(rules.ms)})`,
    );
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
