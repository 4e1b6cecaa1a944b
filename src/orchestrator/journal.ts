import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
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

/** A journal's first line: the session, its seed, how its posts queue, and the page links. */
export interface StartRecord {
  sessionId: string;
  seed: number;
  startedAt: number;
  posts: "per-person" | "shared" | false;
  links?: JournalLinks;
  /** Who had agreed to the study's consent text when the session started (ISO 8601): a resumed run's pages do not agree again. */
  consent?: Record<string, string>;
}

export type JournalRecord =
  | ({ k: "start" } & StartRecord)
  | ({ k: "post" } & PostRecord)
  | { k: "in"; step: number; what: InputKind; value: unknown }
  | { k: "turn"; turn: Turn; at: number }
  | { k: "amend"; turn: Turn }
  /** A person agreed to the consent text after the session started (a late joiner): kept for --resume, whose pages do not agree again. */
  | { k: "consent"; participant: string; at: string }
  /** The session went live again after a --resume, after this many turns: every resume is kept, not only the last. */
  | { k: "resumed"; afterTurns: number; at: string };

/** A journal read back: its start, the inputs in order, the turns as said and as they ended up, and the posts. */
export interface JournalContents {
  start: Extract<JournalRecord, { k: "start" }>;
  inputs: Extract<JournalRecord, { k: "in" }>[];
  /** Turns as first said, with the wall-clock time each was said (ms). */
  said: { turn: Turn; at: number }[];
  /** Turns with later amendments (an interruption cuts a turn) applied. */
  turns: Turn[];
  posts: PostRecord[];
  /** Who agreed to the consent text, and when: the start's, then the later agreements (the first time each person agreed wins). */
  consent: Record<string, string>;
  /** Each earlier --resume, in order. */
  resumed: { afterTurns: number; at: string }[];
}

/** A journal line that could not be read back: its number (from 1), what is wrong, and its text as it is. */
export interface DamagedLine {
  line: number;
  problem: string;
  text: string;
}

export interface ReadJournal {
  /** Every readable record. */
  contents: JournalContents;
  damaged: DamagedLine[];
  /** Bytes up to the last complete line. */
  completeBytes: number;
  /** What a resumed session can replay: the records before the first damaged line, and every readable post. */
  replayable: JournalRecord[];
}

const RECORD_KINDS = new Set(["start", "post", "in", "turn", "amend", "consent", "resumed"]);

/** A journal line's record, or what is wrong with it. */
function parseRecord(text: string): JournalRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  const kind = (value as { k?: unknown } | null)?.k;
  return typeof kind === "string" && RECORD_KINDS.has(kind)
    ? (value as JournalRecord)
    : 'not a journal record (expected an object with "k": start, post, in, turn, amend, consent or resumed)';
}

/** A journal's records gathered: its start, the inputs in order, the turns as said and as amended, the posts. */
export function contentsOf(records: readonly JournalRecord[]): JournalContents {
  const start = records[0] as Extract<JournalRecord, { k: "start" }>;
  const contents: JournalContents = { start, inputs: [], said: [], turns: [], posts: [], consent: { ...start.consent }, resumed: [] };
  for (const record of records) {
    if (record.k === "in") contents.inputs.push(record);
    else if (record.k === "post") contents.posts.push({ participant: record.participant, text: record.text, receivedAt: record.receivedAt });
    else if (record.k === "turn") {
      contents.said.push({ turn: record.turn, at: record.at });
      contents.turns.push(structuredClone(record.turn));
    } else if (record.k === "consent") contents.consent[record.participant] ??= record.at;
    else if (record.k === "resumed") contents.resumed.push({ afterTurns: record.afterTurns, at: record.at });
    else if (record.k === "amend") {
      const at = contents.turns.findIndex((t) => t.id === record.turn.id);
      if (at >= 0) contents.turns[at] = record.turn;
    }
  }
  return contents;
}

export class SessionJournal {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
  ) {}

  /** Start a new journal (replacing any), its first line synced. */
  static create(path: string, start: StartRecord): SessionJournal {
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

  /**
   * Read a journal; undefined when there is none. A line cut by a kill is ignored (nothing it held
   * was acknowledged). A damaged line (not a JSON record: a disk fault, a hand edit) never stops
   * the reading: it is listed in `damaged` with its line number, and every readable record is
   * kept. A damaged first line takes `start` (what this run would have written) in its place;
   * without one, reading fails with an error naming the file and line.
   */
  static read(path: string, start?: StartRecord): ReadJournal | undefined {
    if (!existsSync(path)) return undefined;
    const bytes = readFileSync(path);
    const end = bytes.lastIndexOf(0x0a) + 1;
    const records: { line: number; record: JournalRecord }[] = [];
    const damaged: DamagedLine[] = [];
    bytes
      .subarray(0, end)
      .toString("utf8")
      .split("\n")
      .forEach((text, i) => {
        if (text === "") return;
        const record = parseRecord(text);
        if (typeof record === "string") damaged.push({ line: i + 1, problem: record, text });
        else records.push({ line: i + 1, record });
      });
    if (records[0]?.record.k !== "start") {
      const problem = damaged[0]?.line === 1 ? damaged[0].problem : "not a start record";
      if (!start) throw new Error(`${path}:1: not a session journal (its first line should be its start record: ${problem})`);
      records.unshift({ line: 0, record: { k: "start", ...start } });
    }
    const firstDamage = damaged[0]?.line ?? Infinity;
    return {
      contents: contentsOf(records.map((r) => r.record)),
      damaged,
      completeBytes: end,
      // Before the first damage the records are one consistent session; after it, only the posts are sure to be whole.
      replayable: records
        .filter((r) => r.line < firstDamage || r.record.k === "post" || r.record.k === "consent" || r.record.k === "resumed")
        .map((r) => r.record),
    };
  }

  /** Replace a journal with `records` (written aside, synced, renamed) and go on appending to it. */
  static rewrite(path: string, records: readonly JournalRecord[]): SessionJournal {
    const aside = `${path}.rewrite`;
    const fd = openSync(aside, "w", 0o600);
    writeSync(fd, records.map((r) => JSON.stringify(r) + "\n").join(""));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(aside, path);
    return new SessionJournal(path, openSync(path, "a"));
  }

  /**
   * Append one record; throws (and nothing is acknowledged) when it cannot. Written, a record
   * survives the process (kill -9); a post and the start are also synced to the disk before the
   * call returns (a power cut), and with them everything written before.
   */
  append(record: JournalRecord): void {
    if (this.fd === undefined) throw new Error(`${this.path}: the session journal is closed`);
    writeSync(this.fd, JSON.stringify(record) + "\n");
    if (record.k === "post" || record.k === "start" || record.k === "consent") fsyncSync(this.fd);
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
 * Posts no input took (still queued when the session stopped). Each input that took words (a
 * take, an answer) is matched with the earliest post of its words in the same queue (each
 * person's on the page, all lines at the terminal), since posts are taken in order; a post
 * nothing matched was not taken. Matching by words rather than counting keeps every post even
 * when a damaged line lost one of the records.
 */
export function untakenPosts(contents: JournalContents): PostRecord[] {
  if (!contents.start.posts) return [];
  const queueOf = (participant: string) => (contents.start.posts === "shared" ? "" : participant);
  const left = contents.posts.map((post) => ({ post, taken: false }));
  const take = (participant: string, text: string) => {
    const found = left.find((p) => !p.taken && queueOf(p.post.participant) === queueOf(participant) && p.post.text === text);
    if (found) found.taken = true;
  };
  for (const input of contents.inputs) {
    if (input.what === "take") for (const post of input.value as PostRecord[]) take(post.participant, post.text);
    if (input.what === "ask") {
      const answer = input.value as { participant: string; text: string | null };
      if (answer.text !== null) take(answer.participant, answer.text);
    }
  }
  return left.filter((p) => !p.taken).map((p) => p.post);
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

  /** The session's earlier resumes, from its journal. */
  get resumes(): readonly { afterTurns: number; at: string }[] {
    return this.contents.resumed;
  }

  get turnsSaid(): number {
    return this.contents.said.length;
  }
}
