import type { ChatModel } from "../../llm/types.js";
import type { Session } from "../../transcript/schema.js";
import { mapLimit } from "../../util/concurrency.js";
import { provenance, type Provenance } from "../../util/provenance.js";
import { silentReporter, type Reporter } from "../../util/reporter.js";
import { compareMeasures, summariseValues, type MeasureCompareOptions, type MeasureComparison, type UnitValue } from "../concepts/conditions.js";
import type { ConceptExtractor } from "../concepts/extract.js";
import type { SpeakerSelection } from "../concepts/speakers.js";
import { llmTopicRun, TOPIC_PROMPT_HASH } from "./llm.js";
import { MERGE_THRESHOLD, mergeTrees } from "./merge.js";
import { RULES_THRESHOLD, rulesTopicTree } from "./rules.js";
import { treeCounts, type TopicTree } from "./tree.js";
import { topicUnits, unitKey, type TopicUnit } from "./units.js";

/** One extraction run of one tree. */
export interface TopicRunResult {
  run: number;
  /** Seed sent to the model (LLM coder). */
  seed?: number;
  tree: TopicTree | null;
  mainTopics: number;
  subtopics: number;
  /** null when the run failed or found no main topics. */
  branchingRatio: number | null;
  /** Why the run produced no tree (LLM error, or invalid reply after one re-ask). */
  failure?: string;
  /** Raw reply of a failed run, for inspection. */
  raw?: string;
  reasked?: boolean;
  cached?: boolean;
}

/** Branching ratio across runs: mean, sample SD, range, over runs with a ratio. */
export interface BranchingSpread {
  mean: number | null;
  sd: number | null;
  min: number | null;
  max: number | null;
  /** Runs that gave a ratio. */
  n: number;
  failedRuns: number;
  /** Runs whose tree had no main topics (ratio undefined). */
  emptyRuns: number;
}

/** A tree reviewed by humans (see `colloquy topics import`). */
export interface ReviewedTree {
  reviewers: string[];
  /** Sub-topic id -> decision (majority of reviewers; ties resolved toward "keep"). */
  decisions: Record<string, { judgement: "keep" | "merge" | "rename" | "reject"; mergeInto?: string; newLabel?: string; votes: number }>;
  mainTopics: number;
  subtopics: number;
  branchingRatio: number | null;
}

/** The topic tree of one session (scope session) or one participant in one session. */
export interface TreeResult {
  /** "session" or "session/participant". */
  key: string;
  scope: "session" | "participant";
  session: string;
  condition: string;
  participant?: string;
  participantName?: string;
  /**
   * Pairing key across conditions in within-subject designs: the participant id (participant
   * scope) or the sorted ids of the session's eligible speakers joined by "+" (session scope).
   */
  unit: string;
  /** Turns the tree may cite. */
  eligibleTurns: number;
  runs: TopicRunResult[];
  /** The measure compared between conditions: branching ratio across runs. */
  branching: BranchingSpread;
  /** Runs merged into one tree (the rules coder's single tree as is); null when every run failed. */
  merged: (TopicTree & { mainTopicCount: number; subtopicCount: number; branchingRatio: number | null }) | null;
  reviewed?: ReviewedTree;
}

/**
 * `analysis/topics.json`: topic trees with branching ratios (sub-topics / main topics) per
 * tree, participant, session and condition. Read by the dashboard.
 *
 * - `trees[]`: each run's tree, the spread of the branching ratio across runs, the merged tree
 *   (topics cite turn ids, so topic flow over time can be drawn), and human review results.
 * - `participants[]` (participant scope) and `sessions[]`: the branching ratio (mean across
 *   runs; sessions in participant scope: mean over their participants).
 * - `conditions[]`: summaries (mean, SD, n) per condition and the between-condition tests
 *   (the decision table of docs/statistics.md: within-subject, paired permutation or Wilcoxon
 *   on units present in both conditions; between, permutation, Mann-Whitney or Welch), each naming its n.
 * A tree with no main topics has no branching ratio (null, counted as missing).
 */
export interface TopicsReport {
  provenance: Provenance & {
    analysis: "topics";
    coder: "llm" | "rules";
    scope: "session" | "participant";
    speakers: SpeakerSelection;
    runs: number;
    model?: { model: string; endpointHost: string; temperature: number };
    promptHash?: string;
    seed?: number;
    method: string;
  };
  trees: TreeResult[];
  participants: {
    session: string;
    condition: string;
    participant: string;
    name: string;
    branchingRatio: number | null;
    reviewedBranchingRatio?: number | null;
  }[];
  sessions: { session: string; condition: string; branchingRatio: number | null; trees: number; reviewedBranchingRatio?: number | null }[];
  conditions: MeasureComparison[];
  failures: { key: string; run: number; reason: string }[];
}

export interface TopicsOptions {
  coder: "llm" | "rules";
  scope: "session" | "participant";
  speakers: SpeakerSelection;
  /** LLM runs per tree (the rules coder is deterministic and runs once). */
  runs: number;
  extractor: ConceptExtractor;
  model?: ChatModel;
  seed?: number;
  temperature?: number;
  noCache?: boolean;
  compare?: MeasureCompareOptions;
  reporter?: Reporter;
  signal?: AbortSignal;
}

function runResult(run: number, tree: TopicTree | null, extra: Partial<TopicRunResult> = {}): TopicRunResult {
  const counts = tree ? treeCounts(tree) : { mainTopics: 0, subtopics: 0, branchingRatio: null };
  return { run, tree, ...counts, ...extra };
}

function spread(runs: readonly TopicRunResult[]): BranchingSpread {
  const ratios = runs.map((r) => r.branchingRatio).filter((x): x is number => x !== null);
  const s = summariseValues(ratios);
  return {
    mean: s.mean,
    sd: s.sd,
    min: s.min,
    max: s.max,
    n: s.n,
    failedRuns: runs.filter((r) => r.tree === null).length,
    emptyRuns: runs.filter((r) => r.tree !== null && r.branchingRatio === null).length,
  };
}

/** Extract topic trees for every unit and summariseValues them. */
export async function buildTopicsReport(sessions: readonly Session[], options: TopicsOptions): Promise<TopicsReport> {
  const runs = options.coder === "rules" ? 1 : options.runs;
  if (options.coder === "llm" && !options.model) throw new Error("buildTopicsReport: the llm coder needs a model");
  const trees = options.coder === "rules" ? rulesTrees(sessions, options) : await llmTrees(sessions, options);
  return topicsReport(trees, { ...options, runs });
}

/**
 * The report of every unit's trees (rulesSessionTrees one session at a time, which the topics
 * stage keeps per session in the study's memo, or the LLM's): the summaries are always computed
 * from all of them.
 */
export function topicsReport(trees: TreeResult[], options: Parameters<typeof topicsProvenance>[0] & Pick<TopicsOptions, "compare">): TopicsReport {
  const report: TopicsReport = {
    provenance: topicsProvenance(options),
    trees,
    participants: [],
    sessions: [],
    conditions: [],
    failures: trees.flatMap((t) => t.runs.filter((r) => r.failure).map((r) => ({ key: t.key, run: r.run, reason: r.failure! }))),
  };
  summariseTopics(report, options.compare);
  return report;
}

/** The provenance of a topics report made with these options. */
function topicsProvenance(
  options: Pick<TopicsOptions, "coder" | "scope" | "speakers" | "runs" | "model" | "seed" | "temperature">,
): TopicsReport["provenance"] {
  return provenance({
    analysis: "topics",
    coder: options.coder,
    scope: options.scope,
    speakers: options.speakers,
    runs: options.runs,
    ...(options.coder === "llm"
      ? {
          model: options.model!.info,
          promptHash: TOPIC_PROMPT_HASH,
          seed: options.seed ?? 0,
          temperature: options.temperature ?? options.model!.info.temperature,
        }
      : {}),
    method:
      options.coder === "llm"
        ? `LLM topic tree per run (seed + run); runs merged by (label Dice + turn Jaccard) / 2 >= ${MERGE_THRESHOLD}, majority of runs kept`
        : `rules baseline: noun concepts grouped by head noun, then average-linkage merging at similarity >= ${RULES_THRESHOLD} (turn Jaccard or word Dice)`,
  }) as TopicsReport["provenance"];
}

/** The rules coder's trees of one session: one run per unit. */
export function rulesSessionTrees(session: Session, options: Pick<TopicsOptions, "scope" | "speakers" | "extractor">): TreeResult[] {
  return topicUnits([session], options.scope, options.speakers).map((unit) =>
    treeResult(unit, [
      runResult(0, rulesTopicTree({ scope: unit.scope, session: session.id, participant: unit.participant?.id }, unit.turns, options.extractor)),
    ]),
  );
}

/** The rules coder's trees: one run per unit, a session's units at a time. */
function rulesTrees(sessions: readonly Session[], options: TopicsOptions): TreeResult[] {
  const reporter = options.reporter ?? silentReporter;
  reporter.progress("topics", 0, sessions.length);
  return sessions.flatMap((session, i) => {
    const trees = rulesSessionTrees(session, options);
    reporter.progress("topics", i + 1, sessions.length);
    return trees;
  });
}

/** The LLM coder's trees: `runs` runs per unit, several units at once, merged. */
async function llmTrees(sessions: readonly Session[], options: TopicsOptions): Promise<TreeResult[]> {
  const reporter = options.reporter ?? silentReporter;
  const units = topicUnits(sessions, options.scope, options.speakers);
  const jobs = units.flatMap((unit) => Array.from({ length: options.runs }, (_, run) => ({ unit, run })));
  let done = 0;
  reporter.progress("topics", 0, jobs.length);
  const results = await mapLimit(jobs, 16, async ({ unit, run }) => {
    const r = await llmTopicRun(options.model!, unit, run, {
      seed: options.seed,
      temperature: options.temperature,
      noCache: options.noCache,
      signal: options.signal,
    });
    reporter.progress("topics", ++done, jobs.length);
    return runResult(run, r.tree, { seed: r.seed, failure: r.failure, raw: r.raw, reasked: r.reasked, cached: r.cached });
  });
  return units.map((unit, i) => treeResult(unit, results.slice(i * options.runs, (i + 1) * options.runs)));
}

function treeResult(unit: TopicUnit, runs: TopicRunResult[]): TreeResult {
  const ok = runs.map((r) => r.tree).filter((t): t is TopicTree => t !== null);
  const order = new Map(unit.session.turns.map((t, i) => [t.id, i]));
  const merged = ok.length === 0 ? null : ok.length === 1 ? ok[0] : mergeTrees(ok, order);
  const counts = merged ? treeCounts(merged) : null;
  return {
    key: unitKey(unit),
    scope: unit.scope,
    session: unit.session.id,
    condition: unit.condition,
    participant: unit.participant?.id,
    participantName: unit.participant?.name,
    unit: unit.participant?.id ?? ([...new Set(unit.turns.map((t) => t.speaker))].sort().join("+") || unit.session.id),
    eligibleTurns: unit.turns.length,
    runs,
    branching: spread(runs),
    merged: merged && counts ? { ...merged, mainTopicCount: counts.mainTopics, subtopicCount: counts.subtopics, branchingRatio: counts.branchingRatio } : null,
  };
}

/** What the summaries read of a tree (a TreeResult is one). */
export type TreeFacts = Pick<TreeResult, "key" | "scope" | "session" | "condition" | "participant" | "participantName" | "unit"> & {
  branching: Pick<BranchingSpread, "mean">;
  merged: Pick<NonNullable<TreeResult["merged"]>, "mainTopicCount" | "subtopicCount"> | null;
  reviewed?: Pick<ReviewedTree, "branchingRatio">;
};

/**
 * (Re)compute the participant, session and condition summaries from the trees (also after
 * human review, which adds `reviewedBranchingRatio`).
 */
export function summariseTopics(
  report: Pick<TopicsReport, "participants" | "sessions" | "conditions"> & { trees: readonly TreeFacts[] },
  compare?: MeasureCompareOptions,
): void {
  const trees = report.trees;
  const reviewed = trees.some((t) => t.reviewed);
  report.participants = trees
    .filter((t) => t.participant !== undefined)
    .map((t) => ({
      session: t.session,
      condition: t.condition,
      participant: t.participant!,
      name: t.participantName ?? t.participant!,
      branchingRatio: t.branching.mean,
      ...(reviewed ? { reviewedBranchingRatio: t.reviewed?.branchingRatio ?? null } : {}),
    }));
  const bySession = new Map<string, TreeFacts[]>();
  for (const t of trees) bySession.set(t.session, [...(bySession.get(t.session) ?? []), t]);
  const meanOf = (xs: (number | null | undefined)[]) => summariseValues(xs.map((x) => x ?? null)).mean;
  report.sessions = [...bySession].map(([session, ts]) => ({
    session,
    condition: ts[0].condition,
    branchingRatio: meanOf(ts.map((t) => t.branching.mean)),
    trees: ts.length,
    ...(reviewed ? { reviewedBranchingRatio: meanOf(ts.map((t) => t.reviewed?.branchingRatio)) } : {}),
  }));
  const level = trees[0]?.scope === "participant" ? "participant" : "session";
  const measures: [string, (t: TreeFacts) => number | null][] = [
    ["branchingRatio", (t) => t.branching.mean],
    ["mainTopics", (t) => (t.merged ? t.merged.mainTopicCount : null)],
    ["subtopics", (t) => (t.merged ? t.merged.subtopicCount : null)],
  ];
  if (reviewed) measures.push(["reviewedBranchingRatio", (t) => t.reviewed?.branchingRatio ?? null]);
  report.conditions = compareMeasures(
    measures.map(([measure, get]) => ({
      measure,
      level,
      values: trees.map((t): UnitValue => ({ session: t.session, participant: t.participant ?? undefined, condition: t.condition, value: get(t) })),
    })),
    compare,
  );
}
