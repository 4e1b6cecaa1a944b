import type { z } from "zod";
import type { ChatMessage, ChatModel, TokenUsage } from "../llm/types.js";
import type { Participant, Session, Turn, TurnType } from "../transcript/schema.js";
import { turnId } from "../transcript/ids.js";
import { formatIssues } from "../transcript/validate.js";
import type { Reporter } from "../util/reporter.js";
import { displayName, findAgent, resolveAgents, stripOwnName, systemPrompt, type Agent } from "./agent.js";
import type { HumanInput } from "./human.js";
import type { SessionObserver } from "./observer.js";
import { createRandom, type Random } from "./random.js";
import type { ConditionSpec, Scenario } from "./scenario.js";
import { countWords } from "../analysis/shared/words.js";

/** An LLM call failed for good (after the LLM layer's retries); the run is saved as incomplete. */
export class OrchestratorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OrchestratorError";
  }
}

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

export interface CompleteOptions {
  /** What to do now, appended after the transcript ("It is your turn..."). */
  instruction: string;
  /** Turns this agent sees; default: the whole visible conversation. */
  history?: readonly Turn[];
  /** Pre-rendered history text (e.g. compressed); overrides `history`. */
  historyText?: string;
  maxTokens?: number;
  temperature?: number;
  /** What the call is for, kept with the usage ("reply", "confidence", "rank", ...). */
  purpose: string;
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
  private readonly model: ChatModel;
  private readonly human: HumanInput;
  readonly reporter: Reporter;
  /** Set when the session was stopped (by a strategy or a stop condition). */
  endReason: string | undefined;
  /**
   * A person takes part live (page or terminal): the clock follows real time (times `speed`)
   * and simulated pauses become real waits. Without one, sessions run as fast as the model.
   */
  readonly realTime: boolean;
  readonly live: LiveOptions;
  private readonly startedAt = Date.now();
  /** When each person was asked and when their answer came (stored with their next turn). */
  private readonly humanTiming = new Map<string, { askedAt: number; receivedAt: number }>();
  /** Wall-clock time of the last turn, for the latency of messages people post unasked. */
  private lastTurnAt = Date.now();

  /**
   * Sampling temperature sent with every request that does not set its own: the scenario's
   * `model.temperature`, else the study's (colloquy.json), else 0.7. Recorded with the session.
   */
  readonly temperature: number;

  /** Log each turn as it is said (off when a person reads them at the terminal prompt instead). */
  private readonly echoTurns: boolean;

  constructor(
    identity: RunIdentity,
    deps: { model: ChatModel; human: HumanInput; reporter: Reporter; temperature?: number; echoTurns?: boolean; live?: LiveOptions },
  ) {
    this.scenario = identity.scenario;
    this.condition = identity.condition;
    this.run = identity.run;
    this.seed = identity.seed;
    this.sessionId = identity.sessionId;
    this.random = createRandom(identity.seed);
    this.participants = resolveAgents(identity.scenario);
    this.model = deps.model;
    this.human = deps.human;
    this.reporter = deps.reporter;
    this.temperature = identity.scenario.model.temperature ?? deps.temperature ?? DEFAULT_TEMPERATURE;
    this.echoTurns = deps.echoTurns ?? true;
    this.live = deps.live ?? {};
    this.realTime = Boolean(deps.human.live) && this.humans.length > 0;
    if (this.realTime) this.notes.realTime = { speed: this.live.speed ?? 1, startedAt: new Date(this.startedAt).toISOString() };
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
    const ended = this.live.observer?.endRequested?.();
    if (ended) return ended;
    const stop = this.scenario.stop;
    if (this.spokenTurns() >= stop.maxTurns) return `reached maxTurns (${stop.maxTurns})`;
    if (stop.maxMinutes !== undefined && this.clock >= stop.maxMinutes * 60) return `reached maxMinutes (${stop.maxMinutes})`;
    return undefined;
  }

  end(reason: string): void {
    this.endReason ??= reason;
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
    if (options.at === undefined) this.syncClock();
    const start = toMillis(options.at ?? this.clock);
    const duration = options.duration ?? this.durationOf(speaker, text);
    // Times are kept to the millisecond, so sums of tenths never show as 14.399999999999999.
    const end = toMillis(start + duration);
    const turn: Turn = {
      id: turnId(this.turns.length),
      index: this.turns.length,
      speaker: speakerId,
      text,
      start,
      end,
      type: options.type ?? (speakerId === "system" ? "system" : "message"),
    };
    if (options.addressees?.length) turn.addressees = options.addressees;
    const metadata = { ...options.metadata, ...(speaker?.kind === "human" ? this.humanTimingOf(speaker) : {}) };
    if (Object.keys(metadata).length) turn.metadata = metadata;
    this.turns.push(turn);
    // A person's message is there when they sent it; the clock runs on from there in real time.
    this.clock = Math.max(this.clock, speaker?.kind === "human" && this.realTime ? start : end);
    this.lastTurnAt = Date.now();
    // Private reasoning is stored, never printed: the terminal may be a participant's screen.
    if (this.echoTurns && turn.type !== "reasoning")
      this.reporter.log(`  ${speaker ? displayName(speaker) : "system"}${turn.type !== "message" ? ` [${turn.type}]` : ""}: ${oneLine(text)}`);
    this.live.observer?.event({ type: "turn", turn });
    return turn;
  }

  /** Wall-clock time a person's words arrived and how long they took (since asked, or since the last turn). */
  private humanTimingOf(speaker: Agent): Record<string, unknown> {
    const timing = this.humanTiming.get(speaker.id);
    if (!timing) return {};
    this.humanTiming.delete(speaker.id);
    return { receivedAt: new Date(timing.receivedAt).toISOString(), latencySeconds: Math.round((timing.receivedAt - timing.askedAt) / 100) / 10 };
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
    await this.live.observer?.gate?.();
    if (!this.realTime) {
      this.clock = Math.max(this.clock, at);
      return false;
    }
    const ms = ((at - this.realClock()) / (this.live.speed ?? 1)) * 1000;
    if (ms > 0) await (this.human.idle ? this.human.idle(ms) : new Promise((ok) => setTimeout(ok, ms)));
    const early = this.realClock() < at - 0.05;
    this.clock = Math.max(this.clock, early ? Math.round(this.realClock() * 10) / 10 : at);
    return early;
  }

  /** What people posted unasked since the last look (live channels), in the order it came. */
  takeHumanMessages(): { agent: Agent; text: string }[] {
    const taken: { agent: Agent; text: string }[] = [];
    if (!this.human.poll) return taken;
    for (const agent of this.humans) {
      for (let posted = this.human.poll(agent); posted; posted = this.human.poll(agent)) {
        this.humanTiming.set(agent.id, { askedAt: Math.min(this.lastTurnAt, posted.receivedAt), receivedAt: posted.receivedAt });
        this.humanAnswers.push(posted.text);
        taken.push({ agent, text: posted.text });
      }
    }
    return taken;
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

  private messages(agent: Agent, options: CompleteOptions): ChatMessage[] {
    const history = options.historyText ?? this.transcript(options.history ?? this.visible());
    return [
      { role: "system", content: systemPrompt(this.scenario, this.condition, agent, this.participants) },
      { role: "user", content: `Conversation so far:\n${history}\n\n${options.instruction}` },
    ];
  }

  private async call(
    agent: Agent | undefined,
    messages: ChatMessage[],
    options: { purpose: string; maxTokens?: number; temperature?: number; json?: { name: string; schema: Record<string, unknown> } },
  ): Promise<{ text: string; usage: TokenUsage; cached: boolean; requestHash: string }> {
    await this.live.observer?.gate?.();
    const result = await this.model.complete({
      messages,
      model: agent?.model ?? this.scenario.model.model,
      temperature: options.temperature ?? this.temperature,
      // The run's seed makes runs differ (and their cache entries distinct) while keeping replays exact.
      seed: this.seed,
      maxTokens: options.maxTokens ?? this.scenario.model.maxTokens,
      responseFormat: options.json ? { type: "json_schema", name: options.json.name, schema: options.json.schema } : undefined,
      purpose: `orchestrator:${options.purpose}`,
    });
    if (!result.ok) throw new OrchestratorError(`${agent ? agent.name : "orchestrator"} (${options.purpose}): ${result.error.message}`);
    const { response } = result;
    this.usage.requests += 1;
    this.usage.promptTokens += response.usage.promptTokens;
    this.usage.completionTokens += response.usage.completionTokens;
    return { text: response.text, usage: response.usage, cached: response.cached, requestHash: response.requestHash };
  }

  /**
   * Ask an agent for its next message. Returns the text (own-name prefix removed) and the
   * metadata to store with the turn (usage, and the raw reply when anything was removed).
   */
  async reply(agent: Agent, options: CompleteOptions): Promise<{ text: string; metadata: Record<string, unknown> }> {
    this.live.observer?.event({ type: "typing", participant: agent.id });
    const { text: raw, usage } = await this.call(agent, this.messages(agent, options), options);
    const text = stripOwnName(raw, agent);
    const metadata: Record<string, unknown> = { usage, purpose: options.purpose };
    if (text !== raw) metadata.rawReply = raw;
    if (agent.kind === "simulated-human") metadata.simulated = true;
    return { text, metadata };
  }

  /**
   * Ask a model for a JSON decision (confidence, ranking, choice). Structured output is
   * requested; the reply is validated with `schema` and re-asked once with the error.
   */
  async decide<T>(
    agent: Agent | undefined,
    options: CompleteOptions & { name: string; jsonSchema: Record<string, unknown>; schema: z.ZodType<T>; systemText?: string },
  ): Promise<{ value: T; usage: TokenUsage }> {
    const base: ChatMessage[] = agent
      ? this.messages(agent, options)
      : [
          { role: "system", content: options.systemText ?? "You observe a group conversation and answer questions about it in JSON." },
          {
            role: "user",
            content: `Conversation so far:\n${options.historyText ?? this.transcript(options.history ?? this.visible())}\n\n${options.instruction}`,
          },
        ];
    // A reply in JSON (with a nomination) is still someone writing a message: pages show them typing.
    if (agent && options.name === "reply") this.live.observer?.event({ type: "typing", participant: agent.id });
    let messages = base;
    let lastProblem = "";
    const invalid: string[] = [];
    const total: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    for (let attempt = 0; attempt < 2; attempt++) {
      const { text, usage, requestHash } = await this.call(agent, messages, { ...options, json: { name: options.name, schema: options.jsonSchema } });
      total.promptTokens += usage.promptTokens;
      total.completionTokens += usage.completionTokens;
      const parsed = parseJsonReply(text, options.schema);
      if (parsed.ok) return { value: parsed.value, usage: total };
      invalid.push(requestHash);
      lastProblem = parsed.problem;
      messages = [
        ...base,
        { role: "assistant", content: text },
        { role: "user", content: `That reply was not valid: ${parsed.problem}. Answer again with only the JSON object.` },
      ];
    }
    // Giving up: drop the invalid replies from the cache so a resumed run asks the model again
    // (a reply that was fixed by the re-ask stays cached, so such sessions still replay exactly).
    for (const hash of invalid) await this.model.forget?.(hash);
    throw new OrchestratorError(`${agent ? agent.name : "orchestrator"} (${options.purpose}): invalid JSON decision twice: ${lastProblem}`);
  }

  /**
   * A human participant's turn: their words verbatim, or null when they pass (or, for a duty
   * with `timeoutSeconds`, did not answer in time: a "no answer" system event records it).
   * Never anything else: a turn stored under a person always comes from that person.
   */
  async askHuman(agent: Agent, prompt: string, options: AskOptions = {}): Promise<string | null> {
    if (options.optional && this.human.live?.interjects && this.human.poll) {
      // One message per opportunity: a command posted after a message stays a command.
      const posted = this.human.poll(agent);
      if (!posted) return null;
      this.humanTiming.set(agent.id, { askedAt: Math.min(this.lastTurnAt, posted.receivedAt), receivedAt: posted.receivedAt });
      this.humanAnswers.push(posted.text);
      return posted.text;
    }
    if (this.interjects) {
      // What the person posted before being asked is said first, each message on its own and in
      // order, with when it was posted. For a turn, the last of them is their answer; a duty
      // (timeoutSeconds) is still asked, since words typed earlier were not an answer to it.
      const posted = this.pollAll(agent);
      const answer = options.timeoutSeconds === undefined ? posted.pop() : undefined;
      for (const early of posted) this.sayPosted(agent, early, { postedUnasked: true });
      if (answer) {
        this.humanTiming.set(agent.id, { askedAt: Math.min(this.lastTurnAt, answer.receivedAt), receivedAt: answer.receivedAt });
        this.humanAnswers.push(answer.text);
        return answer.text;
      }
    }
    const display = (t: Turn) =>
      `${t.speaker === "system" ? "[system]" : displayName(this.get(t.speaker))}${t.type === "message" ? "" : ` [${t.type}]`}: ${t.text}`;
    const askedAt = Date.now();
    this.live.observer?.event({
      type: "ask",
      participant: agent.id,
      prompt,
      controls: options.controls ?? [],
      ...(options.timeoutSeconds !== undefined ? { timeoutSeconds: options.timeoutSeconds } : {}),
    });
    const asking = this.human.ask({ participant: agent, prompt, history: this.visible(), display, controls: options.controls });
    let timer: NodeJS.Timeout | undefined;
    const timeout =
      options.timeoutSeconds === undefined
        ? undefined
        : new Promise<"no answer">((ok) => (timer = setTimeout(() => ok("no answer"), options.timeoutSeconds! * 1000)));
    const answer = await (timeout ? Promise.race([asking, timeout]) : asking);
    clearTimeout(timer);
    if (answer === "no answer") {
      this.human.cancel?.(agent);
      this.humanAnswers.push(null);
      this.live.observer?.event({ type: "asked", participant: agent.id, answer: "no answer" });
      this.system(`No answer from ${agent.name} within ${options.timeoutSeconds} s`, { event: "no-answer", participant: agent.id, prompt });
      return null;
    }
    this.humanAnswers.push(answer);
    if (answer !== null) this.humanTiming.set(agent.id, { askedAt, receivedAt: Date.now() });
    this.live.observer?.event({ type: "asked", participant: agent.id, answer: answer === null ? "passed" : "answered" });
    return answer;
  }

  /** Everything `agent` posted that nobody has taken yet, in order. */
  private pollAll(agent: Agent): { text: string; receivedAt: number }[] {
    const posted: { text: string; receivedAt: number }[] = [];
    if (!this.human.poll) return posted;
    for (let next = this.human.poll(agent); next; next = this.human.poll(agent)) posted.push(next);
    return posted;
  }

  /** Store words a person posted as their message, with when they were posted (and "@Name" as its addressee). */
  private sayPosted(agent: Agent, posted: { text: string; receivedAt: number }, metadata: Record<string, unknown>): Turn {
    this.humanTiming.set(agent.id, { askedAt: Math.min(this.lastTurnAt, posted.receivedAt), receivedAt: posted.receivedAt });
    const mention = posted.text.match(/^@([^\s,:]+(?:\s[^\s,:]+)?)[\s,:]/);
    const addressee = mention ? (this.find(mention[1]) ?? this.find(mention[1].split(/\s/)[0])) : undefined;
    return this.say(agent.id, posted.text, { type: "message", addressees: addressee ? [addressee.id] : undefined, metadata });
  }

  /**
   * At the end of a session: what people posted that no strategy took (after their last prompt,
   * or while the session was ending) is written as their messages, never dropped. Synchronous,
   * so nothing can be posted between this and the session's "end" event.
   */
  sayLatePosts(): Turn[] {
    const said: Turn[] = [];
    for (const agent of this.humans) {
      for (const posted of this.pollAll(agent))
        said.push(this.sayPosted(agent, posted, { late: true, note: "posted after the last prompt; the session ended before it was taken" }));
    }
    return said;
  }

  /** People post whenever they like (the page), rather than only when asked (the terminal). */
  get interjects(): boolean {
    return Boolean(this.human.live?.interjects && this.human.poll);
  }

  /** How long a human role's duty waits before "no answer" (configurable per run). */
  get dutyTimeout(): number {
    return this.live.answerTimeoutSeconds ?? 120;
  }

  /** The operator's (or a terminal's) decision on a held derail; undefined when nobody can decide. */
  get approver(): HumanInput["approve"] {
    return this.human.approve?.bind(this.human);
  }

  /** The native session (complete or, after a failure, incomplete and resumable). */
  toSession(status: { incomplete: boolean; failure?: string; strategy: Record<string, unknown>; model: Record<string, unknown> }): Session {
    const participants: Participant[] = this.participants.map((p) => ({
      id: p.id,
      name: p.name,
      ...(p.role ? { role: p.role } : {}),
      // A playbook participant is a model playing a person: its own kind, never "human".
      kind: p.kind === "ai" ? "ai" : p.kind === "simulated-human" ? "simulated" : "human",
      ...(p.persona || p.playbook ? { persona: [p.persona, p.playbook].filter(Boolean).join("\n\n") } : {}),
      metadata: { scenarioKind: p.kind, ...(p.kind === "simulated-human" ? { simulated: true } : {}), ...(p.model ? { model: p.model } : {}) },
    }));
    if (this.turns.some((t) => t.speaker === "system")) participants.push({ id: "system", name: "System", kind: "system" });
    return {
      schemaVersion: 1,
      id: this.sessionId,
      title: `${this.scenario.title ?? this.scenario.id}: ${this.condition.name}, run ${this.run}`,
      metadata: {
        condition: this.condition.name,
        run: String(this.run),
        task: this.scenario.task,
        source: { format: "orchestrator", scenario: this.scenario.id },
        incomplete: status.incomplete,
        orchestrator: {
          scenario: this.scenario.id,
          ...(this.scenario.preset ? { preset: this.scenario.preset } : {}),
          strategy: status.strategy,
          seed: this.seed,
          model: status.model,
          usage: this.usage,
          endReason: this.endReason,
          failure: status.failure,
          humanAnswers: this.humanAnswers,
          notes: this.notes,
          simulatedSeconds: this.clock,
        },
      },
      participants,
      turns: this.turns,
    };
  }
}

function toMillis(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 100 ? flat.slice(0, 97) + "..." : flat;
}

/** Parse a JSON reply strictly (a fenced ```json block is accepted) and validate it. */
export function parseJsonReply<T>(text: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; problem: string } {
  const fenced = text.match(/```(?:json)?\s*([\s\S]*?)```/);
  const body = (fenced ? fenced[1] : text).trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { ok: false, problem: `not JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: formatIssues(parsed.error) };
}
