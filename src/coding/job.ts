import { setMaxListeners } from "node:events";
import { diskReader, type StudyReader } from "../study/reader.js";
import { addCounts, countPlans, countsOf, noCounts, planCoding, sessionPlans, type CodingPlan } from "./job-plan.js";
import { createWriter } from "./job-writer.js";
import { offlineCoder } from "./job-offline.js";
import { pruneFailures, readFailures } from "./store.js";
import type { Codebook } from "./codebook/schema.js";
import type { Session } from "../transcript/schema.js";
import { sessionFingerprints } from "../transcript/fingerprint.js";
import type { ChatMessage, ChatModel, ChatRequest, ChatResult } from "../llm/types.js";
import { mapLimit } from "../util/concurrency.js";
import { silentReporter, type Reporter } from "../util/reporter.js";
import { rulesProblem } from "./rules/index.js";
import { createLlmCoder, type AnsweredReply, type LlmCoder, type TurnOutcome } from "./llm/coder.js";
import type { ExamplePicker } from "./llm/examples.js";
import type { LearnedCoder } from "./learned/coder.js";
import type { Calibration } from "./learned/calibration.js";
import type { LearningCurvePoint } from "./learned/curve.js";
import type { CoderValidation } from "./learned/floor.js";
import type { ModelSettings } from "./learned/model.js";
import type { ViewComparison } from "./learned/validate.js";
import type { CodeRecord } from "./records.js";
import { estimateTokens, type ContextWindow } from "./llm/prompt.js";
import { batchPrice, estimateCost, priceFor, type ModelPrice } from "../llm/prices.js";
import { isLoopbackEndpoint } from "../llm/config.js";
import { describeRepair, type JsonlRepair } from "../util/fs.js";
import { collectGarbage } from "../util/memory.js";

/**
 * A coding job: code every turn of the selected sessions that this codebook + coder has not
 * coded yet, appending records as they complete (in small batches), so a killed run re-run
 * codes only what is left; with the response cache, requests that finished before the kill are
 * not paid for again. Failures go to the coder's failures file with the raw reply and are
 * retried by the next run.
 * Which turns are coded (not system, reasoning or empty ones): see job-plan.ts.
 */

export interface CodingJobOptions {
  study: string;
  sessions: readonly Session[];
  codebook: Codebook;
  coder: "llm" | "rules" | "learned";
  /** Required for the learned coder: the classifier trained on the study's human codes. */
  learner?: LearnedCoder;
  /** Rules coder: its agreement with this study's human codes (stored with every code). */
  rulesValidation?: CoderValidation;
  /** Learned coder: list coded turns whose prediction has a lower probability than this. */
  reviewBelow?: number;
  /** Learned coder: also measure agreement against training-set size (trains a model per size and fold). */
  learningCurve?: boolean;
  /** Stored coder id; default "llm", "rules" or "learned" (e.g. "llm:gpt-4o" to compare models). */
  coderId?: string;
  /** Required for the llm coder. */
  model?: ChatModel & {
    formatSupport?: () => string;
    forget?: (requestHash: string) => Promise<void>;
    isCached?: (request: ChatRequest) => Promise<boolean>;
    config?: { concurrency: number; prices?: Record<string, { input: number; output: number }>; baseURL?: string };
  };
  context?: ContextWindow;
  samples?: number;
  batch?: number;
  seed?: number;
  noCache?: boolean;
  /** LLM coder: worked examples from the researchers' codes, picked per request. */
  examples?: ExamplePicker;
  /**
   * LLM coder, collecting a batch: the batch's reply to a request, by request hash. Units whose
   * reply is valid are coded from it directly (no call through the model); the others go
   * through the coder as usual (re-asks, failures).
   */
  answered?: (requestHash: string) => Promise<AnsweredReply | undefined>;
  reporter?: Reporter;
  signal?: AbortSignal;
  /**
   * One session with its turns, read anew (from its file): the passes that need one session at a
   * time (offline coding, a collected batch, the batch's requests) then hold one session's turns,
   * and `sessions` may be heads whose turns are never read. Default: the sessions given.
   */
  load?: (session: Session) => Session | Promise<Session>;
  /** Where the already-stored records come from (default: the codes file). */
  reader?: StudyReader;
  /** Records per append (default 50); also flushed every `flushMs` (default 500 ms). */
  flushEvery?: number;
  flushMs?: number;
}

export interface CodingSummary {
  codebook: string;
  codebookVersion: string;
  coder: string;
  sessions: number;
  /** Codeable turns in the selected sessions. */
  turns: number;
  alreadyCoded: number;
  coded: number;
  /** Turns this run could not code (earlier runs' failures are not counted). */
  failed: number;
  /** Coded turns whose every request was answered from the cache. */
  cached: number;
  skipped: Record<string, number>;
  skippedTotal: number;
  /** Turns not reached because the run was aborted. */
  remaining: number;
  aborted: boolean;
  /** HTTP requests sent: every attempt, re-asks, retries and failed attempts included. */
  requests: number;
  /** Of `requests`, attempts that brought no usable reply (error status, timeout, lost connection, abort). */
  failedRequests: number;
  /** Of `requests`, attempts that repeated an earlier one (retries, structured-output fallbacks). */
  retriedRequests: number;
  cachedRequests: number;
  promptTokens: number;
  completionTokens: number;
  /** `promptTokens`, `completionTokens` and `estimatedCost` count replies the endpoint sent (not the cache). */
  /** Prompt tokens per coded turn, cached replies included (what batching saves). */
  promptTokensPerTurn?: number;
  estimatedCost?: number;
  elapsedMs: number;
  failuresFile?: string;
  /** Entries of the failures file dropped at the end because their turn now has a code. */
  failuresResolved: number;
  /** Learned coder: what it learned from and its cross-validated agreement with the human codes. */
  learned?: {
    trainedOn: string[];
    trainingSize: number;
    validation: {
      folds: number;
      kappa: number;
      agreement: number;
      n: number;
      ratings?: number;
      sessions: number;
      interval?: { lower: number; upper: number };
      settings: ModelSettings;
      /** Which model codes, and the kappas it was chosen by. */
      views?: ViewComparison;
      calibration: Calibration;
    };
    /** Whether the estimate clears the floor, as stored with the codes. */
    status: CoderValidation;
    curve?: LearningCurvePoint[];
  };
  /** Learned coder with reviewBelow: the turns it is least sure about, for a person to check. */
  review?: { session: string; turn: string; text: string; codes?: string[]; scores?: Record<string, number>; confidence: number }[];
  /** Torn lines found before appending, moved to .torn files (also reported as warnings). */
  repairs: JsonlRepair[];
  /**
   * Set when the endpoint refused a request in a way every other turn would repeat (bad key,
   * unknown model, unsupported parameter): the job stops at once instead of failing every turn.
   */
  stoppedBy?: string;
  /** What stopped it: the endpoint ("auth", "bad_request") or the response cache ("storage"). */
  stoppedKind?: string;
}

export { SKIPPED_TURN_TYPES, skipReason, planCoding, type CodingPlan, type CodingUnit } from "./job-plan.js";
export { formatCodingSummary } from "./job-summary.js";

/** Error kinds that would fail every remaining request the same way. */
const FATAL_KINDS = new Set(["auth", "bad_request", "storage"]);

/** Completion tokens we expect per coded turn, for --dry-run estimates (a short JSON answer). */
export const EST_COMPLETION_TOKENS_PER_TURN = { nominal: 40, scales: 70 } as const;

export interface DryRun {
  /** The exact messages of the first request. */
  example?: { session: string; turns: string[]; messages: ChatMessage[] };
  units: number;
  requests: number;
  /** Of `requests`, how many the response cache would answer (free). */
  cachedRequests: number;
  promptTokens: number;
  completionTokens: number;
  estimatedCost?: number;
  turns: number;
  alreadyCoded: number;
  toCode: number;
  skipped: Record<string, number>;
}

/** Turns this codebook x coder already coded (current version), as session\u0000turn keys. */
export async function doneSet(options: CodingJobOptions, coderId: string): Promise<Set<string>> {
  const existing = await (options.reader ?? diskReader(options.study)).codes(options.codebook.id, coderId);
  // A learned code made from another training set (more human codes since) is made again.
  const trainingHash = options.coder === "learned" ? options.learner?.trainingHash : undefined;
  const current = (r: CodeRecord) =>
    r.codebookVersion === options.codebook.version && (trainingHash === undefined || r.provenance.trainingHash === trainingHash);
  return new Set(existing.filter(current).map((r) => `${r.session}\u0000${r.turn}`));
}

export function coderIdOf(options: CodingJobOptions): string {
  return options.coderId ?? options.coder;
}

export function makeLlmCoder(options: CodingJobOptions): LlmCoder {
  if (!options.model) throw new Error("the llm coder needs a model");
  return createLlmCoder({
    model: options.model,
    codebook: options.codebook,
    context: options.context,
    samples: options.samples,
    batch: options.batch,
    seed: options.seed,
    noCache: options.noCache,
    examples: options.examples,
  });
}

function priceOf(options: CodingJobOptions) {
  const model = options.model;
  return model ? priceFor(model.info.model, { overrides: model.config?.prices, local: isLoopbackEndpoint(model.config?.baseURL) }) : undefined;
}

/**
 * A record's share of what its requests cost (`provenance.spent`, from the LLM coder) gains its
 * price in USD: the model's price, or the Batch API's for a reply collected from a batch. Without
 * a known price the tokens stay and the cost is left out (never a guess).
 */
function withCost(provenance: Record<string, unknown>, price: ModelPrice | undefined): Record<string, unknown> {
  const spent = provenance.spent as { promptTokens: number; completionTokens: number; batch?: boolean } | undefined;
  if (!spent) return provenance;
  const cost = estimateCost(spent.batch ? batchPrice(price) : price, spent.promptTokens, spent.completionTokens);
  return cost === undefined ? provenance : { ...provenance, spent: { ...spent, cost: Number(cost.toPrecision(6)) } };
}

/** What a run would do and cost, without calling the model; with `load`, reading one session at a time. */
export async function dryRunCoding(options: CodingJobOptions): Promise<DryRun> {
  const counts = noCounts();
  const samples = options.samples ?? 1;
  let units = 0;
  let promptTokens = 0;
  let cachedRequests = 0;
  let example: DryRun["example"];
  const coder = options.coder === "llm" ? makeLlmCoder(options) : undefined;
  for await (const plan of sessionPlans(options.sessions, await doneSet(options, coderIdOf(options)), options.batch ?? 1, options.load)) {
    addCounts(counts, plan);
    units += plan.units.length;
    if (!coder) continue;
    for (const unit of plan.units) {
      const req = coder.request(unit.session, unit.targets, 0);
      example ??= { session: unit.session.id, turns: unit.targets.map((i) => unit.session.turns[i].id), messages: req.messages };
      promptTokens += estimateTokens(req.messages) * samples;
      for (let s = 0; s < samples && options.model?.isCached; s++) {
        if (await options.model.isCached(coder.request(unit.session, unit.targets, s))) cachedRequests++;
      }
    }
  }
  const { toCode } = counts;
  const completionTokens = options.coder === "llm" ? toCode * samples * EST_COMPLETION_TOKENS_PER_TURN[options.codebook.kind] : 0;
  const price = priceOf(options);
  return {
    example,
    units,
    requests: options.coder === "llm" ? units * samples : 0,
    cachedRequests,
    promptTokens,
    completionTokens,
    estimatedCost: options.coder === "llm" ? estimateCost(price, promptTokens, completionTokens) : 0,
    turns: counts.turns,
    alreadyCoded: counts.alreadyCoded,
    toCode,
    skipped: counts.skipped,
  };
}

/** Units of a collected batch coded before their records are appended and garbage is collected (see runCodingJob). */
const ANSWERED_WINDOW = 10_000;

/** Run the job. Never throws for per-turn failures: they are counted, written and returned. */
export async function runCodingJob(options: CodingJobOptions): Promise<CodingSummary> {
  const started = performance.now();
  const reporter = options.reporter ?? silentReporter;
  const coderId = coderIdOf(options);
  const { codebook, study } = options;
  const price = priceOf(options);
  // Our own controller: aborts on the caller's signal (Ctrl-C).
  const stop = new AbortController();
  // Every in-flight request (and retry wait) listens on this signal: lift the default cap of 10.
  setMaxListeners(0, stop.signal);
  const onAbort = () => stop.abort(options.signal?.reason);
  if (options.signal?.aborted) stop.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const signal = stop.signal;
  // Set when going on is pointless (a fatal error, codes that cannot be stored): no new request
  // starts, but those in flight finish and their replies are kept (aborting them would leave
  // replies the provider bills and nobody reads, asked for again by the next run).
  let halted = false;
  const halting = new AbortController();
  const halt = () => {
    halted = true;
    // Requests already waiting for a slot (or a retry) are not sent either.
    halting.abort();
  };
  // Decided inside the request's slot (llm/client.ts), so no request waiting for a slot starts after a fatal error.
  const haltOnFatal = (result: ChatResult) => {
    if (!result.ok && FATAL_KINDS.has(result.error.kind)) halt();
  };
  const noRules = options.coder === "rules" ? rulesProblem(codebook) : undefined;
  if (noRules) throw new Error(noRules);
  const done = await doneSet(options, coderId);
  const batch = options.batch ?? 1;
  // Offline coders and a collected batch code one session at a time (read, coded, let go) when
  // given `load`; an LLM coding online plans the whole study at once. Offline coding counts as it
  // goes (one pass: it is as fast as reading); a collected batch counts first, in a pass of its own.
  const offlineOneByOne = Boolean(options.load) && options.coder !== "llm";
  const oneByOne = offlineOneByOne || Boolean(options.answered && options.load);
  const plans = () => sessionPlans(options.sessions, done, batch, options.load);
  const whole = oneByOne ? undefined : planCoding(options.sessions, done, batch);
  const plan = whole ? countsOf(whole) : offlineOneByOne ? noCounts() : await countPlans(plans());
  // Counting read every session: their turns are garbage now, and would pile up with the first window's.
  if (!whole && !offlineOneByOne) collectGarbage();
  let { toCode } = plan;
  const repairs: JsonlRepair[] = [];
  // The turns of earlier failures not coded yet: the end of the run prunes those this run codes.
  const key = (session: string, turn: string) => `${session}\u0000${turn}`;
  const failedBefore = new Set((await readFailures(study, codebook.id, coderId)).map((f) => key(f.session, f.turn)).filter((k) => !done.has(k)));
  const writer = createWriter(study, {
    every: options.flushEvery ?? 50,
    everyMs: options.flushMs ?? 500,
    watch: failedBefore,
    onRepair: (repair) => {
      repairs.push(repair);
      reporter.warn(describeRepair(repair, study));
    },
    // Replies that cannot be stored are not worth paying for: stop asking.
    onError: halt,
  });
  const summary: CodingSummary = {
    codebook: codebook.id,
    codebookVersion: codebook.version,
    coder: coderId,
    sessions: options.sessions.length,
    turns: plan.turns,
    alreadyCoded: plan.alreadyCoded,
    coded: 0,
    failed: 0,
    cached: 0,
    skipped: plan.skipped,
    skippedTotal: 0,
    remaining: 0,
    aborted: false,
    requests: 0,
    failedRequests: 0,
    retriedRequests: 0,
    cachedRequests: 0,
    promptTokens: 0,
    completionTokens: 0,
    elapsedMs: 0,
    failuresResolved: 0,
    repairs,
  };
  const task = `coding ${codebook.id} (${coderId})`;
  let finished = 0;
  // Counted as they are read: the study's turns are not known before the last session.
  let sessionsRead = 0;
  const progress = () =>
    offlineOneByOne ? reporter.progress(`${task}, sessions`, sessionsRead, options.sessions.length) : reporter.progress(task, finished, toCode);
  progress();
  const now = () => new Date().toISOString();

  /** Store one outcome of a unit of `session` (whose fingerprints each record keeps: coding/currency.ts). */
  const record = (session: Session, outcome: TurnOutcome) => {
    if (outcome.status === "aborted") return;
    finished++;
    if (outcome.status === "failed") {
      summary.failed++;
      if (outcome.errorKind && FATAL_KINDS.has(outcome.errorKind) && !summary.stoppedBy) {
        summary.stoppedBy = outcome.reason;
        summary.stoppedKind = outcome.errorKind;
        halt();
      }
      writer.failure({
        session: outcome.session,
        turn: outcome.turn,
        codebook: codebook.id,
        coder: coderId,
        reason: outcome.reason,
        raw: outcome.raw,
        createdAt: now(),
      });
    } else {
      summary.coded++;
      if (outcome.cached) summary.cached++;
      writer.code({
        session: outcome.session,
        turn: outcome.turn,
        fingerprint: sessionFingerprints(session).get(outcome.turn),
        codebook: codebook.id,
        codebookVersion: codebook.version,
        coder: coderId,
        ...outcome.value,
        ...(outcome.samples ? { samples: outcome.samples } : {}),
        provenance: withCost(outcome.provenance, price),
        createdAt: now(),
      });
    }
  };

  try {
    const offline = offlineCoder(options, summary);
    if (offline) {
      let queued = 0;
      for await (const some of whole ? [whole] : plans()) {
        if (offlineOneByOne) {
          addCounts(plan, some);
          toCode = plan.toCode;
          sessionsRead++;
        }
        // A failed write (the only halt offline) fails the job: nothing more to count. After Ctrl-C the
        // other sessions are still read (not coded), so what was not reached is counted.
        if (halted) break;
        if (signal.aborted) continue;
        for (const unit of some.units) {
          // About 20,000 records at a time go to disk before more are made: a loop that never waited
          // queued every record of the study and wrote them as one string (1,000,000 turns: out of memory).
          // Written records are garbage in the old space by then, and V8 let them pile up (100,000 turns:
          // 640 MB peak for ~150 MB alive); a collection after each window keeps the peak near what is alive (issue 40).
          if (queued >= 20_000) {
            await writer.flush();
            queued = 0;
            collectGarbage();
          }
          // The flush is where a stop can land (the only wait): a session of 60,000 turns stops within it.
          if (signal.aborted || halted) break;
          queued += unit.targets.length;
          for (const index of unit.targets) {
            const turn = unit.session.turns[index];
            const ref = { session: unit.session.id, turn: turn.id, index };
            try {
              record(unit.session, { ...ref, status: "coded", cached: false, ...offline(unit.session, index) });
            } catch (error) {
              record(unit.session, { ...ref, status: "failed", reason: `${options.coder} coder error: ${(error as Error).message}`, cached: false });
            }
          }
          if (!offlineOneByOne) progress();
        }
        if (offlineOneByOne) progress();
      }
    } else {
      const coder = makeLlmCoder(options);
      let units = whole?.units ?? [];
      if (options.answered) {
        // A collected batch: most units are coded from their reply at once, in one loop, a window
        // of units at a time: their records are on disk before the next window is coded (a loop
        // that only yielded let 100,000 records pile up in memory while appends lagged behind).
        const rest: typeof units = [];
        let unitsCoded = 0;
        const passes: Iterable<CodingPlan> | AsyncIterable<CodingPlan> = whole ? [whole] : plans();
        coding: for await (const { units: some } of passes) {
          for (const unit of some) {
            if (signal.aborted || halted) break coding;
            const outcomes = await coder.codeFromReply(unit.session, unit.targets, options.answered);
            if (outcomes) outcomes.forEach((outcome) => record(unit.session, outcome));
            else rest.push(unit);
            if (++unitsCoded % ANSWERED_WINDOW === 0) {
              reporter.progress(task, finished, toCode);
              await writer.flush();
              // The window's records and replies reached V8's old space before they were written;
              // let them go now, or they pile up as garbage to ~3x what is alive (as offline coding's windows).
              collectGarbage();
            }
          }
        }
        units = rest;
        reporter.progress(task, finished, toCode);
      }
      // More workers than HTTP slots so cache hits and parsing never leave a slot idle;
      // the ChatModel's own limiter bounds what reaches the endpoint.
      const workers = Math.max(1, (options.model?.config?.concurrency ?? 8) * 2);
      await mapLimit(units, workers, async (unit) => {
        if (signal.aborted || halted) return;
        const outcomes = await coder.code(unit.session, unit.targets, { signal, stopStarting: halting.signal, onResult: haltOnFatal });
        outcomes.forEach((outcome) => record(unit.session, outcome));
        reporter.progress(task, finished, toCode);
      });
      const stats = coder.stats();
      summary.requests = stats.requests;
      summary.failedRequests = stats.failedRequests;
      summary.retriedRequests = stats.retriedRequests;
      summary.cachedRequests = stats.cachedRequests;
      summary.promptTokens = stats.paidPromptTokens;
      summary.completionTokens = stats.paidCompletionTokens;
      if (summary.coded > 0) summary.promptTokensPerTurn = stats.promptTokens / summary.coded;
      summary.estimatedCost = estimateCost(price, stats.paidPromptTokens, stats.paidCompletionTokens);
    }
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    await writer.flush();
  }
  // Failures of turns that now have a code (an earlier run's, coded by this one) are history.
  const pruned = await pruneFailures(study, codebook.id, coderId, (s, t) => done.has(key(s, t)) || writer.stored.has(key(s, t)));
  summary.failuresResolved = pruned.removed;
  if (pruned.repair) {
    repairs.push(pruned.repair);
    reporter.warn(describeRepair(pruned.repair, study));
  }
  // Counted while coding when the sessions were read one at a time.
  Object.assign(summary, { turns: plan.turns, alreadyCoded: plan.alreadyCoded, skipped: plan.skipped });
  summary.skippedTotal = Object.values(plan.skipped).reduce((a, b) => a + b, 0);
  summary.remaining = toCode - finished;
  summary.aborted = (signal.aborted || halted) && summary.remaining > 0;
  summary.elapsedMs = Math.round(performance.now() - started);
  if (summary.failed > 0) summary.failuresFile = `codes/${codebook.id}/${encodeURIComponent(coderId)}.failures.jsonl`;
  return summary;
}
