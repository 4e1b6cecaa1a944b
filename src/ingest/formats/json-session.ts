import { participantId, slugify, turnId, uniqueId } from "../../transcript/ids.js";
import type { ParticipantKind, SessionInput, TurnType } from "../../transcript/schema.js";

type TurnInput = SessionInput["turns"][number];
type ParticipantInput = SessionInput["participants"][number];

/** What an importer knows about a turn; id and index are assigned by the builder. */
export interface TurnDraft {
  speaker: string;
  text: string;
  type?: TurnType;
  start?: number;
  end?: number;
  timestamp?: string;
  addressees?: string[];
  metadata?: Record<string, unknown>;
}

/**
 * Builds one session: participants are keyed by whatever identifies them in the source (a
 * Slack user id, "assistant/GPT-4", an agent name) and get ids derived from their display
 * name, made unique; turns get positional ids (t0000…) and indices in insertion order.
 * Everything it returns passes `validateSession` (speakers and addressees always exist).
 */
export class SessionBuilder {
  private readonly participants = new Map<string, ParticipantInput>();
  private readonly takenIds = new Set<string>();
  private readonly turns: TurnInput[] = [];

  constructor(
    private readonly id: string,
    private readonly title: string | undefined,
    private readonly metadata: Record<string, unknown>,
  ) {}

  /** Id of the participant known in the source as `key`, creating it on first sight. */
  participant(key: string, init: { name: string; kind: ParticipantKind; role?: string; persona?: string; metadata?: Record<string, unknown> }): string {
    const known = this.participants.get(key);
    if (known) return known.id;
    const id = uniqueId(participantId(init.name), this.takenIds);
    const p: ParticipantInput = { id, name: init.name, kind: init.kind };
    if (init.role !== undefined) p.role = init.role;
    if (init.persona !== undefined) p.persona = init.persona;
    if (init.metadata !== undefined) p.metadata = init.metadata;
    this.participants.set(key, p);
    return id;
  }

  /** The participant record for `key` (to add a persona or metadata after creation). */
  get(key: string): ParticipantInput | undefined {
    return this.participants.get(key);
  }

  /** Append a turn; returns its id (for thread parents and similar back-references). */
  turn(draft: TurnDraft): string {
    const index = this.turns.length;
    const turn: TurnInput = { id: turnId(index), index, speaker: draft.speaker, text: draft.text, type: draft.type ?? "message" };
    if (draft.start !== undefined && Number.isFinite(draft.start)) turn.start = draft.start;
    if (draft.end !== undefined && Number.isFinite(draft.end)) turn.end = draft.end;
    if (draft.timestamp !== undefined) turn.timestamp = draft.timestamp;
    if (draft.addressees && draft.addressees.length > 0) turn.addressees = [...new Set(draft.addressees)];
    if (draft.metadata && Object.keys(draft.metadata).length > 0) turn.metadata = draft.metadata;
    this.turns.push(turn);
    return turn.id;
  }

  get turnCount(): number {
    return this.turns.length;
  }

  build(): SessionInput {
    const session: SessionInput = {
      id: slugify(this.id),
      metadata: this.metadata,
      participants: [...this.participants.values()],
      turns: this.turns,
    };
    if (this.title !== undefined) session.title = this.title;
    return session;
  }
}
