import type { ModelCliOptions } from "../llm/config.js";
import { CliError } from "../util/errors.js";
import { runCode, type CodeSummary } from "./code.js";
import { downloadFinished, markCollected, type BatchStatusLine, type CodingBatchJob, type CollectedJob } from "./batch.js";
import { runTopics, type TopicsStageOptions, type TopicsSummary } from "./topics.js";
import type { StageEffects, StudyContext } from "./context.js";

/**
 * `colloquy batch collect`: download every finished batch, keep the replies in the response
 * cache, then run the coding job the batch was made for, answered from those replies. So the
 * codes are made by the online coder's own parsing and validation; a reply that fails
 * validation is re-asked online once (never stored as a code); a request the batch did not
 * answer is a failure in the coder's failures file, submitted again by the next
 * `colloquy code --via batch`. Safe to run again at any point: nothing is asked twice.
 */

export interface CollectSummary {
  collected: (Omit<CollectedJob, "answers" | "model" | "entries"> & { coding?: CodeSummary; topics?: TopicsSummary })[];
  /** Batches still running. */
  waiting: BatchStatusLine[];
}

/** Code records per append while collecting, and the longest wait before one (ms). */
const COLLECT_FLUSH_EVERY = 5000;
const COLLECT_FLUSH_MS = 2000;

export async function collectBatches(
  context: StudyContext,
  cli: ModelCliOptions,
  options: { signal?: AbortSignal },
  effects: StageEffects,
): Promise<CollectSummary> {
  const { jobs, waiting, ledger } = await downloadFinished(context, cli, effects, options.signal);
  const summary: CollectSummary = { collected: [], waiting };
  for (const job of jobs) {
    if (job.kind === "topics") {
      const topics = await runTopics(
        context,
        {
          ...(job.job as TopicsStageOptions),
          coder: "llm",
          model: { ...cli, model: job.model.info.model, ...(job.job.model as object) },
          answers: job.answers,
        },
        effects,
      );
      await markCollected(context.dir, ledger, job);
      const { answers: _a, model: _m, entries: _e, ...rest } = job;
      summary.collected.push({ ...rest, topics });
      continue;
    }
    const spec = job.job as unknown as CodingBatchJob;
    if (typeof spec.codebook !== "string") throw new CliError(`batches.json: the batches of ${job.label} do not name their codebook; they cannot be collected`);
    const coding = await runCode(
      context,
      {
        codebook: spec.codebook,
        coder: "llm",
        coderId: spec.coderId,
        context: spec.context,
        samples: spec.samples,
        batch: spec.batch,
        examples: spec.examples,
        shots: spec.shots,
        examplesExcludeSession: spec.examplesExcludeSession,
        sessions: spec.sessions,
        model: { ...cli, model: job.model.info.model, seed: spec.seed, temperature: spec.temperature },
        answers: job.answers,
        signal: options.signal,
        // Large appends: every reply is already in the response cache, so a killed collect
        // loses nothing paid for, and 100,000 records cost 20 appends, not 2,000.
        flushEvery: COLLECT_FLUSH_EVERY,
        flushMs: COLLECT_FLUSH_MS,
      },
      effects,
    );
    // Only once the codes and failures are stored: a killed collect is simply run again.
    if (!options.signal?.aborted) await markCollected(context.dir, ledger, job);
    const { answers: _a, model: _m, entries: _e, ...rest } = job;
    summary.collected.push({ ...rest, coding });
  }
  return summary;
}
