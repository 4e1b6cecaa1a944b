import { createConceptExtractor } from "../analysis/concepts/extract.js";
import { checkSelection, noHumanSpeakers, type SpeakerSelection } from "../analysis/concepts/speakers.js";
import { buildTopicsReport, rulesSessionTrees, summariseTopics, topicsReport, type TopicsReport, type TreeResult } from "../analysis/topics/report.js";
import { memoNote, openMemo, sessionHash } from "../study/memo.js";
import { withTurns } from "../study/validated-sessions.js";
import { keepWordClasses } from "./concepts.js";
import { readTopicsReport, writeTopicsReport } from "./analysis-files.js";
import { applyReviews, parseReviewSheets, REVIEW_CODEBOOK, reviewCsv } from "../analysis/topics/review.js";
import { readCodes, replaceCodes } from "../coding/store.js";
import type { CodeRecord } from "../coding/records.js";
import type { LlmClient } from "../llm/client.js";
import type { ModelCliOptions } from "../llm/config.js";
import { CliError } from "../util/errors.js";
import { readUserText, writeFileAtomic } from "../util/fs.js";
import { topicsFiles } from "../analysis/topics/descriptor.js";
import { silentEffects, type StageEffects, type StudyContext } from "./context.js";
import { batchAnsweredModel } from "../llm/batch/answered.js";
import type { BatchLimits } from "../llm/batch/files.js";
import { recordingModel } from "../llm/batch/recording.js";
import type { BatchReplies } from "../llm/batch/collected.js";
import type { ChatMessage } from "../llm/types.js";
import type { Session } from "../transcript/schema.js";
import { estimateTokens } from "../coding/llm/prompt.js";
import { costs, loadLedger, openKeys, submitLines, type BatchSubmitSummary } from "./batch.js";
import { studyCompareOptions } from "./design.js";

/**
 * The topics stage: topic trees (main topics, sub-topics) and branching ratios per participant,
 * session and condition; and the human review round trip of those trees.
 */
export interface TopicsStageOptions {
  coder?: "rules" | "llm";
  scope?: "session" | "participant";
  speakers?: SpeakerSelection;
  /** LLM runs per tree, merged. */
  runs?: number;
  model?: ModelCliOptions;
  noCache?: boolean;
  /** "batch": submit the LLM requests to the provider's Batch API; `colloquy batch collect` makes the report. */
  via?: "online" | "batch";
  batchLimits?: Partial<BatchLimits>;
  dryRun?: boolean;
  /** Collecting: the replies of finished batches by request key (the topic runs are answered from them). */
  answers?: BatchReplies;
}

export interface TopicsSummary {
  /** The report (its trees parsed from the file's lines when first read, for a rules report). */
  report: TopicsReport;
  /** Trees in the report (without reading them). */
  trees: number;
  file: string;
  /** Earlier human reviews exist: they refer to the previous trees. */
  staleReviews: boolean;
}

export async function runTopics(context: StudyContext, options: TopicsStageOptions, effects: StageEffects): Promise<TopicsSummary> {
  const config = context.config;
  const coder = options.coder ?? config.topics.coder ?? "rules";
  const speakers = options.speakers ?? config.topics.speakers ?? "human";
  const sessions = await context.sessions();
  if (sessions.length === 0)
    throw new CliError(`${context.paths.sessions}: no sessions yet; import some with \`colloquy import <files…> --study ${context.dir}\``);
  checkSelection(sessions, speakers);
  const noOne = noHumanSpeakers(sessions, speakers, "topics");
  if (noOne) effects.warn(noOne);
  let model: LlmClient | undefined;
  if (coder === "llm") {
    model = context.model(options.model ?? {}, effects);
    const problem = await model.preflight();
    if (problem) throw new CliError(problem.message);
    if (options.answers) model = batchAnsweredModel(model, options.answers);
  }
  const scope = options.scope ?? config.topics.scope ?? "session";
  // The rules coder's trees are kept per session in the study's memo; the LLM's are made whole (its replies are cached).
  const memo = coder === "rules" ? await openMemo<TreeResult[]>(context.dir, "topics-rules", { scope, speakers }) : undefined;
  let report: TopicsReport;
  if (memo) {
    const saveWords = await keepWordClasses(context.dir);
    const extractor = createConceptExtractor();
    effects.progress("topics", 0, sessions.length);
    // A session's turns are read only when its trees are made (for this pass, then let go): the trees are what is kept.
    const trees: TreeResult[] = [];
    let done = 0;
    for (const session of sessions) {
      trees.push(...memo.get(session.id, sessionHash(session), () => rulesSessionTrees(withTurns(session), { scope, speakers, extractor })));
      effects.progress("topics", ++done, sessions.length);
    }
    report = topicsReport(trees, { coder: "rules", scope, speakers, runs: 1, compare: studyCompareOptions(config, sessions) });
    await memo.save();
    await saveWords();
  } else report = await buildReport(context, sessions, coder, speakers, options, model, effects);
  const file = await writeTopicsReport(context.dir, report);
  const trees = report.trees.length;
  if (memo && memoNote(memo)) effects.log(`topics: ${trees} tree(s) of ${sessions.length} session(s)${memoNote(memo)}`);
  const staleReviews = Boolean((await context.coders())[REVIEW_CODEBOOK]);
  if (staleReviews) {
    effects.warn(
      `earlier topic reviews exist (codes/${REVIEW_CODEBOOK}); they refer to the previous trees: export and review again, or re-import the sheets if the trees are unchanged`,
    );
  }
  return { report, trees, file, staleReviews };
}

/** The topics report of `sessions` with this coder and model, made whole. */
function buildReport(
  context: StudyContext,
  sessions: Session[],
  coder: "rules" | "llm",
  speakers: SpeakerSelection,
  options: TopicsStageOptions,
  model: LlmClient | undefined,
  effects: StageEffects,
) {
  const config = context.config;
  return buildTopicsReport(sessions, {
    coder,
    scope: options.scope ?? config.topics.scope ?? "session",
    speakers,
    runs: options.runs ?? config.topics.runs ?? 3,
    extractor: createConceptExtractor(),
    model,
    seed: options.model?.seed ?? config.model.seed,
    temperature: options.model?.temperature ?? config.model.temperature,
    noCache: options.noCache,
    compare: studyCompareOptions(context.config, sessions),
    reporter: effects,
  });
}

/**
 * `colloquy topics --via batch`: the topic runs' requests, exactly as the online run would send
 * them (noted by running the analysis against a recording model), submitted as batches.
 */
export async function submitTopicsBatch(context: StudyContext, options: TopicsStageOptions, effects: StageEffects): Promise<BatchSubmitSummary> {
  const sessions = await context.sessions();
  if (sessions.length === 0)
    throw new CliError(`${context.paths.sessions}: no sessions yet; import some with \`colloquy import <files…> --study ${context.dir}\``);
  const speakers = options.speakers ?? context.config.topics.speakers ?? "human";
  checkSelection(sessions, speakers);
  const noOne = noHumanSpeakers(sessions, speakers, "topics");
  if (noOne) effects.warn(noOne);
  const model = context.model(options.model ?? {}, effects);
  if (!options.dryRun) {
    const problem = await model.preflight();
    if (problem) throw new CliError(problem.message);
  }
  const ledger = await loadLedger(context.dir);
  const recorder = recordingModel(model, openKeys(ledger, "topics"));
  await buildReport(context, sessions, "llm", speakers, options, recorder.model, silentEffects);
  const promptTokens = recorder.lines.reduce((n, l) => n + estimateTokens(l.body.messages as ChatMessage[]), 0);
  const counts = {
    toCode: 0,
    alreadyCoded: 0,
    requests: recorder.lines.length,
    cached: recorder.counts.cached,
    pending: recorder.counts.pending,
    promptTokens,
    completionTokens: recorder.lines.length * EST_TOPIC_COMPLETION_TOKENS,
  };
  const label = `topics (${options.scope ?? context.config.topics.scope ?? "session"})`;
  const summary: BatchSubmitSummary = { label, counts, batches: [], ...costs(model, counts) };
  if (options.dryRun || recorder.lines.length === 0) return summary;
  const job = {
    scope: options.scope,
    speakers: options.speakers,
    runs: options.runs,
    noCache: options.noCache,
    model: { seed: options.model?.seed, temperature: options.model?.temperature },
  };
  summary.batches = await submitLines(
    context,
    ledger,
    model,
    recorder.lines,
    { kind: "topics", label, job: JSON.parse(JSON.stringify(job)), prefix: "topics" },
    options.batchLimits,
    effects,
  );
  return summary;
}

/** Completion tokens we expect per topic tree, for estimates (a JSON tree of a few topics). */
const EST_TOPIC_COMPLETION_TOKENS = 400;

/** Topic runs that failed are left out of the report (never invented): the error to raise, if any. */
export function failedTopicRuns(summary: TopicsSummary): CliError | undefined {
  const n = summary.report.failures.length;
  return n > 0
    ? new CliError(`${n} topic run(s) failed and were left out (never invented); see "failures" in ${summary.file}. Run the command again to retry them.`)
    : undefined;
}

/** Write the topic trees as a review sheet (one CSV row per sub-topic); returns the rows written. */
export async function exportTopicReview(context: StudyContext, out: string | undefined): Promise<{ file: string; rows: number }> {
  const report = await readTopicsReport(context.dir);
  const file = out ?? topicsFiles.topicsReview.path(context.dir);
  const csv = reviewCsv(report);
  await writeFileAtomic(file, csv);
  return { file, rows: csv.trim().split("\n").length - 1 };
}

export interface TopicReviewSummary {
  report: TopicsReport;
  file: string;
  judgements: number;
  unreviewed: number;
  reviewers: string[];
  /** Every reviewer with judgements stored, this import's and earlier ones. */
  allReviewers: string[];
}

/** Store reviewers' judgements (codebook topic-review, coder human:<reviewer>) and the reviewed branching ratios. */
export async function importTopicReviews(context: StudyContext, files: string[]): Promise<TopicReviewSummary> {
  const study = context.dir;
  const report = await readTopicsReport(context.dir);
  const { records, unreviewed } = parseReviewSheets(
    await Promise.all(files.map(async (file) => ({ file, text: await readUserText(file, "review sheet") }))),
    report,
  );
  // One reviewer's new judgements replace their earlier ones on the same sub-topics.
  const byCoder = new Map<string, CodeRecord[]>();
  for (const r of records) byCoder.set(r.coder, [...(byCoder.get(r.coder) ?? []), r]);
  for (const [coder, fresh] of byCoder) {
    const keys = new Set(fresh.map((r) => `${r.session}\u0000${r.turn}`));
    const kept = (await readCodes(study, REVIEW_CODEBOOK, coder)).filter((r) => !keys.has(`${r.session}\u0000${r.turn}`));
    await replaceCodes(study, REVIEW_CODEBOOK, coder, [...kept, ...fresh]);
  }
  context.changed("codes");
  const reviewers = (await context.coders())[REVIEW_CODEBOOK] ?? [];
  const all = (await Promise.all(reviewers.map((c) => context.codes(REVIEW_CODEBOOK, c)))).flat();
  applyReviews(report, all);
  summariseTopics(report, studyCompareOptions(context.config, await context.sessions()));
  const allReviewers = [...new Set(all.map((r) => r.coder))].sort();
  const file = await writeTopicsReport(context.dir, {
    ...report,
    provenance: { ...report.provenance, review: { reviewers: allReviewers, importedAt: new Date().toISOString(), files } },
  });
  return { report, file, judgements: records.length, unreviewed, reviewers: [...byCoder.keys()], allReviewers };
}
