import type { CachedReply } from "../cache.js";
import type { BatchAnswer } from "./results.js";

/** The answer to each request of the batches being collected (undefined: not one of their requests). */
export interface BatchReplies {
  get(key: string): Promise<BatchAnswer | undefined>;
}

/** Marks a request the batch answered (its reply is in the response cache, or aside when cut off). */
const ANSWERED = "\u0000answered";

/**
 * The replies of the batches being collected, without holding them: a reply the response cache
 * keeps is written there as its line is read (the caller does it), and only what the cache does
 * not keep (error lines, replies cut off at max tokens) is held here. So memory is one map entry
 * per request (its key is the ledger's string), not one reply per request: 100,000 replies held
 * at once were most of a collect's live memory.
 */
export class CollectedReplies implements BatchReplies {
  /** Request key -> why the batch did not answer it, or ANSWERED. */
  private readonly asked = new Map<string, string>();
  /** Answers the cache does not keep: failures and cut-off replies. */
  private readonly aside = new Map<string, BatchAnswer>();

  /** `recall`: a reply from the response cache by request key. */
  constructor(private readonly recall: (key: string) => Promise<CachedReply | undefined>) {}

  /** The requests of one batch, each unanswered (for `why`) until `add` answers it. */
  expect(keys: Iterable<string>, why: string): void {
    for (const key of keys) if (!this.asked.has(key)) this.asked.set(key, why);
  }

  /**
   * One line of a batch's files. Returns "new" for the first successful reply to a request (to be
   * kept in the response cache unless cut off, see `keepsInCache`), "ignored" for a line of no
   * request of these batches, or for a failure of a request already answered, else "held".
   */
  add(key: string, answer: BatchAnswer): "new" | "held" | "ignored" {
    const state = this.asked.get(key);
    if (state === undefined || state === ANSWERED) return "ignored";
    if (answer.ok) {
      this.asked.set(key, ANSWERED);
      if (keepsInCache(answer)) this.aside.delete(key);
      else this.aside.set(key, answer);
      return "new";
    }
    this.aside.set(key, answer);
    return "held";
  }

  answered(key: string): boolean {
    return this.asked.get(key) === ANSWERED;
  }

  async get(key: string): Promise<BatchAnswer | undefined> {
    const state = this.asked.get(key);
    if (state === undefined) return undefined;
    const held = this.aside.get(key);
    if (state !== ANSWERED) return held ?? { ok: false, message: state };
    if (held) return held;
    const reply = await this.recall(key);
    if (!reply) return { ok: false, message: "its reply was kept in the response cache, but is no longer there (was .cache removed during the collect?)" };
    return { ok: true, text: reply.text, model: reply.model, usage: reply.usage, finishReason: reply.finishReason };
  }
}

/** The response cache keeps every successful reply but those cut off at max tokens (not a usable answer). */
export const keepsInCache = (answer: BatchAnswer): answer is Extract<BatchAnswer, { ok: true }> => answer.ok && answer.finishReason !== "length";
