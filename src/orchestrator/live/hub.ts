import { randomBytes } from "node:crypto";
import { sameToken } from "../../util/local-server.js";
import type { Turn } from "../../transcript/schema.js";
import type { Agent } from "../agent.js";
import type { ApprovalAnswer, ApprovalRequest, HumanInput, HumanRequest } from "../human.js";
import type { JournalLinks, PostRecord } from "../journal.js";
import type { SessionEvent, SessionObserver } from "../observer.js";
import type { StudyFlow } from "../scenario.js";

/** What a page is sent: session events, plus the hub's own (typing people, pauses, held derails). */
export type LiveMessage =
  | SessionEvent
  | { type: "person-typing"; participant: string }
  /** Between two sessions, before the first (`opening`: the waiting room) or after the last (`closing`): the run waits for the operator (participants are not told what comes next). */
  | { type: "between"; next: string; opening?: boolean; closing?: boolean }
  /** Who has a page open now (the operator's view: who has joined, who is away). */
  | { type: "presence"; online: string[]; expected: string[] }
  | { type: "paused"; paused: boolean }
  | { type: "approval"; id: number; request: ApprovalRequest }
  /** A held derail was decided, or withdrawn (`why`: it timed out, the session ended). */
  | { type: "approved"; id: number; decision: string; why?: string };

/** Who a page belongs to: one human participant, or the operator. */
export type Viewer = { role: "participant"; id: string } | { role: "operator" };

interface Posted {
  text: string;
  receivedAt: number;
  /** Arrival order across people (posts in the same millisecond keep it). */
  order: number;
}

/**
 * The meeting point of a live session and its pages: human input from the participant pages
 * (HumanInput), the session's events to every page (SessionObserver), and the operator's
 * controls (pause, resume, end, approve derails). Pages get the events their viewer may see
 * (`visibleTo`): participants never receive reasoning, decisions, rankings or scores.
 */
export class LiveHub implements HumanInput, SessionObserver {
  readonly live = { interjects: true };
  readonly queue = "per-person";
  readonly operatorToken: string;
  /** participant id -> token of their page link. */
  readonly participantTokens = new Map<string, string>();
  private journal: ((post: PostRecord) => void) | undefined;
  private order = 0;
  private readonly history: LiveMessage[] = [];
  private readonly listeners = new Set<{ viewer: Viewer; send: (message: LiveMessage) => void }>();
  private readonly queues = new Map<string, Posted[]>();
  private readonly waiters = new Map<string, (text: string | null) => void>();
  private idlers = new Set<() => void>();
  private readonly approvals = new Map<number, (answer: ApprovalAnswer | null) => void>();
  private nextApproval = 1;
  /** Derails no longer waiting (timed out, or the session ended), with why: a late decision is told so. */
  private readonly closedApprovals = new Map<number, string>();
  private paused = false;
  private resumers: (() => void)[] = [];
  private ended: string | undefined;
  /** A session is running (between its "session" and "end" events): only then are posts taken. */
  private running = false;
  /** Participants whose page has connected at least once. */
  readonly connected = new Set<string>();
  private connectedWaiters: (() => void)[] = [];
  private nextWaiter: (() => void) | undefined;
  /** What participants may see of the running session's design (blind when the scenario says nothing). */
  private view: SessionView | undefined;
  /** The waiting-room or between-sessions notice while the run waits for the operator (a page opened meanwhile gets it too). */
  private waitingNotice: LiveMessage | undefined;
  /** When each person agreed to the consent text (or joined, without one), ms since epoch. */
  private readonly joinedAt = new Map<string, number>();
  /** Everything the last ended session sent, for the participants' transcripts. */
  private lastSession: LiveMessage[] = [];
  private lastView: SessionView | undefined;

  /**
   * `links`: the tokens of an earlier run of these pages (a resumed run serves the same links).
   * `flow`: the scenario's study flow (consent, instructions, transcript download).
   */
  constructor(
    humans: readonly Pick<Agent, "id">[],
    links?: Pick<JournalLinks, "operator" | "participants">,
    readonly flow: StudyFlow = { waitingRoom: false, transcript: false },
  ) {
    this.operatorToken = links?.operator ?? token();
    for (const human of humans) this.participantTokens.set(human.id, links?.participants[human.id] ?? token());
  }

  /** A person agreed to the consent text (or pressed Join): the first time is kept. */
  join(participant: string): void {
    if (this.joinedAt.has(participant)) return;
    this.joinedAt.set(participant, Date.now());
    if (this.flow.consent) this.consentListener?.(participant, new Date(this.joinedAt.get(participant)!).toISOString());
  }

  private consentListener: ((participant: string, at: string) => void) | undefined;
  onConsent(listener: ((participant: string, at: string) => void) | undefined): void {
    this.consentListener = listener;
  }

  /** When each person agreed to the consent text, as stored with every session (ISO 8601). */
  consents(): Record<string, string> | undefined {
    if (!this.flow.consent) return undefined;
    return Object.fromEntries([...this.joinedAt].map(([id, at]) => [id, new Date(at).toISOString()]));
  }

  /**
   * The last ended session as `participant` saw it, as plain text (undefined when the scenario
   * offers no transcript or no session has ended): the title, the task, then one line per turn.
   */
  transcript(participant: string): string | undefined {
    if (!this.flow.transcript || this.lastSession.length === 0) return undefined;
    const viewer: Viewer = { role: "participant", id: participant };
    const names = new Map<string, string>();
    const lines: string[] = [];
    const turns = new Map<string, Turn>();
    for (const message of this.lastSession) {
      const shown = visibleTo(viewer, message, this.lastView);
      if (shown?.type === "session") {
        for (const p of shown.participants) names.set(p.id, p.name);
        lines.push(shown.title, shown.task, "");
      }
      // An amended turn (cut by an interruption) replaces the one first sent.
      if (shown?.type === "turn" && shown.turn.type !== "backchannel") turns.set(shown.turn.id, shown.turn);
    }
    for (const turn of turns.values()) {
      const who = turn.speaker === "system" ? "" : `${names.get(turn.speaker) ?? turn.speaker}${participant === turn.speaker ? " (you)" : ""}: `;
      lines.push(`${who}${turn.text}`);
    }
    return lines.join("\n") + "\n";
  }

  record(journal: ((post: PostRecord) => void) | undefined): void {
    this.journal = journal;
  }

  restore(posts: readonly PostRecord[]): void {
    for (const post of posts) this.enqueue(post.participant, { text: post.text, receivedAt: post.receivedAt, order: this.order++ });
  }

  private enqueue(participant: string, posted: Posted): void {
    const queue = this.queues.get(participant) ?? [];
    queue.push(posted);
    this.queues.set(participant, queue);
  }

  /** The viewer a token belongs to, or undefined for an unknown token. */
  viewerOf(key: string | null | undefined): Viewer | undefined {
    if (!key) return undefined;
    if (sameToken(key, this.operatorToken)) return { role: "operator" };
    for (const [id, t] of this.participantTokens) if (sameToken(key, t)) return { role: "participant", id };
    return undefined;
  }

  /** Subscribe a page: it first gets what happened so far (what its viewer may see), then live events. */
  subscribe(viewer: Viewer, send: (message: LiveMessage) => void): () => void {
    for (const message of this.history) {
      const shown = visibleTo(viewer, message, this.view);
      if (shown) send(shown);
    }
    if (this.paused) send({ type: "paused", paused: true });
    const notice = this.waitingNotice && visibleTo(viewer, this.waitingNotice, this.view);
    if (notice) send(notice);
    const listener = { viewer, send };
    this.listeners.add(listener);
    if (viewer.role === "participant" && !this.connected.has(viewer.id)) {
      this.connected.add(viewer.id);
      for (const ok of this.connectedWaiters.splice(0)) ok();
    }
    if (viewer.role === "operator") send(this.presence());
    else this.broadcast(this.presence(), false);
    return () => {
      this.listeners.delete(listener);
      if (viewer.role === "participant") this.broadcast(this.presence(), false);
    };
  }

  /** Who has a participant page open now, by participant id. */
  private presence(): LiveMessage {
    const online = new Set([...this.listeners].flatMap(({ viewer }) => (viewer.role === "participant" ? [viewer.id] : [])));
    return { type: "presence", online: [...online], expected: [...this.participantTokens.keys()] };
  }

  /** Resolves once every human participant's page has been opened. */
  async everyoneConnected(): Promise<void> {
    while (this.connected.size < this.participantTokens.size) await new Promise<void>((ok) => this.connectedWaiters.push(ok));
  }

  private broadcast(message: LiveMessage, keep = true): void {
    if (keep) this.history.push(message);
    for (const { viewer, send } of this.listeners) {
      const shown = visibleTo(viewer, message, this.view);
      if (shown) send(shown);
    }
  }

  // SessionObserver
  event(event: SessionEvent): void {
    if (event.type === "session") {
      // A new session starts clean: nothing posted for an earlier one is taken as said in this one
      // (the run writes what is left into the session it was posted in, before its "end").
      this.history.length = 0;
      this.queues.clear();
      for (const [id, waiter] of this.waiters) {
        this.waiters.delete(id);
        waiter(null);
      }
      this.running = true;
      // The operator's End ended the session before; this one runs.
      this.ended = undefined;
    }
    if (event.type === "session") this.view = event.view;
    this.broadcast(event, event.type !== "typing");
    if (event.type === "end") {
      this.running = false;
      this.lastSession = [...this.history];
      this.lastView = this.view;
    }
  }

  async gate(): Promise<void> {
    while (this.paused && !this.ended) await new Promise<void>((ok) => this.resumers.push(ok));
  }

  /** Between a session's start and its end (not in the waiting room, between sessions or after the last). */
  get sessionRunning(): boolean {
    return this.running;
  }

  endRequested(): string | undefined {
    return this.ended;
  }

  // The operator's controls.
  setPaused(paused: boolean): void {
    if (this.paused === paused) return;
    this.paused = paused;
    if (!paused) for (const ok of this.resumers.splice(0)) ok();
    this.broadcast({ type: "paused", paused });
  }

  /**
   * Between two sessions, before the first (`opening`: the waiting room) or after the last
   * (`closing`: the pages stay up for the transcripts): resolves when the operator goes on (or the run ends).
   */
  awaitNext(next: string, stage: "opening" | "between" | "closing" = "between"): Promise<void> {
    this.waitingNotice = { type: "between", next, ...(stage === "opening" ? { opening: true } : stage === "closing" ? { closing: true } : {}) };
    this.broadcast(this.waitingNotice, false);
    return new Promise((ok) => (this.nextWaiter = ok));
  }

  /** The operator starts the next session; false when none is waiting. */
  startNext(): boolean {
    const start = this.nextWaiter;
    this.nextWaiter = undefined;
    this.waitingNotice = undefined;
    start?.();
    return Boolean(start);
  }

  /**
   * End the running session. False when none runs (the waiting room, between sessions, or a run
   * still setting its session up, as after --resume): an End kept until a session started would
   * end one nobody asked to end, and one cleared at the start was lost without a word.
   */
  end(reason = "the operator ended the session"): boolean {
    if (!this.running) return false;
    this.ended ??= reason;
    this.setPaused(false);
    for (const ok of this.resumers.splice(0)) ok();
    for (const [id, waiter] of this.waiters) {
      this.waiters.delete(id);
      waiter(null);
    }
    for (const idle of [...this.idlers]) idle();
    // A derail still held when the session ends is not said.
    this.withdrawApprovals("the session ended before anyone decided, so it was not said");
    return true;
  }

  /** The operator's decision on held derail `id`: taken, or why not (no such derail, or no longer waiting and why). */
  decideApproval(id: number, answer: ApprovalAnswer): { ok: true } | { ok: false; closed?: string } {
    const resolve = this.approvals.get(id);
    if (!resolve) return { ok: false, closed: this.closedApprovals.get(id) };
    this.approvals.delete(id);
    this.broadcast({ type: "approved", id, decision: answer.decision });
    resolve(answer);
    return { ok: true };
  }

  /** Held derails wait no longer (`why`: timed out, the session ended): they are not said, and a late decision is refused with `why`. */
  withdrawApprovals(why: string): void {
    for (const [id, resolve] of this.approvals) {
      this.approvals.delete(id);
      this.closedApprovals.set(id, why);
      this.broadcast({ type: "approved", id, decision: "withdrawn", why });
      resolve(null);
    }
  }

  // From the participant pages.
  /**
   * A person's words: the answer to what they are asked, else queued (with when they came) for
   * the session to take. False when no session is running, so the page can keep the text.
   */
  post(participant: string, text: string): boolean {
    if (!this.running) return false;
    const receivedAt = Date.now();
    // Durable before anything takes it or the page hears "sent" (a journal that cannot write throws: not sent).
    this.journal?.({ participant, text, receivedAt });
    const waiter = this.waiters.get(participant);
    if (waiter) {
      this.waiters.delete(participant);
      waiter(text);
    } else this.enqueue(participant, { text, receivedAt, order: this.order++ });
    for (const idle of [...this.idlers]) idle();
    return true;
  }

  /** The person passes on what they were asked (no effect when nothing is asked). */
  pass(participant: string): boolean {
    const waiter = this.waiters.get(participant);
    if (!waiter) return false;
    this.waiters.delete(participant);
    waiter(null);
    return true;
  }

  typing(participant: string): void {
    this.broadcast({ type: "person-typing", participant }, false);
  }

  // HumanInput
  async ask(request: HumanRequest): Promise<string | null> {
    const queued = this.queues.get(request.participant.id)?.shift();
    if (queued) return queued.text;
    if (this.ended) return null;
    return new Promise((ok) => this.waiters.set(request.participant.id, ok));
  }

  poll(participant: Agent): Posted | undefined {
    return this.queues.get(participant.id)?.shift();
  }

  cancel(participant: Agent): void {
    this.waiters.delete(participant.id);
  }

  idle(ms: number): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((ok) => {
      const done = () => {
        clearTimeout(timer);
        this.idlers.delete(done);
        ok();
      };
      const timer = setTimeout(done, ms);
      this.idlers.add(done);
    });
  }

  approve(request: ApprovalRequest): Promise<ApprovalAnswer | null> {
    const id = this.nextApproval++;
    this.broadcast({ type: "approval", id, request });
    return new Promise((ok) => this.approvals.set(id, ok));
  }
}

type SessionView = NonNullable<Extract<SessionEvent, { type: "session" }>["view"]>;

/** Blind: no condition, no kinds, no system lines. */
const BLIND: SessionView = { condition: false, kinds: false, systemEvents: [], title: "Group chat" };

/** The kind of a system line, as a scenario's `participantView.systemEvents` names it. */
function systemEvent(turn: Turn): string {
  const meta = turn.metadata ?? {};
  if (typeof meta.event === "string") return meta.event;
  if (meta.round !== undefined) return "round";
  if (meta.mode !== undefined) return "mode";
  return "note";
}

/**
 * What a viewer may see of a message: the operator sees everything; a participant sees the
 * conversation (never reasoning turns, never turn metadata: decisions, rankings, scores), only
 * their own prompts, and no held derails; and, blind by default, nothing of the design: no
 * condition or session id, no strategy, no one's kind, no system line the scenario does not list
 * in `participantView.systemEvents`, no reason for the end.
 */
export function visibleTo(viewer: Viewer, message: LiveMessage, view: SessionView = BLIND): LiveMessage | undefined {
  if (viewer.role === "operator") return message;
  switch (message.type) {
    case "turn": {
      const turn = message.turn;
      if (turn.type === "reasoning") return undefined;
      const event = turn.metadata?.event;
      if (event === "typing") return { type: "typing", participant: String(turn.metadata?.participant ?? "") };
      if (turn.speaker === "system") {
        // System notes that carry a decision (e.g. confidence ratings) are the operator's.
        if ("decision" in (turn.metadata ?? {}) || "ratings" in (turn.metadata ?? {})) return undefined;
        // A line answering the viewer's own command ("there is no facilitator") is theirs alone.
        const answersViewer = turn.addressees?.length === 1 && turn.addressees[0] === viewer.id;
        if (turn.addressees?.length && !answersViewer) return undefined;
        if (!answersViewer && !view.systemEvents.includes(systemEvent(turn))) return undefined;
      }
      const shown: Turn = { id: turn.id, index: turn.index, speaker: turn.speaker, text: turn.text, type: turn.type, start: turn.start, end: turn.end };
      if (turn.addressees) shown.addressees = turn.addressees;
      return { type: "turn", turn: shown };
    }
    case "session":
      return {
        type: "session",
        sessionId: "",
        title: (message.view ?? view).title,
        task: message.task,
        strategy: "",
        controls: message.controls ?? [],
        participants: message.participants
          .filter((p) => p.kind !== "system")
          .map((p) => ({ id: p.id, name: p.name, ...((message.view ?? view).kinds ? { kind: p.kind } : {}), ...(p.role ? { role: p.role } : {}) })),
      };
    case "ask":
    case "asked":
      return message.participant === viewer.id ? message : undefined;
    case "person-typing":
      return message.participant === viewer.id ? undefined : message;
    case "approval":
    case "approved":
    case "presence":
    case "model":
      return undefined;
    case "end":
      // Not why it ended, only whether it may go on (a resumed run): people then keep the page open.
      return { type: "end", reason: "", ...(message.incomplete ? { incomplete: true as const } : {}) };
    case "between":
      return { type: "between", next: "", ...(message.opening ? { opening: true } : {}), ...(message.closing ? { closing: true } : {}) };
    default:
      return message;
  }
}

function token(): string {
  return randomBytes(18).toString("base64url");
}
