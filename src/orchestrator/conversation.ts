import type { ChatModel, TokenUsage } from "../llm/types.js";
import type { Session, Turn, TurnType } from "../transcript/schema.js";
import { turnId } from "../transcript/ids.js";
import type { Reporter } from "../util/reporter.js";
import { displayName, findAgent, resolveAgents, type Agent } from "./agent.js";
import type { ApprovalAnswer, ApprovalRequest, HumanInput } from "./human.js";
import { HumanTiming } from "./human-timing.js";
import type { InputKind, JournalReplay, PostRecord, SessionJournal } from "./journal.js";
import { JournalInputs } from "./journal-inputs.js";
import { ModelCalls, type CompleteOptions, type DecideOptions } from "./model-calls.js";
import { OrchestratorError } from "./orchestrator-error.js";
import { sessionOf, type SessionStatus } from "./session-of.js";
import type { SessionObserver } from "./observer.js";
import { createRandom, type Random } from "./random.js";
import type { ConditionSpec, Scenario } from "./scenario.js";
import { countWords } from "../analysis/shared/words.js";

/** Our default sampling temperature for conversation (not from a paper): varied but on task. */
export const DEFAULT_TEMPERATURE = 0.7;

export interface SayOptions {
  type?: TurnType;
  addressees?: string[];
  /** The decision that produced the turn (scores, rankings, nominations, phase...). */
  metadata?: Record<string, unknown>;
  /** Simulated seconds the turn takes; default from the pace settings and word count. */
  duration?: number;
  /** Start the turn at this simulated time instead of now (simultaneous speakers). */
  at?: number;
}

export interface AskOptions {
  /**
   * An opportunity to speak rather than a turn the person must take ("Enter to listen"):
   * on channels where people post whenever they like (the page), it takes what they posted
   * instead of waiting for them.
   */
  optional?: boolean;
  /** A role's duty (moderate, derail): wait at most this long, then record "no answer". */
  timeoutSeconds?: number;
  /** Commands the person can use here, shown as buttons on the page ("/summary", ...). */
  controls?: readonly string[];
}

/** Live-session settings: real time, its speed, and the operator's view. */
export interface LiveOptions {
  observer?: SessionObserver;
  /** Simulated seconds per real second when a person takes part live (default 1). */
  speed?: number;
  /** How long a human role's duty (moderate, derail, approve) waits (default 120 s). */
  answerTimeoutSeconds?: number;
  /** How long a person's own turn waits before "no answer" and the strategy moves on (default 180 s). */
  turnTimeoutSeconds?: number;
}

/** Where the session journals what it consumes, and, when resuming, the journal it replays. */
export interface JournalOptions {
  journal: SessionJournal;
  replay?: JournalReplay;
  /** When the session first started (the journal's start record, ms): a resumed session keeps it as its start. */
  startedAt?: number;
}

export interface RunIdentity {
  scenario: Scenario;
  condition: ConditionSpec;
  run: number;
  seed: number;
  sessionId: string;
}

/**
 * One running session: participants, the turns so far, the simulated clock and the LLM
 * calls. Strategies drive it; it owns the transcript, so every strategy produces sessions
 * in the same native format.
 */
export class Conversation {
  readonly scenario: Scenario;
  readonly condition: ConditionSpec;
  readonly run: number;
  readonly seed: number;
  readonly sessionId: string;
  readonly random: Random;
  readonly participants: Agent[];
  readonly turns: Turn[] = [];
  /** Simulated seconds since the session started. */
  clock = 0;
  /** Tokens and requests of this session (replays count the same, cached or not). */
  readonly usage: TokenUsage & { requests: number } = { promptTokens: 0, completionTokens: 0, requests: 0 };
  /** Every answer human participants gave, in order (replayed on --resume). */
  readonly humanAnswers: (string | null)[] = [];
  /** Strategy-level notes for the session metadata (summaries, phases, mode switches). */
  readonly notes: Record<string, unknown> = {};
  /** The model calls (prompts, requests through the journal, JSON decisions). */
  private readonly calls: ModelCalls;
  private readonly human: HumanInput;
  readonly reporter: Reporter;
  /** Set when the session was stopped (by a strategy or a stop condition). */
  endReason: string | undefined;
  /** Set when the end came from the operator or an interrupt (stoppedFromOutside). */
  private endedFromOutside = false;
  /**
   * A person takes part live (page or terminal): the clock follows real time (times `speed`)
   * and simulated pauses become real waits. Without one, sessions run as fast as the model.
   */
  readonly realTime: boolean;
  readonly live: LiveOptions;
  /** Wall-clock ms at simulated time 0 (moved on resume, so the clock runs on from where it was). */
  private startedAt = Date.now();
  /** When each person's words came and what they had seen (stored with the turn that says them). */
  private readonly timing = new HumanTiming();
  private readonly journal: SessionJournal | undefined;
  /** The journal this session resumes from, kept after its inputs ran out: turns said after the last input are still its. */
  private readonly resumedFrom: JournalReplay | undefined;
  /** Every look at the world outside the session, journaled (and given back from the journal while resuming). */
  private readonly inputs: JournalInputs;

  /**
   * Sampling temperature sent with every request that does not set its own: the scenario's
   * `model.temperature`, else the study's (colloquy.json), else 0.7. Recorded with the session.
   */
  readonly temperature: number;

  /** Log each turn as it is said (off when a person reads them at the terminal prompt instead). */
  private readonly echoTurns: boolean;

  constructor(
    identity: RunIdentity,
    deps: {
      model: ChatModel;
      human: HumanInput;
      reporter: Reporter;
      temperature?: number;
      echoTurns?: boolean;
      live?: LiveOptions;
      journal?: JournalOptions;
    },
  ) {
    this.scenario = identity.scenario;
    this.condition = identity.condition;
    this.run = identity.run;
    this.seed = identity.seed;
    this.sessionId = identity.sessionId;
    this.random = createRandom(identity.seed);
    this.participants = resolveAgents(identity.scenario);
    this.calls = new ModelCalls(this, { model: deps.model, look: (what, live) => this.look(what, live), replaying: () => this.replaying });
    this.human = deps.human;
    this.reporter = deps.reporter;
    this.temperature = identity.scenario.model.temperature ?? deps.temperature ?? DEFAULT_TEMPERATURE;
    this.echoTurns = deps.echoTurns ?? true;
    this.live = deps.live ?? {};
    this.realTime = Boolean(deps.human.live) && this.humans.length > 0;
    // A resumed session started when its first run did (each resume is in notes.resumed).
    const startedAt = deps.journal?.startedAt ?? this.startedAt;
    if (this.realTime) this.notes.realTime = { speed: this.live.speed ?? 1, startedAt: new Date(startedAt).toISOString() };
    this.journal = deps.journal?.journal;
    this.resumedFrom = deps.journal?.replay;
    this.inputs = new JournalInputs(this.journal, this.resumedFrom, () => this.goLive());
    this.inputs.settle();
  }

  /** The replay has caught up: from here on the session runs live, its clock going on from where it was. */
  private goLive(): void {
    const turns = this.resumedFrom?.turnsSaid ?? 0;
    this.startedAt = Date.now() - (this.clock / (this.live.speed ?? 1)) * 1000;
    // Journaled, so that a session resumed twice (or killed after a resume) lists every resume.
    const resume = { afterTurns: turns, at: new Date().toISOString() };
    this.notes.resumed = [...(this.resumedFrom?.resumes ?? []), resume];
    this.journal?.append({ k: "resumed", ...resume });
  }

  /** True while the session is resuming: what it looks at comes from its journal, and nobody is asked or shown anything. */
  private get replaying(): boolean {
    return this.inputs.replaying;
  }

  private look<T>(what: InputKind, live: () => Promise<T>): Promise<T> {
    return this.inputs.look(what, live, (message) => new OrchestratorError(message));
  }

  private glance<T>(what: InputKind, live: () => T, nothing: T): T {
    return this.inputs.glance(what, live, nothing);
  }

  /** AI agents (LLM-driven, including simulated humans). */
  get machines(): Agent[] {
    return this.participants.filter((p) => p.kind !== "human");
  }

  get humans(): Agent[] {
    return this.participants.filter((p) => p.kind === "human");
  }

  /** Find a participant by id or (case-insensitive) name; undefined when unknown. */
  find(nameOrId: string): Agent | undefined {
    return findAgent(this.participants, nameOrId);
  }

  get(id: string): Agent {
    const agent = this.participants.find((p) => p.id === id);
    if (!agent) throw new Error(`unknown participant id "${id}"`);
    return agent;
  }

  /** Turns others can see: private reasoning is stored but never shown to anyone. */
  visible(): Turn[] {
    return this.turns.filter((t) => t.type !== "reasoning");
  }

  /** Message-like turns count towards maxTurns; system notes and backchannels do not. */
  spokenTurns(): number {
    return this.turns.filter((t) => t.type === "message" || t.type === "interruption" || t.type === "file").length;
  }

  /** Why the session must stop now, if it must (scenario stop conditions or a strategy's end). */
  stopReason(): string | undefined {
    if (this.endReason) return this.endReason;
    const ended = this.glance("end", () => this.live.observer?.endRequested?.(), undefined);
    if (ended) {
      this.endedFromOutside = true;
      return (this.endReason = ended);
    }
    const stop = this.scenario.stop;
    if (this.spokenTurns() >= stop.maxTurns) return `reached maxTurns (${stop.maxTurns})`;
    if (stop.maxMinutes !== undefined && this.clock >= stop.maxMinutes * 60) return `reached maxMinutes (${stop.maxMinutes})`;
    return undefined;
  }

  end(reason: string): void {
    this.endReason ??= reason;
  }

  /**
   * Whether the operator's End (or an interrupt) stopped the session, as against a limit reached
   * (maxTurns, maxMinutes): after that nothing more is generated, a closing summary included.
   */
  stoppedFromOutside(): boolean {
    this.stopReason();
    return this.endedFromOutside;
  }

  /** Simulated seconds a participant needs to produce this text. */
  durationOf(speaker: Agent | undefined, text: string): number {
    const words = countWords(text);
    const perWord = speaker?.kind === "human" ? this.scenario.pace.humanSecondsPerWord : this.scenario.pace.aiSecondsPerWord;
    return Math.max(1, Math.round(words * perWord * 10) / 10);
  }

  /** Append a turn. The clock moves to the turn's end unless `at` places it in the past. */
  say(speakerId: string, text: string, options: SayOptions = {}): Turn {
    const speaker = speakerId === "system" ? undefined : this.get(speakerId);
    // Resuming: the turn as the first run said it, with its times (the clock then followed the wall clock).
    const first = this.resumedFrom?.said(this.turns.length);
    if (options.at === undefined && !first) this.syncClock();
    const start = toMillis(options.at ?? this.clock);
    const duration = options.duration ?? this.durationOf(speaker, text);
    // Times are kept to the millisecond, so sums of tenths never show as 14.399999999999999.
    const end = toMillis(start + duration);
    let turn: Turn = {
      id: turnId(this.turns.length),
      index: this.turns.length,
      speaker: speakerId,
      text,
      start,
      end,
      type: options.type ?? (speakerId === "system" ? "system" : "message"),
    };
    if (options.addressees?.length) turn.addressees = options.addressees;
    const metadata = { ...options.metadata, ...(speaker?.kind === "human" ? this.timing.take(speaker.id, text) : {}) };
    if (Object.keys(metadata).length) turn.metadata = metadata;
    if (first) {
      if (first.turn.speaker !== turn.speaker || first.turn.text !== turn.text)
        throw new OrchestratorError(
          `the resumed session no longer follows its journal: turn ${turn.index} was ${first.turn.speaker}: "${oneLine(first.turn.text)}", the replay says ${turn.speaker}: "${oneLine(turn.text)}"`,
        );
      turn = structuredClone(first.turn);
      if (options.at === undefined) this.clock = Math.max(this.clock, turn.start ?? this.clock);
    }
    this.turns.push(turn);
    const at = first?.at ?? Date.now();
    this.timing.turnSaid(at);
    if (!first) this.journal?.append({ k: "turn", turn, at });
    // A person's message is there when they sent it; the clock runs on from there in real time.
    this.clock = Math.max(this.clock, speaker?.kind === "human" && this.realTime ? turn.start! : turn.end!);
    // Private reasoning is stored, never printed: the terminal may be a participant's screen.
    if (this.echoTurns && turn.type !== "reasoning")
      this.reporter.log(`  ${speaker ? displayName(speaker) : "system"}${turn.type !== "message" ? ` [${turn.type}]` : ""}: ${oneLine(turn.text)}`);
    this.live.observer?.event({ type: "turn", turn });
    return turn;
  }

  /**
   * A turn changed after it was said (an interruption cut it): journaled, and shown again to
   * every page, so a page, a reopened tab and the stored session all show the same text.
   */
  amend(turn: Turn): void {
    this.journal?.append({ k: "amend", turn });
    this.live.observer?.event({ type: "turn", turn });
  }

  /** Simulated seconds elapsed in real time (real-time sessions only). */
  private realClock(): number {
    return ((Date.now() - this.startedAt) / 1000) * (this.live.speed ?? 1);
  }

  /** In real time the clock never runs behind the wall clock. */
  private syncClock(): void {
    if (this.realTime) this.clock = Math.max(this.clock, Math.round(this.realClock() * 10) / 10);
  }

  /**
   * Let simulated time pass until `at`: in real time a real wait (shortened by `speed`) that
   * ends early when a person posts something; otherwise the clock jumps. Returns true when it
   * ended early (the caller then takes what people posted).
   */
  async waitUntil(at: number): Promise<boolean> {
    if (!this.replaying) await this.live.observer?.gate?.();
    if (!this.realTime) {
      this.clock = Math.max(this.clock, at);
      return false;
    }
    const waited = await this.look("wait", async () => {
      const ms = ((at - this.realClock()) / (this.live.speed ?? 1)) * 1000;
      if (ms > 0) await (this.human.idle ? this.human.idle(ms) : new Promise((ok) => setTimeout(ok, ms)));
      const early = this.realClock() < at - 0.05;
      return { early, clock: Math.max(this.clock, early ? Math.round(this.realClock() * 10) / 10 : at) };
    });
    this.clock = waited.clock;
    return waited.early;
  }

  /** The posts of `agents` nobody has taken yet (or the first one), in the order they came across people. */
  private pollPosts(agents: readonly Agent[], one: boolean): PostRecord[] {
    const posts: (PostRecord & { order: number })[] = [];
    if (!this.human.poll) return posts;
    for (const agent of agents)
      for (let next = this.human.poll(agent); next; next = one ? undefined : this.human.poll(agent))
        posts.push({ participant: agent.id, text: next.text, receivedAt: next.receivedAt, order: next.order ?? posts.length });
    return posts.sort((a, b) => a.receivedAt - b.receivedAt || a.order - b.order).map(({ order: _order, ...post }) => post);
  }

  /** Take posts (a journaled look): each is remembered with its timing for the turn that says it. */
  private takePosts(agents: readonly Agent[], one = false): PostRecord[] {
    if (!this.human.poll) return [];
    const posts = this.glance("take", () => this.pollPosts(agents, one), [] as PostRecord[]);
    for (const post of posts) {
      this.timing.posted(post);
      this.humanAnswers.push(post.text);
    }
    return posts;
  }

  /** What people (or only `from`) posted unasked since the last look (live channels), in the order it came across people. */
  takeHumanMessages(from: readonly Agent[] = this.humans): { agent: Agent; text: string }[] {
    return this.takePosts(from).map((post) => ({ agent: this.get(post.participant), text: post.text }));
  }

  /** A system event in the transcript (moderation, mode switches, "is typing" markers). */
  system(text: string, metadata?: Record<string, unknown>): Turn {
    return this.say("system", text, { type: "system", metadata, duration: 0 });
  }

  advance(seconds: number): void {
    this.clock = toMillis(this.clock + seconds);
  }

  /** The transcript as agents read it: one line per visible turn, "Name (Role): text". */
  transcript(turns: readonly Turn[] = this.visible()): string {
    if (turns.length === 0) return "(nothing has been said yet)";
    return turns
      .map((t) => {
        const who = t.speaker === "system" ? "[system]" : displayName(this.get(t.speaker));
        const tag = t.type === "backchannel" ? " (backchannel)" : t.type === "file" ? " (shares a file)" : "";
        return `${who}${tag}: ${t.text}`;
      })
      .join("\n");
  }

  /**
   * Ask an agent for its next message. Returns the text (own-name prefix removed) and the
   * metadata to store with the turn (usage, and the raw reply when anything was removed).
   */
  reply(agent: Agent, options: CompleteOptions): Promise<{ text: string; metadata: Record<string, unknown> }> {
    return this.calls.reply(agent, options);
  }

  /**
   * Ask a model for a JSON decision (confidence, ranking, choice). Structured output is
   * requested; the reply is validated with `schema` and re-asked once with the error.
   */
  decide<T>(agent: Agent | undefined, options: DecideOptions<T>): Promise<{ value: T; usage: TokenUsage }> {
    return this.calls.decide(agent, options);
  }

  /**
   * A human participant's turn: their words verbatim, or null when they pass or did not answer
   * in time (a duty's `timeoutSeconds`; a live person's own turn waits `turnTimeout`): a
   * "no answer" system event records it and the strategy moves on.
   * Never anything else: a turn stored under a person always comes from that person.
   */
  async askHuman(agent: Agent, prompt: string, options: AskOptions = {}): Promise<string | null> {
    if (options.optional && this.interjects) {
      // One message per opportunity: a command posted after a message stays a command.
      const [posted] = this.takePosts([agent], true);
      return posted?.text ?? null;
    }
    if (this.interjects) {
      // What the person posted before being asked is said first, each message on its own and in
      // order, with when it was posted. For a turn, the last of them is their answer; a duty
      // (timeoutSeconds) is still asked, since words typed earlier were not an answer to it.
      const posted = this.takePosts([agent]);
      const answer = options.timeoutSeconds === undefined ? posted.pop() : undefined;
      for (const early of posted) this.sayPosted(agent, early.text, { postedUnasked: true });
      if (answer) return answer.text;
    }
    const timeoutSeconds = options.timeoutSeconds ?? (this.realTime && !options.optional ? this.turnTimeout : undefined);
    const answer = await this.look("ask", () => this.waitForAnswer(agent, prompt, options, timeoutSeconds));
    if (answer.text !== null) this.timing.asked(agent.id, answer.text, answer.askedAt, answer.receivedAt ?? answer.askedAt);
    this.humanAnswers.push(answer.text);
    if (!this.replaying)
      this.live.observer?.event({ type: "asked", participant: agent.id, answer: answer.timedOut ? "no answer" : answer.text === null ? "passed" : "answered" });
    if (answer.timedOut) this.system(`No answer from ${agent.name} within ${timeoutSeconds} s`, { event: "no-answer", participant: agent.id, prompt });
    return answer.text;
  }

  /** Ask the person and wait for their answer, at most `timeoutSeconds` (then it is withdrawn). */
  private async waitForAnswer(
    agent: Agent,
    prompt: string,
    options: AskOptions,
    timeoutSeconds: number | undefined,
  ): Promise<{ participant: string; text: string | null; askedAt: number; receivedAt?: number; timedOut?: true }> {
    const display = (t: Turn) =>
      `${t.speaker === "system" ? "[system]" : displayName(this.get(t.speaker))}${t.type === "message" ? "" : ` [${t.type}]`}: ${t.text}`;
    const askedAt = Date.now();
    this.live.observer?.event({
      type: "ask",
      participant: agent.id,
      prompt,
      controls: options.controls ?? [],
      ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
      at: askedAt,
    });
    const asking = this.human.ask({ participant: agent, prompt, history: this.visible(), display, controls: options.controls });
    let timer: NodeJS.Timeout | undefined;
    const timeout =
      timeoutSeconds === undefined ? undefined : new Promise<"no answer">((ok) => (timer = setTimeout(() => ok("no answer"), timeoutSeconds * 1000)));
    const answer = await (timeout ? Promise.race([asking, timeout]) : asking);
    clearTimeout(timer);
    if (answer === "no answer") {
      this.human.cancel?.(agent);
      return { participant: agent.id, text: null, askedAt, timedOut: true };
    }
    return { participant: agent.id, text: answer, askedAt, ...(answer !== null ? { receivedAt: Date.now() } : {}) };
  }

  /** The operator's decision on a held derail, or null when nobody decided within the duty timeout. */
  async askApproval(request: ApprovalRequest): Promise<ApprovalAnswer | null> {
    const approve = this.approver;
    if (!approve) return null;
    return this.look("approve", async () => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = Symbol("timed out");
      const verdict = await Promise.race([
        approve(request),
        new Promise<typeof timedOut>((ok) => (timer = setTimeout(() => ok(timedOut), this.dutyTimeout * 1000))),
      ]);
      clearTimeout(timer);
      if (verdict !== timedOut) return verdict;
      this.human.withdrawApprovals?.(`it timed out (nobody decided within ${this.dutyTimeout} s), so it was not said`);
      return null;
    });
  }

  /** Store words a person posted as their message, with when they were posted (and "@Name" as its addressee). */
  private sayPosted(agent: Agent, text: string, metadata: Record<string, unknown>): Turn {
    const mention = text.match(/^@([^\s,:]+(?:\s[^\s,:]+)?)[\s,:]/);
    const addressee = mention ? (this.find(mention[1]) ?? this.find(mention[1].split(/\s/)[0])) : undefined;
    return this.say(agent.id, text, { type: "message", addressees: addressee ? [addressee.id] : undefined, metadata });
  }

  /**
   * At the end of a session: what people posted that no strategy took (after their last prompt,
   * or while the session was ending) is written as their messages, never dropped. Synchronous,
   * so nothing can be posted between this and the session's "end" event.
   */
  sayLatePosts(): Turn[] {
    return this.takePosts(this.humans).map((post) =>
      this.sayPosted(this.get(post.participant), post.text, { late: true, note: "posted after the last prompt; the session ended before it was taken" }),
    );
  }

  /** People post whenever they like (the page), rather than only when asked (the terminal). */
  get interjects(): boolean {
    return Boolean(this.human.live?.interjects && this.human.poll);
  }

  /** How long a human role's duty waits before "no answer" (configurable per run). */
  get dutyTimeout(): number {
    return this.live.answerTimeoutSeconds ?? 120;
  }

  /** How long a live person's own turn waits before "no answer" (configurable per run). */
  get turnTimeout(): number {
    return this.live.turnTimeoutSeconds ?? 180;
  }

  /** The operator's (or a terminal's) decision on a held derail; undefined when nobody can decide. */
  get approver(): HumanInput["approve"] {
    return this.human.approve?.bind(this.human);
  }

  /** The native session (complete or, after a failure, incomplete and resumable). */
  toSession(status: SessionStatus): Session {
    return sessionOf(this, status);
  }
}

function toMillis(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 100 ? flat.slice(0, 97) + "..." : flat;
}
