import { Option, type Command } from "commander";
import { STDOUT, writeOutput } from "./output.js";
import { studyArgument } from "./study-arg.js";
import type { TopicsReport } from "../analysis/topics/report.js";
import { CliError } from "../util/errors.js";
import { io, printJson } from "./io.js";
import { describeOptionLater } from "./lazy-help.js";
import { writing } from "./lock.js";
import { modelFlags } from "./model-flags.js";

interface TopicsFlags {
  scope?: "session" | "participant";
  speakers?: string;
  runs?: number;
  coder?: "llm" | "rules";
  model?: string;
  baseUrl?: string;
  concurrency?: number;
  seed?: number;
  temperature?: number;
  timeout?: number;
  cache: boolean;
  json?: boolean;
  via?: "online" | "batch";
  batchSize?: number;
  dryRun?: boolean;
}

const wholeNumber = (flag: string, min: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be a whole number of ${min} or more, got "${value}"`);
  return n;
};
const number = (flag: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new CliError(`${flag} must be a number, got "${value}"`);
  return n;
};
const fmt = (x: number | null | undefined, digits = 2) => (x === null || x === undefined ? "–" : x.toFixed(digits));

/** `colloquy topics`: topic trees and branching ratios; `topics export|import` for human review. */
export function registerTopics(program: Command): void {
  const topics = program
    .command("topics")
    .description("topic trees (main topics, sub-topics) and branching ratios per participant, session and condition; `topics export|import` for human review")
    .addArgument(studyArgument())
    .addOption(new Option("--scope <scope>", "one tree per session or per participant (default session)").choices(["session", "participant"]))
    .option("--speakers <who>", 'whose turns count: "human" (default), "all", or comma-separated names')
    .addOption(new Option("--coder <coder>", "rules (offline deterministic baseline, default) or llm").choices(["rules", "llm"]))
    .option("--runs <n>", "LLM runs per tree, merged; the mean and spread of the branching ratio are reported (default 3)", wholeNumber("--runs", 1))
    .option("--model <name>", "model name (default: colloquy.json model.model, $COLLOQUY_MODEL, $OPENAI_MODEL, gpt-4o-mini)")
    .option("--base-url <url>", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (default: $OPENAI_BASE_URL or the OpenAI API)")
    .option("--concurrency <n>", "requests in flight at once (default 8)", wholeNumber("--concurrency", 1))
    .option("--seed <n>", "seed of run 1; run i sends seed + i - 1 (default 0)", number("--seed"))
    .option("--temperature <t>", "sampling temperature (default: colloquy.json model.temperature, else 0)", number("--temperature"))
    .option("--timeout <ms>", "per-request timeout in ms", wholeNumber("--timeout", 1))
    .option("--no-cache", "do not answer from the response cache")
    .addOption(
      new Option(
        "--via <how>",
        "LLM coder: online (default) or batch (the provider's Batch API at half price, answered within 24 h; then `colloquy batch collect`)",
      ).choices(["online", "batch"]),
    )
    .option("--batch-size <n>", "with --via batch: at most n requests per batch file (default 50000)", wholeNumber("--batch-size", 1))
    .option("--dry-run", "with --via batch: count the requests and print the batch vs online price, sending nothing")
    .option("--json", "print the report as JSON")
    .action(async (study: string, flags: TopicsFlags) => writing(study, "topics", () => topicsCommand(study, flags)));

  const exportCommand = topics
    .command("export")
    .description("write the topic trees as a review sheet: one CSV row per sub-topic, with empty judgement / merge_into / new_label / reviewer columns")
    .addArgument(studyArgument())
    .option("--out <file>", "CSV file to write (default: see `colloquy topics export --help`); - prints it")
    .action(async (study: string, flags: { out?: string }) => {
      const { openStudy } = await import("../stages/context.js");
      const { exportTopicReview } = await import("../stages/topics.js");
      const {
        result: { file, rows },
        streamed,
        say,
      } = await writeOutput(flags.out, (out) => writing(study, "topics export", async () => exportTopicReview(await openStudy(study), out)));
      say(
        `Wrote ${rows} sub-topic row(s) to ${streamed ? (flags.out === STDOUT ? "standard output" : flags.out) : file}. Reviewers fill in judgement (keep, merge, rename, reject), merge_into, new_label and reviewer, then run \`colloquy topics import ${study} <files…>\`.`,
      );
    });
  describeOptionLater(
    exportCommand,
    "--out",
    async () => `CSV file to write (default <study>/${(await import("../analysis/topics/descriptor.js")).topicsFiles.topicsReview.relative()}); - prints it`,
  );

  topics
    .command("import")
    .description("read reviewers' sheets, store their judgements (codebook topic-review, coder human:<reviewer>) and compute reviewed branching ratios")
    .addArgument(studyArgument({ position: "first" }))
    .argument("<files...>", "filled-in review sheets (CSV)")
    .action(async (study: string, files: string[]) => {
      const { openStudy } = await import("../stages/context.js");
      const { importTopicReviews } = await import("../stages/topics.js");
      const { REVIEW_CODEBOOK } = await import("../analysis/topics/review.js");
      const result = await writing(study, "topics import", async () => importTopicReviews(await openStudy(study), files));
      const out = io().out;
      out(
        `Imported ${result.judgements} judgement(s) from ${files.length} file(s) (${result.unreviewed} row(s) left blank) for ${result.reviewers.join(", ") || "no reviewer"}.`,
      );
      for (const t of result.report.trees.filter((t) => t.reviewed)) {
        out(`  ${t.key}: branching ${fmt(t.merged?.branchingRatio)} -> reviewed ${fmt(t.reviewed!.branchingRatio)} (${t.reviewed!.reviewers.join(", ")})`);
      }
      out(`Updated ${result.file}. Reviewer agreement: colloquy agree ${study} --codebook ${REVIEW_CODEBOOK} --coders ${result.allReviewers.join(",")}`);
    });
}

async function topicsCommand(study: string, flags: TopicsFlags): Promise<void> {
  const { parseSpeakers } = await import("../analysis/concepts/speakers.js");
  const { openStudy } = await import("../stages/context.js");
  const { failedTopicRuns, runTopics, submitTopicsBatch } = await import("../stages/topics.js");
  const model = modelFlags(flags);
  if (flags.via === "batch") {
    if (flags.coder !== "llm") throw new CliError("--via batch is for the LLM topic coder: add --coder llm");
    const options = {
      scope: flags.scope,
      speakers: parseSpeakers(flags.speakers),
      runs: flags.runs,
      model,
      noCache: !flags.cache,
      dryRun: flags.dryRun,
      batchLimits: flags.batchSize ? { maxRequests: flags.batchSize } : undefined,
    };
    const submitted = await submitTopicsBatch(await openStudy(study), options, io().reporter());
    if (flags.json) return printJson(submitted);
    const c = submitted.counts;
    const usd = (x: number | undefined) => (x === undefined ? "unknown (add model.prices to colloquy.json)" : `$${x.toFixed(4)}`);
    io().out(
      `${submitted.label}: ${c.requests} request(s) ${flags.dryRun ? "would go" : "went"} to the batch, ${c.cached} answered by the response cache, ${c.pending} already in an open batch`,
    );
    io().out(
      `  ~${c.promptTokens.toLocaleString("en-US")} prompt + ~${c.completionTokens.toLocaleString("en-US")} completion tokens: est. batch price ${usd(submitted.batchCost)} vs online ${usd(submitted.onlineCost)}`,
    );
    for (const b of submitted.batches) io().out(`  batch ${b.id}: ${b.requests} request(s)`);
    if (!flags.dryRun && submitted.batches.length > 0)
      io().out(`Collect with \`colloquy batch collect ${study}\` once \`colloquy batch status ${study}\` says completed; it writes the topics report.`);
    return;
  }
  if (flags.batchSize || flags.dryRun) throw new CliError("--batch-size and --dry-run go with --via batch");
  const summary = await runTopics(
    await openStudy(study),
    {
      coder: flags.coder,
      scope: flags.scope,
      speakers: parseSpeakers(flags.speakers),
      runs: flags.runs,
      model,
      noCache: !flags.cache,
    },
    io().reporter(),
  );
  if (flags.json) printJson(summary.report);
  else await printTopics(summary.report, summary.file);
  const problem = failedTopicRuns(summary);
  if (problem) throw problem;
}

async function printTopics(report: TopicsReport, path: string): Promise<void> {
  const { apaConditionTest, conditionTestName } = await import("../report/apa.js");
  const { describeDesign } = await import("../analysis/shared/design.js");
  const out = io().out;
  const p = report.provenance;
  out(
    `Topic trees (${p.coder}${p.coder === "llm" ? `, ${p.model?.model} at ${p.model?.endpointHost}, ${p.runs} run(s)` : ", deterministic baseline"}; scope ${p.scope})`,
  );
  out("tree\tcondition\tmain\tsub\tbranching (mean over runs)\tSD\tmin-max");
  for (const t of report.trees) {
    const b = t.branching;
    out(
      [
        t.key,
        t.condition,
        t.merged?.mainTopicCount ?? "–",
        t.merged?.subtopicCount ?? "–",
        fmt(b.mean),
        fmt(b.sd),
        b.n > 0 ? `${fmt(b.min)}-${fmt(b.max)}` : "–",
      ].join("\t") + (b.failedRuns ? `\t(${b.failedRuns} run(s) failed)` : ""),
    );
  }
  const c = report.conditions.find((x) => x.measure === "branchingRatio");
  if (c) {
    out(`\nBranching ratio by condition (${describeDesign(c)}; ${c.designReason}):`);
    for (const [cond, s] of Object.entries(c.byCondition)) out(`  ${cond}: mean ${fmt(s.mean)}, SD ${fmt(s.sd)}, n ${s.n}`);
    for (const t of c.tests) out(`  ${t.a} vs ${t.b}: ${conditionTestName(t)} (n = ${t.n}): ${apaConditionTest(t)}${t.note ? ` (${t.note})` : ""}`);
  }
  for (const f of report.failures) out(`failed: ${f.key} run ${f.run + 1}: ${f.reason}`);
  out(`\nWrote ${path}`);
}
