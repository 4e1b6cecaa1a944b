import { Option, type Command } from "commander";
import { studyArgument } from "./study-arg.js";
import type { CodeSummary } from "../stages/code.js";
import { parseContext, type ContextWindow } from "../coding/llm/prompt.js";
import { CliError } from "../util/errors.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";
import { modelFlags } from "./model-flags.js";
import { shorten } from "../util/text.js";
import { formatCurvePoint } from "./learning-curve.js";

interface CodeFlags {
  codebook?: string;
  coder?: "llm" | "rules" | "learned";
  train?: string;
  reviewBelow?: number;
  learningCurve?: boolean;
  allowBelowFloor?: boolean;
  coderId?: string;
  model?: string;
  baseUrl?: string;
  concurrency?: number;
  context?: string;
  samples?: number;
  batch?: number;
  examples?: string;
  shots?: number;
  examplesExcludeSession?: boolean;
  seed?: number;
  temperature?: number;
  timeout?: number;
  sessions?: string;
  cache: boolean;
  dryRun?: boolean;
  json?: boolean;
  flushEvery?: number;
  flushMs?: number;
  via?: "online" | "batch";
  batchSize?: number;
  batchBytes?: number;
}

const positiveInt = (flag: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${flag} must be a whole number of 1 or more, got "${value}"`);
  return n;
};

const number = (flag: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new CliError(`${flag} must be a number, got "${value}"`);
  return n;
};

const probability = (flag: string) => (value: string) => {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new CliError(`${flag} must be a probability above 0 and at most 1, got "${value}"`);
  return n;
};

function contextFlag(spec: string): ContextWindow {
  try {
    return parseContext(spec);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** `colloquy code`: code every not-yet-coded turn with a codebook, by the rules or an LLM. */
export function registerCode(program: Command): void {
  program
    .command("code")
    .description(
      "code every turn of a study's sessions with a codebook (offline rules, or an LLM on any OpenAI-compatible endpoint); resumable, LLM replies are cached in the study",
    )
    .addArgument(studyArgument())
    .option(
      "--codebook <id|path>",
      "shipped codebook id (bales-ipa, pragmatic-style, ttct-creativity) or a codebook file; default: every codebook in colloquy.json",
    )
    .addOption(
      new Option("--coder <coder>", "who codes: rules (offline, default), llm, or learned (offline, trained on your human codes: --train)").choices([
        "llm",
        "rules",
        "learned",
      ]),
    )
    .option("--train <coders>", "learned coder: the human coders to learn from, comma-separated (e.g. human:alice,human:bob)")
    .option(
      "--review-below <p>",
      "learned coder: list the coded turns whose predicted code has a probability below p (e.g. 0.6), for a person to check",
      probability("--review-below"),
    )
    .option(
      "--learning-curve",
      "learned coder: print agreement with the human codes against the number of training turns (25, 50, 100, …), to see when more hand-coding stops paying",
    )
    .option(
      "--allow-below-floor",
      "learned coder: code even when its cross-validated kappa is under 0.4 or the categories have too few human codes; the codes then say so",
    )
    .option("--coder-id <id>", 'coder id stored in the records (default "llm", "rules" or "learned"; e.g. llm:gpt-4o to compare models)')
    .option("--model <name>", "model name (default: colloquy.json model.model, $COLLOQUY_MODEL, $OPENAI_MODEL, gpt-4o-mini)")
    .option("--base-url <url>", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama (default: $OPENAI_BASE_URL or the OpenAI API)")
    .option("--concurrency <n>", "requests in flight at once (default 8)", positiveInt("--concurrency"))
    .option("--context <before:after>", "turns of the same session shown around the target (default 2:2)")
    .option("--samples <n>", "code each turn n times (seed varied) and store the majority / mean with the agreement", positiveInt("--samples"))
    .option("--batch <n>", "target turns per request, sharing one context window (default 1)", positiveInt("--batch"))
    .addOption(
      new Option(
        "--via <how>",
        "LLM coder: online (ask now, default) or batch (submit to the provider's Batch API at half price, answered within 24 h; then `colloquy batch collect`)",
      ).choices(["online", "batch"]),
    )
    .option("--batch-size <n>", "with --via batch: at most n requests per batch file (default 50000, the provider's limit)", positiveInt("--batch-size"))
    .addOption(
      new Option("--batch-bytes <n>", "with --via batch: at most n bytes per batch file (default 200000000)")
        .argParser(positiveInt("--batch-bytes"))
        .hideHelp(),
    )
    .option(
      "--examples <coders>",
      "LLM coder: show the turns most similar to the target that these coders coded, with their codes, as worked examples (e.g. human:alice,human:bob)",
    )
    .option("--shots <k>", "with --examples: worked examples per request (default 8)", positiveInt("--shots"))
    .option("--examples-exclude-session", "with --examples: never show a turn of the session being coded (for an honest evaluation against the same coders)")
    .option("--seed <n>", "seed sent with each request (sample i uses seed + i)", number("--seed"))
    .option("--temperature <t>", "sampling temperature (default 0)", number("--temperature"))
    .option("--timeout <ms>", "per-request timeout in ms (default 120000)", positiveInt("--timeout"))
    .option("--sessions <ids>", "comma-separated session ids (default: all)")
    .option("--no-cache", "do not answer from the response cache (fresh replies are still stored)")
    .option("--dry-run", "print the exact prompt for one turn and the estimated requests and tokens, without calling the model")
    .option("--json", "print the summary as JSON")
    // For fault-injection tests (test/reliability): how often code records are appended.
    .addOption(new Option("--flush-every <n>", "append code records in batches of n (default 50)").argParser(positiveInt("--flush-every")).hideHelp())
    .addOption(new Option("--flush-ms <ms>", "…or every ms milliseconds (default 500)").argParser(positiveInt("--flush-ms")).hideHelp())
    .action(async (study: string, flags: CodeFlags) => (flags.dryRun ? codeCommand(study, flags) : writing(study, "code", () => codeCommand(study, flags))));
}

async function codeCommand(study: string, flags: CodeFlags): Promise<void> {
  const { openStudy } = await import("../stages/context.js");
  const { incompleteCoding, runCode } = await import("../stages/code.js");
  const { formatCodingSummary } = await import("../coding/job.js");
  const { staleHint, studyStaleCodes } = await import("../coding/stale.js");
  const { loadSessions } = await import("../study/study.js");
  const model = modelFlags(flags);
  const context = await openStudy(study);
  const controller = new AbortController();
  const onSigint = () => {
    io().err("interrupted: writing the codes finished so far (run the same command again to continue)");
    controller.abort();
  };
  process.once("SIGINT", onSigint);
  let summary: CodeSummary;
  try {
    summary = await runCode(
      context,
      {
        codebook: flags.codebook,
        coder: flags.coder,
        train: flags.train
          ?.split(",")
          .map((c) => c.trim())
          .filter(Boolean),
        reviewBelow: flags.reviewBelow,
        learningCurve: flags.learningCurve,
        allowBelowFloor: flags.allowBelowFloor,
        coderId: flags.coderId,
        model,
        context: flags.context !== undefined ? contextFlag(flags.context) : undefined,
        samples: flags.samples,
        batch: flags.batch,
        examples: flags.examples
          ?.split(",")
          .map((c) => c.trim())
          .filter(Boolean),
        shots: flags.shots,
        examplesExcludeSession: flags.examplesExcludeSession,
        sessions: flags.sessions
          ?.split(",")
          .map((s) => s.trim())
          .filter(Boolean),
        noCache: !flags.cache,
        dryRun: flags.dryRun,
        signal: controller.signal,
        flushEvery: flags.flushEvery,
        flushMs: flags.flushMs,
        via: flags.via,
        batchLimits: { ...(flags.batchSize ? { maxRequests: flags.batchSize } : {}), ...(flags.batchBytes ? { maxBytes: flags.batchBytes } : {}) },
      },
      io().reporter(),
    );
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
  if ((flags.batchSize || flags.batchBytes) && flags.via !== "batch")
    throw new CliError("--batch-size goes with --via batch (--batch is the number of turns per request)");
  if (flags.via === "batch") {
    if (flags.json) printJson({ batches: summary.batches, dryRun: Boolean(flags.dryRun) });
    else for (const b of summary.batches) printBatchSubmit(b, study, Boolean(flags.dryRun));
    return;
  }
  if (flags.json) printJson(flags.dryRun ? { dryRun: summary.dryRuns } : { jobs: summary.jobs });
  else if (flags.dryRun) for (const plan of summary.dryRuns) printDryRun(plan, summary.model);
  else
    for (const job of summary.jobs) {
      io().out(formatCodingSummary(job));
      if (job.learned?.curve) printCurve(job.learned.curve);
      if (job.review) printReview(job.review, flags.reviewBelow!);
    }
  if (!flags.dryRun && !flags.json) {
    // Codes that describe words no longer in the study: kept, never used; say so after every run.
    const stale = await studyStaleCodes(study, await loadSessions(study));
    if (stale.length > 0) io().err(staleHint(study, stale.length));
  }
  if (flags.dryRun && summary.keyNote) io().err(summary.keyNote);
  const problem = incompleteCoding(summary);
  if (problem) throw problem;
}

const usd = (cost: number | undefined) => (cost === undefined ? "unknown (add model.prices to colloquy.json)" : `$${cost.toFixed(4)}`);

/** What `code --via batch` submitted (or on --dry-run would), with the price difference. */
function printBatchSubmit(b: CodeSummary["batches"][number], study: string, dryRun: boolean): void {
  const out = io().out;
  const c = b.counts;
  out(
    `${b.label}: ${c.toCode} turn(s) to code, ${c.alreadyCoded} already coded; ${c.requests} request(s) ${dryRun ? "would go" : "went"} to the batch, ${c.cached} answered by the response cache, ${c.pending} already in an open batch`,
  );
  out(
    `  ~${c.promptTokens.toLocaleString("en-US")} prompt + ~${c.completionTokens.toLocaleString("en-US")} completion tokens (chars/4): est. batch price ${usd(b.batchCost)} vs online ${usd(b.onlineCost)}`,
  );
  for (const batch of b.batches) out(`  batch ${batch.id}: ${batch.requests} request(s), ${(batch.bytes / 1e6).toFixed(1)} MB`);
  if (dryRun) out("  No request was made.");
  else if (b.batches.length > 0)
    out(
      `Recorded in ${study}/.colloquy/batches.json. Check with \`colloquy batch status ${study}\`, then \`colloquy batch collect ${study}\` (any machine with the study folder and the key).`,
    );
}

function printCurve(curve: NonNullable<NonNullable<CodeSummary["jobs"][number]["learned"]>["curve"]>): void {
  io().out("learning curve (session-grouped cross-validation, mean over seeds; kappa of the held-out folds against the human codes):");
  for (const p of curve) io().out(formatCurvePoint(p));
}

/** The learned coder's least certain turns, least certain first. */
function printReview(review: NonNullable<CodeSummary["jobs"][number]["review"]>, below: number): void {
  const out = io().out;
  out(`${review.length} coded turn(s) with a probability below ${below}, for a person to check (least certain first):`);
  for (const r of [...review].sort((a, b) => a.confidence - b.confidence).slice(0, 50)) {
    const value =
      r.codes?.join("+") ??
      Object.entries(r.scores ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(" ");
    const text = shorten(r.text, 80);
    out(`  ${r.session} ${r.turn}  ${value}  p=${r.confidence.toFixed(2)}  ${JSON.stringify(text)}`);
  }
  if (review.length > 50) out(`  … and ${review.length - 50} more (--json lists them all)`);
}

function printDryRun(plan: CodeSummary["dryRuns"][number], model: CodeSummary["model"]): void {
  const { codebook, coder } = plan;
  const out = io().out;
  const skipped = Object.entries(plan.skipped)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  out(
    `${codebook}/${coder}: ${plan.toCode} turn(s) to code, ${plan.alreadyCoded} already coded, ${Object.values(plan.skipped).reduce((a, b) => a + b, 0)} skipped${skipped ? ` (${skipped})` : ""}`,
  );
  if (coder !== "llm") return;
  if (plan.example) {
    out(`Prompt for ${plan.example.session} ${plan.example.turns.join(", ")} (model ${model?.name} at ${model?.endpoint}):`);
    for (const message of plan.example.messages) out(`--- ${message.role} ---\n${message.content}`);
    out("--- end of prompt ---");
  }
  const cost = plan.estimatedCost === undefined ? "unknown (add model.prices to colloquy.json)" : `$${plan.estimatedCost.toFixed(4)}`;
  out(
    `Estimate for the whole job: ${plan.requests} request(s), ~${plan.promptTokens.toLocaleString("en-US")} prompt tokens (chars/4), ` +
      `~${plan.completionTokens.toLocaleString("en-US")} completion tokens, est. cost ${cost} before the cache; ${plan.cachedRequests} of the requests are already cached (free). No request was made.`,
  );
}
