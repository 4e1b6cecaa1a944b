// Helpers of the fault-injection suite: the real CLI as a child process, a study whose every
// turn has a code that can only come from its own words, and a checker of the codes files.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { build } from "esbuild";
import { makeSession, makeStudy, sessionOf, targetsOf } from "../coding/llm-fixtures.js";
import type { RecordedRequest, ScriptedReply } from "../support/openai-server.js";
import type { Session } from "../../src/transcript/schema.js";
import { BALES_CODES } from "../../src/coding/rules/bales.js";
import { createRandom, type Random } from "../../src/orchestrator/random.js";
import { failuresPath, readCodeHistory, readCodes, readFailures } from "../../src/coding/store.js";
import { readJsonl } from "../../src/util/fs.js";

const root = join(import.meta.dirname, "../..");

/**
 * The CLI bundled once per test file (esbuild, packages external): a child starts in ~1 s
 * instead of ~2.3 s under tsx, which is what makes dozens of kill-and-resume runs affordable.
 * Three folders below the repository, like src/<x>/<y>.ts, so codebooks/ and package.json are
 * found where the source looks for them.
 */
export async function bundleCli(): Promise<{ file: string; remove: () => Promise<void> }> {
  const dir = join(root, "node_modules", ".cache", "colloquy-reliability");
  const file = join(dir, `cli-${process.pid}-${Date.now()}.mjs`);
  await mkdir(dir, { recursive: true });
  await build({
    entryPoints: [join(root, "test/support/colloquy-bin.ts")],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "error",
  });
  return { file, remove: () => rm(file, { force: true }) };
}

export interface Child {
  process: ChildProcess;
  startedAt: number;
  /** Exit code (null when killed) and what it printed. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; endedAt: number }>;
}

/** Start the bundled CLI; `shell` wraps it (e.g. a ulimit) as `sh -c '<shell> exec node …'`. */
export function startCli(cli: string, args: string[], options: { shell?: string } = {}): Child {
  const env = { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", OPENAI_MODEL: "", COLLOQUY_MODEL: "", CI: "true" };
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const child = options.shell
    ? spawn("sh", ["-c", `${options.shell} exec ${[process.execPath, cli, ...args].map(quote).join(" ")}`], { stdio: ["ignore", "pipe", "pipe"], env })
    : spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return {
    process: child,
    startedAt: Date.now(),
    done: new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, endedAt: Date.now() }))),
  };
}

/** Bales IPA categories: a turn's code is one of these, chosen by a hash of its words. */
const CATEGORIES = BALES_CODES.filter((c) => c !== "none");

/** The one code the test server gives a turn: derived from its text alone. */
export function codeFor(text: string): string {
  return CATEGORIES[createHash("sha256").update(text).digest()[0] % CATEGORIES.length];
}

/** "s1/t0003": the turn a coding request is about (batch 1). */
export function turnOf(request: RecordedRequest): string {
  return `${sessionOf(request)}/${targetsOf(request)[0]?.turn}`;
}

/**
 * Answers each coding request with the code of the TARGET turn's own text, after `delay()` ms.
 * The rationale names the turn ("s1/t0003: …"), so a cached reply can be traced to its turn.
 */
export function codingHandler(delay: () => number = () => 0) {
  return (request: RecordedRequest): ScriptedReply => {
    const [target] = targetsOf(request);
    if (!target) return { status: 400, message: "no TARGET line in the request" };
    return { content: JSON.stringify({ code: codeFor(target.text), rationale: `${turnOf(request)}: ${target.text.slice(0, 30)}` }), delayMs: delay() };
  };
}

/** The response cache as it is on disk: turn ("s1/t0003") -> when its entry was written (mtime, ms). */
export async function cachedTurns(study: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const root = join(study, ".cache", "llm");
  for (const bucket of await readdir(root).catch(() => [] as string[])) {
    for (const name of await readdir(join(root, bucket)).catch(() => [] as string[])) {
      if (!name.endsWith(".json")) continue;
      const path = join(root, bucket, name);
      try {
        const entry = JSON.parse(await readFile(path, "utf8")) as { reply: { text: string } };
        const turn = (JSON.parse(entry.reply.text) as { rationale: string }).rationale.split(":")[0];
        out.set(turn, (await stat(path)).mtimeMs);
      } catch {
        // a foreign or damaged entry: not ours to trace
      }
    }
  }
  return out;
}

const WORDS = [
  "garden",
  "budget",
  "river",
  "ticket",
  "lamp",
  "window",
  "paper",
  "coffee",
  "train",
  "market",
  "bridge",
  "cloud",
  "pencil",
  "letter",
  "stone",
  "forest",
];

/** `sessions` x `turns` turns of distinct words (seeded), every one codeable. */
export function makeSessions(random: Random, sessions: number, turns: number): Session[] {
  return Array.from({ length: sessions }, (_, s) =>
    makeSession(
      `s${s + 1}`,
      Array.from({ length: turns }, (_, t) => `${random.pick(WORDS)} ${random.pick(WORDS)} ${random.pick(WORDS)} ${s}.${t}${random.chance(0.3) ? "?" : "."}`),
    ),
  );
}

export { createRandom, makeStudy };

export interface StudyCheck {
  /** Records in the codes file, repeats included (torn last line excluded). */
  lines: number;
  /** Turns ("s1/t0003") with a record in the codes file. */
  stored: string[];
  /** Records whose code is not the code of the turn they sit on. */
  wrongTurn: string[];
  /** Turns with more than one record in the file. */
  duplicates: string[];
  codedTurns: number;
  failures: number;
}

/** Read the study the way every command does (throws if a file is unreadable) and check each code. */
export async function checkStudy(study: string, sessions: readonly Session[], coder = "llm"): Promise<StudyCheck> {
  // The file's whole history (a turn stored twice shows as a duplicate), read as every command does.
  const records = await readCodeHistory(study, "bales-ipa", coder);
  const codes = await readCodes(study, "bales-ipa", coder);
  const failures = await readFailures(study, "bales-ipa", coder);
  await readJsonl(failuresPath(study, "bales-ipa", coder));
  const text = new Map<string, string>(sessions.flatMap((s) => s.turns.map((t) => [`${s.id}/${t.id}`, t.text] as [string, string])));
  const seen = new Map<string, number>();
  const wrongTurn: string[] = [];
  for (const record of records as Array<{ session: string; turn: string; codes?: string[] }>) {
    const key = `${record.session}/${record.turn}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    const words = text.get(key);
    if (words === undefined || record.codes?.[0] !== codeFor(words)) wrongTurn.push(`${key}: ${record.codes?.join(",")} (turn text: ${JSON.stringify(words)})`);
  }
  return {
    lines: records.length,
    stored: [...seen.keys()],
    wrongTurn,
    duplicates: [...seen].filter(([, n]) => n > 1).map(([k]) => k),
    codedTurns: codes.length,
    failures: failures.length,
  };
}

export async function fileText(path: string): Promise<string> {
  return readFile(path, "utf8").catch(() => "");
}
