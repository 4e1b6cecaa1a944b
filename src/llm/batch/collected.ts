import type { CachedReply } from "../cache.js";
import type { BatchAnswer } from "./results.js";

/** The answer to each request of the batches being collected (undefined: not one of their requests). */
export interface BatchReplies {
  get(key: string): Promise<BatchAnswer | undefined>;
}

/** One batch being collected: its request keys (the ledger's) and why a request it did not answer went unanswered. */
export interface ExpectedBatch {
  requests: readonly string[];
  why: string;
}

/** State of a request the batch answered (its reply is in the response cache, or aside when cut off). */
const ANSWERED = -1;

/**
 * The replies of the batches being collected, without holding them: a reply the response cache
 * keeps is written there as its line is read (the caller does it), and only what the cache does
 * not keep (error lines, replies cut off at max tokens) is held here.
 *
 * The requests are the ledger's own key strings in one sorted array (found by binary search),
 * with one number each for their state, rather than a map of copies: a collect's live memory was
 * mostly request keys held by several structures (issue 40: 100,000 keys as 64-character strings
 * in four maps and sets). `own` gives the ledger's string for a key read from a reply, so the
 * response cache's index keeps that one too.
 */
export class CollectedReplies implements BatchReplies {
  /** Every request of the batches, sorted, each once. */
  private readonly keys: string[];
  /** Per request (the order of `keys`): ANSWERED, or the index in `whys` of why it is not answered. */
  private readonly states: Int32Array;
  private readonly whys: string[];
  /** Answers the cache does not keep: failures and cut-off replies. */
  private readonly aside = new Map<string, BatchAnswer>();

  /**
   * `recall`: a reply from the response cache by request key. `batches`: every batch being
   * collected; a request in several keeps the first one's `why`.
   */
  constructor(
    private readonly recall: (key: string) => Promise<CachedReply | undefined>,
    batches: readonly ExpectedBatch[],
  ) {
    this.whys = batches.map((b) => b.why);
    const all: string[] = [];
    const whyOf: number[] = [];
    batches.forEach((batch, i) => {
      for (const key of batch.requests) {
        all.push(key);
        whyOf.push(i);
      }
    });
    // Sorted by key, then by batch: the first of equal keys is the first batch's.
    const order = Array.from(all.keys()).sort((a, b) => compare(all[a]!, all[b]!) || a - b);
    const kept = order.filter((at, i) => i === 0 || all[at] !== all[order[i - 1]!]);
    this.keys = kept.map((at) => all[at]!);
    this.states = Int32Array.from(kept, (at) => whyOf[at]!);
  }

  /** Where `key` is in `keys`, or -1. */
  private find(key: string): number {
    let low = 0;
    let high = this.keys.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const order = compare(this.keys[mid]!, key);
      if (order === 0) return mid;
      if (order < 0) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** The ledger's string for a request key (so one copy of it is held), or the key itself when it is not one of these requests. */
  own(key: string): string {
    const at = this.find(key);
    return at < 0 ? key : this.keys[at]!;
  }

  /**
   * One line of a batch's files. Returns "new" for the first successful reply to a request (to be
   * kept in the response cache unless cut off, see `keepsInCache`), "ignored" for a line of no
   * request of these batches, or for a failure of a request already answered, else "held".
   */
  add(key: string, answer: BatchAnswer): "new" | "held" | "ignored" {
    const at = this.find(key);
    if (at < 0 || this.states[at] === ANSWERED) return "ignored";
    if (answer.ok) {
      this.states[at] = ANSWERED;
      if (keepsInCache(answer)) this.aside.delete(key);
      else this.aside.set(this.keys[at]!, answer);
      return "new";
    }
    this.aside.set(this.keys[at]!, answer);
    return "held";
  }

  answered(key: string): boolean {
    const at = this.find(key);
    return at >= 0 && this.states[at] === ANSWERED;
  }

  async get(key: string): Promise<BatchAnswer | undefined> {
    const at = this.find(key);
    if (at < 0) return undefined;
    const state = this.states[at]!;
    const held = this.aside.get(key);
    if (state !== ANSWERED) return held ?? { ok: false, message: this.whys[state]! };
    if (held) return held;
    const reply = await this.recall(key);
    if (!reply) return { ok: false, message: "its reply was kept in the response cache, but is no longer there (was .cache removed during the collect?)" };
    return { ok: true, text: reply.text, model: reply.model, usage: reply.usage, finishReason: reply.finishReason };
  }
}

/** Code-unit order (what `<` does on strings), as a comparator. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The response cache keeps every successful reply but those cut off at max tokens (not a usable answer). */
export const keepsInCache = (answer: BatchAnswer): answer is Extract<BatchAnswer, { ok: true }> => answer.ok && answer.finishReason !== "length";
