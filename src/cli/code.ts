import { Option, type Command } from "commander";
import { loadCodebook } from "../coding/codebook/load.js";
import { dryRunCoding, formatCodingSummary, runCodingJob, type CodingJobOptions, type CodingSummary } from "../coding/job.js";
import { parseContext, type ContextWindow } from "../coding/llm/prompt.js";
import { createChatModel, type LlmClient } from "../llm/client.js";
import { displayURL, needsApiKey, resolveModelConfig } from "../llm/config.js";
import { listSessionIds, loadSessions, loadStudyConfig } from "../study/study.js";
import type { CodebookPlan } from "../study/config.js";
import { CliError } from "../util/errors.js";
import { io, printJson } from "./io.js";

interface CodeFlags {
  codebook?: string;
  coder?: "llm" | "rules";
  coderId?: string;
  model?: string;
  baseUrl?: string;
  concurrency?: number;
  context?: string;
  samples?: number;
  batch?: number;
  seed?: number;
  temperature?: number;
  timeout?: number;
  sessions?: string;
  cache: boolean;
  dryRun?: boolean;
  json?: boolean;
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

/** One codebook x coder to run. */
interface JobSpec {
  codebookRef: string;
  coder: "llm" | "rules";
  context?: ContextWindow;
  samples?: number;
}

/** From the flags, or every codebook plan of colloquy.json when --codebook is not given. */
function jobSpecs(flags: CodeFlags, plans: CodebookPlan[]): JobSpec[] {
  const context = flags.context !== undefined ? contextFlag(flags.context) : undefined;
  if (flags.codebook) {
    const plan = plans.find((p) => p.codebook === flags.codebook);
    const planContext = plan?.context ? { before: plan.context[0], after: plan.context[1] } : undefined;
    return [{ codebookRef: flags.codebook, coder: flags.coder ?? "rules", context: context ?? planContext, samples: flags.samples ?? plan?.samples }];
  }
  if (plans.length === 0) throw new CliError("no --codebook given and colloquy.json lists no codebooks: pass --codebook bales-ipa (or a path)");
  return plans.flatMap((plan) =>
    (flags.coder ? [flags.coder] : plan.coders).map((coder) => ({
      codebookRef: plan.codebook,
      coder,
      context: context ?? (plan.context ? { before: plan.context[0], after: plan.context[1] } : undefined),
      samples: flags.samples ?? plan.samples,
    })),
  );
}

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
    .description("Code every turn of a study's sessions with a codebook (offline rules, or an LLM on any OpenAI-compatible endpoint). Resumable; LLM replies are cached in the study.")
    .argument("<study>", "study folder")
    .option("--codebook <id|path>", "shipped codebook id (bales-ipa, pragmatic-style, ttct-creativity) or a codebook file; default: every codebook in colloquy.json")
    .addOption(new Option("--coder <coder>", "who codes: rules (offline, default) or llm").choices(["llm", "rules"]))
    .option("--coder-id <id>", 'coder id stored in the records (default "llm" or "rules"; e.g. llm:gpt-4o to compare models)')
    .option("--model <name>", "model name (default: colloquy.json model.model, $COLLOQUY_MODEL, $OPENAI_MODEL, gpt-4o-mini)")
    .option("--base-url <url>", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama (default: $OPENAI_BASE_URL or the OpenAI API)")
    .option("--concurrency <n>", "requests in flight at once (default 8)", positiveInt("--concurrency"))
    .option("--context <before:after>", "turns of the same session shown around the target (default 2:2)")
    .option("--samples <n>", "code each turn n times (seed varied) and store the majority / mean with the agreement", positiveInt("--samples"))
    .option("--batch <n>", "target turns per request, sharing one context window (default 1)", positiveInt("--batch"))
    .option("--seed <n>", "seed sent with each request (sample i uses seed + i)", number("--seed"))
    .option("--temperature <t>", "sampling temperature (default 0)", number("--temperature"))
    .option("--timeout <ms>", "per-request timeout in ms (default 120000)", positiveInt("--timeout"))
    .option("--sessions <ids>", "comma-separated session ids (default: all)")
    .option("--no-cache", "do not answer from the response cache (fresh replies are still stored)")
    .option("--dry-run", "print the exact prompt for one turn and the estimated requests and tokens, without calling the model")
    .option("--json", "print the summary as JSON")
    .action(async (study: string, flags: CodeFlags) => runCode(study, flags));
}

async function runCode(study: string, flags: CodeFlags): Promise<void> {
  const config = await loadStudyConfig(study);
  if (flags.baseUrl !== undefined) {
    try {
      new URL(flags.baseUrl);
    } catch {
      throw new CliError(`--base-url "${flags.baseUrl}" is not a URL; e.g. http://localhost:11434/v1`);
    }
  }
  const known = await listSessionIds(study);
  const wanted = flags.sessions?.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = (wanted ?? []).filter((id) => !known.includes(id));
  if (unknown.length > 0) throw new CliError(`--sessions: no session ${unknown.map((s) => `"${s}"`).join(", ")} in ${study} (it has ${known.length}: ${known.slice(0, 10).join(", ")}${known.length > 10 ? ", …" : ""})`);
  const sessions = await loadSessions(study, wanted);
  if (sessions.length === 0) throw new CliError(`${study} has no sessions yet: import some with \`colloquy import ${study} <files>\``);

  const specs = jobSpecs(flags, config.codebooks);
  const codebooks = await Promise.all(specs.map((s) => loadCodebook(s.codebookRef, study)));
  let model: LlmClient | undefined;
  let keyNote: string | undefined;
  if (specs.some((s) => s.coder === "llm")) {
    const modelConfig = resolveModelConfig({
      cli: {
        model: flags.model,
        baseURL: flags.baseUrl,
        concurrency: flags.concurrency,
        temperature: flags.temperature,
        seed: flags.seed,
        timeoutMs: flags.timeout,
      },
      study: config.model,
      studyDir: study,
    });
    model = createChatModel(modelConfig, {
      onRetry: ({ attempt, delayMs, error }) => io().reporter().warn(`${error.message}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`),
    });
    if (needsApiKey(modelConfig.baseURL) && !modelConfig.apiKey) {
      keyNote = `note: the real run needs an API key for ${displayURL(modelConfig.baseURL)}: export OPENAI_API_KEY=sk-... (or use a local model with --base-url http://localhost:11434/v1)`;
    }
    if (!flags.dryRun) {
      // Once, before any work: a missing key or a dead endpoint would otherwise fail every turn.
      const problem = await model.preflight();
      if (problem) throw new CliError(problem.message);
    }
  }

  const controller = new AbortController();
  const onSigint = () => {
    io().err("interrupted: writing the codes finished so far (run the same command again to continue)");
    controller.abort();
  };
  process.once("SIGINT", onSigint);
  const summaries: CodingSummary[] = [];
  const dryRuns: unknown[] = [];
  try {
    for (const [i, spec] of specs.entries()) {
      const options: CodingJobOptions = {
        study,
        sessions,
        codebook: codebooks[i],
        coder: spec.coder,
        coderId: flags.coderId,
        model: spec.coder === "llm" ? model : undefined,
        context: spec.context,
        samples: spec.samples,
        batch: flags.batch,
        seed: flags.seed ?? config.model.seed,
        noCache: !flags.cache,
        reporter: io().reporter(),
        signal: controller.signal,
      };
      if (flags.dryRun) {
        const plan = await dryRunCoding(options);
        dryRuns.push({ codebook: codebooks[i].id, coder: spec.coder, ...plan });
        if (!flags.json) printDryRun(codebooks[i].id, spec.coder, plan, model);
        continue;
      }
      const summary = await runCodingJob(options);
      summaries.push(summary);
      if (!flags.json) io().out(formatCodingSummary(summary));
      if (controller.signal.aborted || summary.stoppedBy) break;
    }
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
  if (flags.json) printJson(flags.dryRun ? { dryRun: dryRuns } : { jobs: summaries });
  if (flags.dryRun && keyNote) io().err(keyNote);
  const stopped = summaries.find((s) => s.stoppedBy);
  if (stopped) throw new CliError(`stopped coding ${stopped.codebook}: ${stopped.stoppedBy}`);
  const failed = summaries.filter((s) => s.failed > 0);
  if (failed.length > 0) {
    const files = failed.map((s) => s.failuresFile).join(", ");
    const count = failed.reduce((n, s) => n + s.failed, 0);
    throw new CliError(`${count} turn(s) could not be coded and were not stored as codes; the replies are in ${files}. Run the command again to retry them.`);
  }
  if (summaries.some((s) => s.aborted)) throw new CliError("interrupted before every turn was coded; run the same command again to continue", { exitCode: 130 });
}

function printDryRun(codebook: string, coder: string, plan: Awaited<ReturnType<typeof dryRunCoding>>, model: LlmClient | undefined): void {
  const out = io().out;
  const skipped = Object.entries(plan.skipped).map(([k, v]) => `${k} ${v}`).join(", ");
  out(`${codebook}/${coder}: ${plan.toCode} turn(s) to code, ${plan.alreadyCoded} already coded, ${Object.values(plan.skipped).reduce((a, b) => a + b, 0)} skipped${skipped ? ` (${skipped})` : ""}`);
  if (coder !== "llm") return;
  if (plan.example) {
    out(`Prompt for ${plan.example.session} ${plan.example.turns.join(", ")} (model ${model?.info.model} at ${displayURL(model?.config.baseURL)}):`);
    for (const message of plan.example.messages) out(`--- ${message.role} ---\n${message.content}`);
    out("--- end of prompt ---");
  }
  const cost = plan.estimatedCost === undefined ? "unknown (add model.prices to colloquy.json)" : `$${plan.estimatedCost.toFixed(4)}`;
  out(
    `Estimate for the whole job: ${plan.requests} request(s), ~${plan.promptTokens.toLocaleString("en-US")} prompt tokens (chars/4), ` +
      `~${plan.completionTokens.toLocaleString("en-US")} completion tokens, est. cost ${cost} before the cache; ${plan.cachedRequests} of the requests are already cached (free). No request was made.`,
  );
}
