import { participantId, slugify, turnId, uniqueId } from "../transcript/ids.js";
import type { ParticipantKind, SessionInput, TurnType } from "../transcript/schema.js";

type ParticipantInput = SessionInput["participants"][number];
type TurnInput = SessionInput["turns"][number];

/** What a text importer knows about one turn. */
export interface TurnDraft {
  text: string;
  start?: number;
  end?: number;
  timestamp?: string;
  type?: TurnType;
  metadata?: Record<string, unknown>;
}

/**
 * Builds one SessionInput from speaker names and turns, so every text importer assigns
 * participant ids, turn ids, indices and kinds the same way.
 *
 * A participant is one (name, role) pair: the same name with two roles is two participants
 * (ids `name` and `name-2`), since a Slack paste can show a person once as "Client" and once as
 * "Observer". Kind is "ai" as soon as any evidence says so (APP marker, --agents).
 */
export class SessionBuilder {
  private readonly participants: ParticipantInput[] = [];
  private readonly byKey = new Map<string, ParticipantInput>();
  private readonly takenIds = new Set<string>();
  private readonly turns: TurnInput[] = [];
  private readonly agents: Set<string>;

  constructor(
    readonly id: string,
    readonly metadata: Record<string, unknown>,
    agents: readonly string[] = [],
  ) {
    this.agents = new Set(agents.map((a) => a.trim().toLowerCase()));
  }

  /** Id of the participant with this name (and role), created on first use. */
  participant(name: string, options: { role?: string; kind?: ParticipantKind } = {}): string {
    const key = `${name}\u0000${options.role ?? ""}`;
    let p = this.byKey.get(key);
    if (!p) {
      const known = this.agents.has(name.trim().toLowerCase()) || this.agents.has(participantId(name));
      p = { id: uniqueId(participantId(name), this.takenIds), name, kind: known ? "ai" : "human" };
      if (options.role !== undefined) p.role = options.role;
      this.byKey.set(key, p);
      this.participants.push(p);
    }
    // Evidence only ever upgrades: one APP post makes the speaker an AI agent.
    if (options.kind === "ai" || (options.kind === "system" && p.kind === "human")) p.kind = options.kind;
    return p.id;
  }

  /** Append a turn; returns its id. */
  turn(speaker: string, draft: TurnDraft): string {
    const index = this.turns.length;
    const turn: TurnInput = { id: turnId(index), index, speaker, text: draft.text, type: draft.type ?? "message" };
    if (draft.start !== undefined) turn.start = draft.start;
    if (draft.end !== undefined) turn.end = draft.end;
    if (draft.timestamp !== undefined) turn.timestamp = draft.timestamp;
    if (draft.metadata && Object.keys(draft.metadata).length > 0) turn.metadata = draft.metadata;
    this.turns.push(turn);
    return turn.id;
  }

  /** The last turn added (for continuation lines), or undefined. */
  lastTurn(): TurnInput | undefined {
    return this.turns[this.turns.length - 1];
  }

  get turnCount(): number {
    return this.turns.length;
  }

  build(title?: string): SessionInput {
    const session: SessionInput = { id: this.id, metadata: this.metadata, participants: this.participants, turns: this.turns };
    if (title !== undefined) session.title = title;
    return session;
  }
}

/** A proposed session id from a file path: its stem, slugified ("run-3.md" -> "run-3"). */
export function sessionIdFromPath(path: string, suffix?: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  const stem = base.replace(/\.[^.]+$/, "");
  return slugify(suffix ? `${stem}-${suffix}` : stem);
}
