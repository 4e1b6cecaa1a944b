import type { LlmClient } from "../llm/client.js";
import type { BatchRequestLine } from "../llm/batch/files.js";
import { sessionPlans } from "./job-plan.js";
import { EST_COMPLETION_TOKENS_PER_TURN, coderIdOf, doneSet, makeLlmCoder, type CodingJobOptions } from "./job.js";
import { estimateTokens } from "./llm/prompt.js";

/**
 * The requests of a coding job, for a batch: exactly those the online job would send first
 * (same coder, same prompts, same cache keys, same wire body), minus turns already coded,
 * requests the response cache already answers and requests waiting in an open batch.
 * Follow-ups (re-asks of replies that fail validation) are not known yet: collection sends them.
 */

export interface BatchPlanCounts {
  /** Codeable turns not yet coded. */
  toCode: number;
  alreadyCoded: number;
  /** Requests written to the batch files. */
  requests: number;
  /** Requests skipped because the response cache answers them (collection codes those turns). */
  cached: number;
  /** Requests skipped because an open batch already asks them. */
  pending: number;
  /** Estimated prompt and completion tokens of the written requests (chars / 4). */
  promptTokens: number;
  completionTokens: number;
}

export function codingBatchRequests(
  options: CodingJobOptions & { model: LlmClient },
  open: ReadonlySet<string>,
): { counts: BatchPlanCounts; lines: AsyncGenerator<BatchRequestLine> } {
  const counts: BatchPlanCounts = { toCode: 0, alreadyCoded: 0, requests: 0, cached: 0, pending: 0, promptTokens: 0, completionTokens: 0 };
  const samples = options.samples ?? 1;
  const perTurn = EST_COMPLETION_TOKENS_PER_TURN[options.codebook.kind];
  async function* lines(): AsyncGenerator<BatchRequestLine> {
    const done = await doneSet(options, coderIdOf(options));
    const coder = makeLlmCoder(options);
    const seen = new Set<string>();
    // One session at a time (with `load`): its requests are written before the next is read.
    for await (const plan of sessionPlans(options.sessions, done, options.batch ?? 1, options.load)) {
      counts.alreadyCoded += plan.alreadyCoded;
      for (const unit of plan.units) {
        counts.toCode += unit.targets.length;
        for (let sample = 0; sample < samples; sample++) {
          const request = coder.request(unit.session, unit.targets, sample);
          const key = options.model.requestHash(request);
          if (seen.has(key)) continue;
          seen.add(key);
          if (open.has(key)) counts.pending++;
          else if (await options.model.isCached(request, key)) counts.cached++;
          else {
            counts.requests++;
            counts.promptTokens += estimateTokens(request.messages);
            counts.completionTokens += unit.targets.length * perTurn;
            yield { key, body: options.model.wireRequest(request) };
          }
        }
      }
    }
  }
  return { counts, lines: lines() };
}
