import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Turn } from "../transcript/schema.js";

/**
 * The durable journal of one running session (`.colloquy/journal/<session>.jsonl`): every word a
 * person posted, appended and fsync'd before the post is acknowledged, and every outside input
 * the session consumed (model replies, answers, what was taken from the people's posts, real-time
 * waits, the operator's end and approvals), in the order consumed. Replaying the inputs re-runs
 * the strategy to the very state it had (`colloquy run --resume` after kill -9, Ctrl-C or a
 * failure): random draws come from the seed, everything else from here. Each turn is journaled
 * too, as said and as amended, so the words survive even a replay that cannot follow.
 * Writes are synchronous: one short line per event, in the order the events happened.
 */

/** The page links of a live run, kept so that a resumed run serves the same links. */
export interface JournalLinks {
  port: number;
  operator: string;
  participants: Record<string, string>;
}

/** What a person posted: their words and when the server (or terminal) received them (ms since epoch). */
export interface PostRecord {
  participant: string;
  text: string;
  receivedAt: number;
}

/** Inputs the session consumes, each at a numbered observation point (`step`) of the session. */
export type InputKind = "llm" | "ask" | "take" | "wait" | "end" | "approve";

export type JournalRecord =
  | { k: "start"; sessionId: string; seed: number; startedAt: number; posts: "per-person" | "shared" | false; links?: JournalLinks }
  | ({ k: "post" } & PostRecord)
  | { k: "in"; step: number; what: InputKind; value: unknown }
  | { k: "turn"; turn: Turn; at: number }
  | { k: "amend"; turn: Turn };

/** A journal read back: its start, the inputs in order, the turns as said and as they ended up, and the posts. */
export interface JournalContents {
  start: Extract<JournalRecord, { k: "start" }>;
  inputs: Extract<JournalRecord, { k: "in" }>[];
  /** Turns as first said, with the wall-clock time each was said (ms). */
  said: { turn: Turn; at: number }[];
  /** Turns with later amendments (an interruption cuts a turn) applied. */
  turns: Turn[];
  posts: PostRecord[];
}

export class SessionJournal {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
  ) {}

  /** Start a new journal (replacing any), its first line synced. */
  static create(path: string, start: Omit<Extract<JournalRecord, { k: "start" }>, "k">): SessionJournal {
    mkdirSync(dirname(path), { recursive: true });
    const journal = new SessionJournal(path, openSync(path, "w", 0o600));
    journal.append({ k: "start", ...start });
    return journal;
  }

  /** Go on appending to a journal read back (a torn last line, never acknowledged, is cut off first). */
  static reopen(path: string, completeBytes: number): SessionJournal {
    const fd = openSync(path, "r+");
    ftruncateSync(fd, completeBytes);
    closeSync(fd);
    return new SessionJournal(path, openSync(path, "a"));
  }

  /** Read a journal; undefined when there is none. A line cut by a kill is ignored (nothing it held was acknowledged). */
  static read(path: string): { contents: JournalContents; completeBytes: number } | undefined {
    if (!existsSync(path)) return undefined;
    const bytes = readFileSync(path);
    const end = bytes.lastIndexOf(0x0a) + 1;
    const records = bytes
      .subarray(0, end)
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as JournalRecord);
    const start = records[0];
    if (start?.k !== "start") throw new Error(`${path}: not a session journal (its first line is not a start record)`);
    const contents: JournalContents = { start, inputs: [], said: [], turns: [], posts: [] };
    for (const record of records) {
      if (record.k === "in") contents.inputs.push(record);
      else if (record.k === "post") contents.posts.push({ participant: record.participant, text: record.text, receivedAt: record.receivedAt });
      else if (record.k === "turn") {
        contents.said.push({ turn: record.turn, at: record.at });
        contents.turns.push(structuredClone(record.turn));
      } else if (record.k === "amend") contents.turns[record.turn.index] = record.turn;
    }
    return { contents, completeBytes: end };
  }

  /**
   * Append one record; throws (and nothing is acknowledged) when it cannot. Written, a record
   * survives the process (kill -9); a post and the start are also synced to the disk before the
   * call returns (a power cut), and with them everything written before.
   */
  append(record: JournalRecord): void {
    if (this.fd === undefined) throw new Error(`${this.path}: the session journal is closed`);
    writeSync(this.fd, JSON.stringify(record) + "\n");
    if (record.k === "post" || record.k === "start") fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The session is saved complete: its journal has nothing more to give. */
  remove(): void {
    this.close();
    rmSync(this.path, { force: true });
  }
}

/**
 * Posts no input took (still queued when the session stopped): the posts after the ones
 * consumed, since posts are taken in order, each person's (page) or all lines (terminal).
 */
export function untakenPosts(contents: JournalContents): PostRecord[] {
  if (!contents.start.posts) return [];
  const queueOf = (participant: string) => (contents.start.posts === "shared" ? "" : participant);
  const taken = new Map<string, number>();
  const count = (participant: string) => taken.set(queueOf(participant), (taken.get(queueOf(participant)) ?? 0) + 1);
  for (const input of contents.inputs) {
    if (input.what === "take") for (const post of input.value as PostRecord[]) count(post.participant);
    if (input.what === "ask") {
      const answer = input.value as { participant: string; text: string | null };
      if (answer.text !== null) count(answer.participant);
    }
  }
  const seen = new Map<string, number>();
  return contents.posts.filter((post) => {
    const queue = queueOf(post.participant);
    const n = (seen.get(queue) ?? 0) + 1;
    seen.set(queue, n);
    return n > (taken.get(queue) ?? 0);
  });
}

/**
 * Serves a journal's inputs back in order while a session is resumed. `take(step, what)` gives the
 * input consumed at that observation point, or undefined where the first run observed nothing;
 * a recorded input of another kind at this point means the replay no longer follows the journal.
 */
export class JournalReplay {
  private next = 0;

  constructor(private readonly contents: JournalContents) {}

  /** True while recorded inputs remain. */
  get active(): boolean {
    return this.next < this.contents.inputs.length;
  }

  take(step: number, what: InputKind): { value: unknown } | undefined {
    const input = this.contents.inputs[this.next];
    if (!input || input.step > step) return undefined;
    if (input.step < step || input.what !== what)
      throw new Error(`the resumed session no longer follows its journal (step ${step}: expected ${input.what} at step ${input.step}, got ${what})`);
    this.next += 1;
    return { value: input.value };
  }

  /** The turn said at `index` in the first run, if the journal has it. */
  said(index: number): { turn: Turn; at: number } | undefined {
    return this.contents.said[index];
  }

  get turnsSaid(): number {
    return this.contents.said.length;
  }
}
