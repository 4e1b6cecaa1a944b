import type { LlmClient } from "../client.js";
import type { ChatResult } from "../types.js";
import type { BatchReplies } from "./collected.js";

/**
 * A ChatModel that answers from a collected batch, so the coder that consumes it (parsing,
 * validation, re-ask policy, aggregation of samples, failures file) is the online one, unchanged:
 *   - a request the batch answered gets that reply (kept in the response cache as it was read);
 *   - a request the batch failed (error line, expired, validation) is a failure naming why;
 *   - a follow-up request (purpose ending in "-reask": a reply failed validation) goes online,
 *     through the real client and its cache, like any online re-ask;
 *   - a request already in the response cache is answered from it;
 *   - anything else was not part of what is being collected (still in a pending batch, or the
 *     study changed since): "aborted", so the turn is neither coded nor failed, left for later.
 */
export function batchAnsweredModel(model: LlmClient, answers: BatchReplies): LlmClient {
  return {
    ...model,
    async complete(request): Promise<ChatResult> {
      if (request.purpose?.endsWith("-reask")) return model.complete(request);
      const key = model.requestHash(request);
      const answer = await answers.get(key);
      if (answer?.ok) {
        return {
          ok: true,
          response: {
            text: answer.text,
            model: answer.model,
            usage: answer.usage,
            latencyMs: 0,
            cached: false,
            finishReason: answer.finishReason,
            requestHash: key,
            httpRequests: 0,
          },
        };
      }
      // "unknown", not "bad_request": one failed request must not stop the others' collection.
      if (answer)
        return { ok: false, error: { kind: "unknown", message: `the batch did not answer this request (${answer.message})`, attempts: 1, httpRequests: 0 } };
      if (await model.isCached(request, key)) return model.complete(request);
      return { ok: false, error: { kind: "aborted", message: "not in the batches being collected", attempts: 0, httpRequests: 0 } };
    },
  };
}
