import type { LlmClient } from "../client.js";
import type { ChatResult } from "../types.js";
import type { BatchRequestLine } from "./files.js";

/**
 * A ChatModel that answers nothing new: it notes each first request a stage would send (its
 * cache key and exact wire body) for a batch, and answers only from the response cache. The
 * stage runs as usual; its unanswered requests come back "aborted" and its result is thrown
 * away. Used for stages whose requests are decided inside the analysis (topics), so the batch
 * holds exactly the requests the online run would send. Requests in `skip` (already in an open
 * batch) are not noted again.
 */
export function recordingModel(
  model: LlmClient,
  skip: ReadonlySet<string>,
): { model: LlmClient; lines: BatchRequestLine[]; counts: { cached: number; pending: number } } {
  const lines: BatchRequestLine[] = [];
  const seen = new Set<string>();
  const counts = { cached: 0, pending: 0 };
  const aborted: ChatResult = { ok: false, error: { kind: "aborted", message: "recorded for a batch", attempts: 0, httpRequests: 0 } };
  return {
    lines,
    counts,
    model: {
      ...model,
      async complete(request) {
        if (request.purpose?.endsWith("-reask")) return aborted;
        const key = model.requestHash(request);
        if (await model.isCached(request, key)) {
          counts.cached++;
          return model.complete(request);
        }
        if (skip.has(key)) counts.pending++;
        else if (!seen.has(key)) {
          seen.add(key);
          lines.push({ key, body: model.wireRequest(request) });
        }
        return aborted;
      },
    },
  };
}
