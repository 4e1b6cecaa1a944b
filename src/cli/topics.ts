import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { createConceptExtractor } from "../analysis/concepts/extract.js";
import { checkSelection, parseSpeakers } from "../analysis/concepts/speakers.js";
import { buildTopicsReport, summariseTopics, type TopicsReport } from "../analysis/topics/report.js";
import { applyReviews, readReviewFiles, REVIEW_CODEBOOK, reviewCsv } from "../analysis/topics/review.js";
import { listCoders, readCodes, replaceCodes } from "../coding/store.js";
import { createChatModel, type LlmClient } from "../llm/client.js";
import { resolveModelConfig } from "../llm/config.js";
import { loadSessions, loadStudyConfig, studyPaths } from "../study/study.js";
import { CliError } from "../util/errors.js";
import { readJsonFile, writeFileAtomic, writeJsonAtomic } from "../util/fs.js";
import { io, printJson } from "./io.js";

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
    .argument("<study>", "study folder")
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
    .option("--json", "print the report as JSON")
    .action(async (study: string, flags: TopicsFlags) => runTopics(study, flags));

  topics
    .command("export")
    .description("write the topic trees as a review sheet: one CSV row per sub-topic, with empty judgement / merge_into / new_label / reviewer columns")
    .argument("<study>", "study folder")
    .option("--out <file>", "CSV file to write (default <study>/analysis/topics-review.csv)")
    .action(async (study: string, flags: { out?: string }) => {
      const report = await readTopicsReport(study);
      const out = flags.out ?? resolve(studyPaths(study).analysis, "topics-review.csv");
      const csv = reviewCsv(report);
      await writeFileAtomic(out, csv);
      io().out(`Wrote ${csv.trim().split("\n").length - 1} sub-topic row(s) to ${out}. Reviewers fill in judgement (keep, merge, rename, reject), merge_into, new_label and reviewer, then run \`colloquy topics import ${study} <files…>\`.`);
    });

  topics
    .command("import")
    .description("read reviewers' sheets, store their judgements (codebook topic-review, coder human:<reviewer>) and compute reviewed branching ratios")
    .argument("<study>", "study folder")
    .argument("<files...>", "filled-in review sheets (CSV)")
    .action(async (study: string, files: string[]) => {
      const report = await readTopicsReport(study);
      const { records, unreviewed } = await readReviewFiles(files, report);
      // One reviewer's new judgements replace their earlier ones on the same sub-topics.
      const byCoder = new Map<string, typeof records>();
      for (const r of records) byCoder.set(r.coder, [...(byCoder.get(r.coder) ?? []), r]);
      for (const [coder, fresh] of byCoder) {
        const keys = new Set(fresh.map((r) => `${r.session}\u0000${r.turn}`));
        const kept = (await readCodes(study, REVIEW_CODEBOOK, coder)).filter((r) => !keys.has(`${r.session}\u0000${r.turn}`));
        await replaceCodes(study, REVIEW_CODEBOOK, coder, [...kept, ...fresh]);
      }
      const all = await allReviewRecords(study);
      applyReviews(report, all);
      const config = await loadStudyConfig(study);
      summariseTopics(report, { design: config.compare.design, control: config.compare.control });
      const path = resolve(studyPaths(study).analysis, "topics.json");
      await writeJsonAtomic(path, { ...report, provenance: { ...report.provenance, review: { reviewers: [...new Set(all.map((r) => r.coder))].sort(), importedAt: new Date().toISOString(), files } } });
      const out = io().out;
      out(`Imported ${records.length} judgement(s) from ${files.length} file(s) (${unreviewed} row(s) left blank) for ${[...byCoder.keys()].join(", ") || "no reviewer"}.`);
      for (const t of report.trees.filter((t) => t.reviewed)) {
        out(`  ${t.key}: branching ${fmt(t.merged?.branchingRatio)} -> reviewed ${fmt(t.reviewed!.branchingRatio)} (${t.reviewed!.reviewers.join(", ")})`);
      }
      out(`Updated ${path}. Reviewer agreement: colloquy agree ${study} --codebook ${REVIEW_CODEBOOK} --coders ${[...new Set(all.map((r) => r.coder))].sort().join(",")}`);
    });
}

async function allReviewRecords(study: string) {
  const coders = (await listCoders(study))[REVIEW_CODEBOOK] ?? [];
  return (await Promise.all(coders.map((c) => readCodes(study, REVIEW_CODEBOOK, c)))).flat();
}

async function readTopicsReport(study: string): Promise<TopicsReport> {
  const path = resolve(studyPaths(study).analysis, "topics.json");
  try {
    return (await readJsonFile(path)) as TopicsReport;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new CliError(`${path}: no topic trees yet; run \`colloquy topics ${study}\` first`);
    throw new CliError((error as Error).message);
  }
}

async function runTopics(study: string, flags: TopicsFlags): Promise<void> {
  const config = await loadStudyConfig(study);
  const paths = studyPaths(study);
  const coder = flags.coder ?? config.topics.coder ?? "rules";
  const scope = flags.scope ?? config.topics.scope ?? "session";
  const speakers = parseSpeakers(flags.speakers) ?? config.topics.speakers ?? "human";
  const runs = flags.runs ?? config.topics.runs ?? 3;
  const sessions = await loadSessions(study);
  if (sessions.length === 0) throw new CliError(`${paths.sessions}: no sessions yet; import some with \`colloquy import <files…> --study ${study}\``);
  checkSelection(sessions, speakers);
  let model: LlmClient | undefined;
  if (coder === "llm") {
    if (flags.baseUrl !== undefined) {
      try {
        new URL(flags.baseUrl);
      } catch {
        throw new CliError(`--base-url "${flags.baseUrl}" is not a URL; e.g. http://localhost:11434/v1`);
      }
    }
    model = createChatModel(
      resolveModelConfig({
        cli: { model: flags.model, baseURL: flags.baseUrl, concurrency: flags.concurrency, temperature: flags.temperature, seed: flags.seed, timeoutMs: flags.timeout },
        study: config.model,
        studyDir: study,
      }),
      { onRetry: ({ attempt, delayMs, error }) => io().reporter().warn(`${error.message}; retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s`) },
    );
    const problem = await model.preflight();
    if (problem) throw new CliError(problem.message);
  }
  const report = await buildTopicsReport(sessions, {
    coder,
    scope,
    speakers,
    runs,
    extractor: createConceptExtractor(),
    model,
    seed: flags.seed ?? config.model.seed,
    temperature: flags.temperature ?? config.model.temperature,
    noCache: !flags.cache,
    compare: { design: config.compare.design, control: config.compare.control },
    reporter: io().reporter(),
  });
  const path = resolve(paths.analysis, "topics.json");
  await writeJsonAtomic(path, report);
  if ((await listCoders(study))[REVIEW_CODEBOOK]) {
    io().reporter().warn(`earlier topic reviews exist (codes/${REVIEW_CODEBOOK}); they refer to the previous trees: export and review again, or re-import the sheets if the trees are unchanged`);
  }
  if (flags.json) printJson(report);
  else printTopics(report, path);
  if (report.failures.length > 0) {
    throw new CliError(`${report.failures.length} topic run(s) failed and were left out (never invented); see "failures" in ${path}. Run the command again to retry them.`);
  }
}

function printTopics(report: TopicsReport, path: string): void {
  const out = io().out;
  const p = report.provenance;
  out(`Topic trees (${p.coder}${p.coder === "llm" ? `, ${p.model?.model} at ${p.model?.endpointHost}, ${p.runs} run(s)` : ", deterministic baseline"}; scope ${p.scope})`);
  out("tree\tcondition\tmain\tsub\tbranching (mean over runs)\tSD\tmin-max");
  for (const t of report.trees) {
    const b = t.branching;
    out([t.key, t.condition, t.merged?.mainTopicCount ?? "–", t.merged?.subtopicCount ?? "–", fmt(b.mean), fmt(b.sd), b.n > 0 ? `${fmt(b.min)}-${fmt(b.max)}` : "–"].join("\t") + (b.failedRuns ? `\t(${b.failedRuns} run(s) failed)` : ""));
  }
  const c = report.conditions.find((x) => x.measure === "branchingRatio");
  if (c) {
    out(`\nBranching ratio by condition (${c.unit}s):`);
    for (const [cond, s] of Object.entries(c.byCondition)) out(`  ${cond}: mean ${fmt(s.mean)}, SD ${fmt(s.sd)}, n ${s.n}`);
    for (const t of c.tests) out(`  ${t.a} vs ${t.b}: ${t.test} (${c.design}, n = ${t.n}) ${t.skipped ? `not run: ${t.skipped}` : `statistic ${fmt(t.statistic, 3)}, p ${fmt(t.p, 4)}`}`);
  }
  for (const f of report.failures) out(`failed: ${f.key} run ${f.run + 1}: ${f.reason}`);
  out(`\nWrote ${path}`);
}
