import type { Command } from "commander";
import { studyArgument } from "./study-arg.js";
import type { BatchStatusLine } from "../stages/batch.js";
import type { ModelCliOptions } from "../llm/config.js";
import { CliError } from "../util/errors.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";
import { modelFlags } from "./model-flags.js";

interface BatchFlags {
  baseUrl?: string;
  json?: boolean;
}

/** `colloquy batch status|collect|cancel <study>`: the batches `colloquy code --via batch` submitted. */
export function registerBatch(program: Command): void {
  const batch = program
    .command("batch")
    .description(
      "check, collect or cancel the LLM batches a study submitted (colloquy code --via batch); works from any process or machine with the study folder",
    );
  const endpoint = (command: Command) =>
    command
      .addArgument(studyArgument())
      .option("--base-url <url>", "the endpoint the batches were sent to (default: colloquy.json model.baseURL, $OPENAI_BASE_URL or the OpenAI API)")
      .option("--json", "print the result as JSON");
  endpoint(batch.command("status").description("ask the provider how each open batch is doing")).action((study: string, flags: BatchFlags) =>
    writing(study, "batch status", () => status(study, flags)),
  );
  endpoint(
    batch
      .command("collect")
      .description(
        "download finished batches, store their replies in the response cache and the codes (re-asking invalid replies online); failures are listed",
      ),
  ).action((study: string, flags: BatchFlags) => writing(study, "batch collect", () => collect(study, flags)));
  endpoint(batch.command("cancel").description("cancel every open batch (collect afterwards keeps what was answered before)")).action(
    (study: string, flags: BatchFlags) => writing(study, "batch cancel", () => cancel(study, flags)),
  );
}

/** The endpoint the batches went to: only --base-url (the model and settings are in each batch). */
const cli = (flags: BatchFlags): ModelCliOptions => ({ baseURL: modelFlags(flags).baseURL });

function printLines(lines: BatchStatusLine[]): void {
  const out = io().out;
  if (lines.length === 0) out("no batches: submit some with `colloquy code <study> --coder llm --via batch`");
  for (const l of lines) {
    const counts = l.counts ? ` ${l.counts.completed}/${l.counts.total} answered, ${l.counts.failed} failed` : "";
    out(
      `${l.id ?? "(not created yet)"}  ${l.label}  ${l.state}${l.status ? ` (${l.status})` : ""}  ${l.requests} request(s)${counts}  submitted ${l.createdAt}`,
    );
    for (const e of l.errors) out(`  error: ${e}`);
  }
}

async function status(study: string, flags: BatchFlags): Promise<void> {
  const { openStudy } = await import("../stages/context.js");
  const { batchStatus } = await import("../stages/batch.js");
  const lines = await batchStatus(await openStudy(study), cli(flags), io().reporter());
  if (flags.json) printJson({ batches: lines });
  else printLines(lines);
}

async function cancel(study: string, flags: BatchFlags): Promise<void> {
  const { openStudy } = await import("../stages/context.js");
  const { cancelBatches } = await import("../stages/batch.js");
  const lines = await cancelBatches(await openStudy(study), cli(flags), io().reporter());
  if (flags.json) return printJson({ batches: lines });
  printLines(lines);
  if (lines.length > 0) io().out(`Run \`colloquy batch collect ${study}\` once they are cancelled to keep what was answered before.`);
}

async function collect(study: string, flags: BatchFlags): Promise<void> {
  const { openStudy } = await import("../stages/context.js");
  const { collectBatches } = await import("../stages/batch-collect.js");
  const { formatCodingSummary } = await import("../coding/job.js");
  const { incompleteCoding } = await import("../stages/code.js");
  const { failedTopicRuns } = await import("../stages/topics.js");
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once("SIGINT", onSigint);
  try {
    const summary = await collectBatches(await openStudy(study), cli(flags), { signal: controller.signal }, io().reporter());
    if (flags.json) printJson(summary);
    else {
      for (const job of summary.collected) {
        io().out(`${job.label}: collected batch(es) ${job.batches.join(", ")}: ${job.replies} repl(ies), ${job.failedRequests} request(s) not answered`);
        if (job.spent) {
          const { requests, promptTokens, completionTokens, cost } = job.spent;
          const price =
            cost === undefined ? "cost unknown (no price for this model: set model.prices in colloquy.json)" : `$${cost.toFixed(4)} at the batch price`;
          io().out(`  spent: ${requests} request(s) answered, ${promptTokens} prompt + ${completionTokens} completion tokens, ${price}`);
        }
        for (const p of job.problems) io().err(`  warning: ${p}`);
        for (const s of job.coding?.jobs ?? []) io().out(formatCodingSummary(s));
        if (job.topics) io().out(`topics: ${job.topics.trees} tree(s), ${job.topics.report.failures.length} failed run(s); wrote ${job.topics.file}`);
      }
      if (summary.collected.length === 0 && summary.waiting.length === 0) io().out("nothing to collect: no open batches");
      if (summary.waiting.length > 0) {
        io().out(`${summary.waiting.length} batch(es) not finished yet; run this again later:`);
        printLines(summary.waiting);
      }
    }
    for (const job of summary.collected) {
      if (job.topics) {
        const failed = failedTopicRuns(job.topics);
        if (failed)
          throw new CliError(
            `${failed.message.replace("Run the command again to retry them.", "")}Submit them again with \`colloquy topics ${study} --coder llm --via batch\`.`,
          );
      }
      if (!job.coding) continue;
      const problem = incompleteCoding(job.coding);
      if (problem)
        throw new CliError(
          `${problem.message.replace("Run the command again to retry them.", "")}Submit them again with \`colloquy code ${study} --coder llm --via batch\`.`,
        );
    }
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
}
