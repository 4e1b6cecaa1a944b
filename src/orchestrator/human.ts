import { createInterface } from "node:readline";
import type { Turn } from "../transcript/schema.js";
import type { Agent } from "./agent.js";
import type { PostRecord } from "./journal.js";

/** What a human is asked for: a turn they are expected to take, or a role's duty (moderate, derail). */
export interface HumanRequest {
  participant: Agent;
  prompt: string;
  history: readonly Turn[];
  display: (turn: Turn) => string;
  /** Buttons the page offers for this request (e.g. ["/summary"]); the terminal shows the prompt only. */
  controls?: readonly string[];
}

/** A derail held for approval: the approver approves, edits (returns new text) or dismisses it. */
export interface ApprovalRequest {
  derailer: string;
  kind: string;
  proposed: string;
}

export type ApprovalAnswer = { decision: "approve" } | { decision: "edit"; text: string } | { decision: "dismiss" };

/**
 * Where human participants' words come from. The terminal implementation prompts on stdin;
 * the participant page (live/hub.ts) takes messages from the browser; tests and resumed runs
 * use scripted input. `null` means the person passes.
 * Lines starting with "/" are commands the strategy interprets (e.g. "/mode focus",
 * "/facilitator", "/summary", "/to Developer ..."); everything else is a message, verbatim.
 */
export interface HumanInput {
  ask(request: HumanRequest): Promise<string | null>;
  /**
   * Something the person posted on their own since the last call (not asked for), if any.
   * Live channels (page, terminal) have it, so a person can speak between any two events.
   */
  poll?(participant: Agent): { text: string; receivedAt: number; order?: number } | undefined;
  /** Withdraw an `ask` that timed out (its answer, if one comes, is then a message of its own). */
  cancel?(participant: Agent): void;
  /**
   * A person takes part live: the session clock runs in real time. Channels where people can
   * post at any time (`interjects`) are also not asked at every opportunity to speak.
   */
  live?: { interjects: boolean };
  /** Resolves after `ms`, or earlier when a person posts something (real-time sessions). */
  idle?(ms: number): Promise<void>;
  /** The operator's decision on a held derail (the operator page, or the terminal). */
  approve?(request: ApprovalRequest): Promise<ApprovalAnswer | null>;
  /** Held derails wait no longer (`why`: it timed out): a decision that comes later is refused, saying why. */
  withdrawApprovals?(why: string): void;
  /**
   * Channels where people post (page, terminal) hand every accepted post to `journal` before
   * acknowledging it (the page's 200, the terminal's reading the line); a throw refuses the post.
   * Undefined detaches the journal.
   */
  record?(journal: ((post: PostRecord) => void) | undefined): void;
  /** How posts wait to be taken: each person's in their own order (page), or all lines in one (terminal). */
  readonly queue?: "per-person" | "shared";
  /** Give back posts no session took before it stopped (a resumed session takes them, in order). */
  restore?(posts: readonly PostRecord[]): void;
  close?(): void;
}

/** Replays recorded answers, then defers to `next` (used by --resume and tests). */
export function scriptedHuman(answers: readonly (string | null)[], next?: HumanInput): HumanInput {
  let i = 0;
  return {
    async ask(request) {
      if (i < answers.length) return answers[i++];
      if (next) return next.ask(request);
      throw new Error(`scripted human input ran out after ${answers.length} answers (asked for ${request.participant.name})`);
    },
    ...(next?.poll ? { poll: (p: Agent) => next.poll!(p) } : {}),
    ...(next?.cancel ? { cancel: (p: Agent) => next.cancel!(p) } : {}),
    ...(next?.live ? { live: next.live } : {}),
    ...(next?.idle ? { idle: (ms: number) => next.idle!(ms) } : {}),
    ...(next?.approve ? { approve: (r: ApprovalRequest) => next.approve!(r) } : {}),
    ...(next?.withdrawApprovals ? { withdrawApprovals: (why: string) => next.withdrawApprovals!(why) } : {}),
    close: () => next?.close?.(),
  };
}

/**
 * The terminal: lines are read as they are typed and queued, so a person can type while
 * agents talk (a line typed unasked is taken at the next event). Asked, the person sees
 * everything said since their last prompt; an empty line passes, EOF passes for good.
 * Only the visible conversation is shown here: never private reasoning or scores.
 */
export function terminalHuman(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stderr): HumanInput {
  const rl = createInterface({ input, terminal: false });
  const queue: { text: string; receivedAt: number }[] = [];
  let waiter: ((line: string | null) => void) | undefined;
  let ended = false;
  let journal: ((post: PostRecord) => void) | undefined;
  /** Whose words a line is likely to be: the person last asked (whoever is asked or looked at next takes it). */
  let speaking = "";
  rl.on("line", (line) => {
    // A line with words is journaled before anything takes it (an empty line passes and says nothing).
    if (line.trim() !== "") journal?.({ participant: speaking, text: line, receivedAt: Date.now() });
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      w(line);
    } else queue.push({ text: line, receivedAt: Date.now() });
    wake?.();
  });
  rl.on("close", () => {
    ended = true;
    waiter?.(null);
    waiter = undefined;
    wake?.();
  });
  let wake: (() => void) | undefined;
  /** Turns already shown, so the person sees everything said since their last prompt. */
  let shown = 0;
  const show = (history: readonly Turn[], display: (turn: Turn) => string) => {
    for (const turn of history.slice(shown)) output.write(`${display(turn)}\n`);
    shown = history.length;
  };
  const nextLine = (): Promise<string | null> => {
    const queued = queue.shift();
    if (queued) return Promise.resolve(queued.text);
    if (ended) return Promise.resolve(null);
    return new Promise((ok) => (waiter = ok));
  };
  return {
    async ask({ participant, prompt, history, display }) {
      speaking = participant.id;
      if (ended && queue.length === 0) return null;
      show(history, display);
      output.write(`${prompt}\n${participant.name}> `);
      const text = await nextLine();
      return text === null || text.trim() === "" ? null : text;
    },
    poll() {
      // Empty lines typed unasked mean nothing; skip them.
      while (queue.length && queue[0].text.trim() === "") queue.shift();
      return queue.shift();
    },
    cancel() {
      waiter = undefined;
    },
    record(sink) {
      journal = sink;
    },
    restore(posts) {
      queue.unshift(...posts.map((p) => ({ text: p.text, receivedAt: p.receivedAt })));
    },
    queue: "shared",
    live: { interjects: false },
    idle: (ms) =>
      new Promise((ok) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          ok();
        }
        wake = done;
      }),
    async approve(request) {
      output.write(
        `${request.derailer} wants to derail (${request.kind}):\n  ${request.proposed}\nEnter to approve, /reject to dismiss it, or type an edited version.\noperator> `,
      );
      const text = await nextLine();
      if (text === null || text.trim() === "") return text === null ? null : { decision: "approve" };
      if (/^\/reject\b/.test(text.trim())) return { decision: "dismiss" };
      return { decision: "edit", text };
    },
    withdrawApprovals() {
      // The next line typed is a line of its own, not a late decision.
      waiter = undefined;
    },
    close: () => rl.close(),
  };
}
