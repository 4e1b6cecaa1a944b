import type { PostRecord } from "./journal.js";

/**
 * When each person's words came and how long they took, kept until the turn that says them:
 * `receivedAt` (wall clock, when the page or terminal received them) and `latencySeconds`, from
 * the prompt when they were asked, else from the last turn said before they came (what the
 * person had seen). Several posts of one person wait in order; a post a strategy reads as a
 * command ("/hand") is never said, so a turn takes the first waiting entry with its text.
 */
export class HumanTiming {
  private readonly waiting = new Map<string, { text: string; receivedAt: number; since: number }[]>();
  /** Wall-clock ms of every turn said, in order (never decreasing). */
  private readonly turnTimes: number[] = [];
  private readonly startedAt = Date.now();

  turnSaid(at: number): void {
    this.turnTimes.push(Math.max(at, this.turnTimes.at(-1) ?? at));
  }

  /** Words posted unasked: their latency runs from the last turn said before they came. */
  posted(post: PostRecord): void {
    let since = this.startedAt;
    for (let i = this.turnTimes.length - 1; i >= 0; i--)
      if (this.turnTimes[i] <= post.receivedAt) {
        since = this.turnTimes[i];
        break;
      }
    this.add(post.participant, { text: post.text, receivedAt: post.receivedAt, since: Math.min(since, post.receivedAt) });
  }

  /** An answer to a prompt: its latency runs from the prompt. */
  asked(participant: string, text: string, askedAt: number, receivedAt: number): void {
    this.add(participant, { text, receivedAt, since: Math.min(askedAt, receivedAt) });
  }

  /** The timing of `participant`'s words `text` (the turn may hold the words after a "/to Name" prefix). */
  take(participant: string, text: string): { receivedAt?: string; latencySeconds?: number } {
    const queue = this.waiting.get(participant) ?? [];
    const at = queue.findIndex((entry) => entry.text === text || entry.text.endsWith(text));
    if (at < 0) return {};
    const [entry] = queue.splice(0, at + 1).slice(-1);
    return { receivedAt: new Date(entry.receivedAt).toISOString(), latencySeconds: Math.round((entry.receivedAt - entry.since) / 100) / 10 };
  }

  private add(participant: string, entry: { text: string; receivedAt: number; since: number }): void {
    const queue = this.waiting.get(participant) ?? [];
    queue.push(entry);
    this.waiting.set(participant, queue);
  }
}
