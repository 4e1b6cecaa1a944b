import type { Session } from "../transcript/schema.js";

/**
 * One row per turn, the shape `colloquy export` writes for R, SPSS and Excel users. Columns are
 * fixed and documented so scripts written against one export keep working on the next.
 */
export const TURN_COLUMNS = [
  "session",
  "condition",
  "run",
  "turn",
  "index",
  "speaker",
  "speaker_id",
  "role",
  "kind",
  "time",
  "timestamp",
  "end",
  "type",
  "text",
] as const;

export type TurnRow = Record<(typeof TURN_COLUMNS)[number], string | number> & Record<string, string | number>;

/**
 * Rows for every turn of `sessions`. `speaker` is the display name, `speaker_id` the participant id. `time` is the turn's start in seconds from session start
 * when known, else the source's verbatim timestamp; `timestamp` is always the verbatim one.
 * `extra(session, turnId)` adds columns (e.g. codes per codebook and coder).
 */
export function turnRows(sessions: readonly Session[], extra?: (session: Session, turnId: string) => Record<string, string>): TurnRow[] {
  const rows: TurnRow[] = [];
  for (const session of sessions) {
    const people = new Map(session.participants.map((p) => [p.id, p]));
    for (const turn of session.turns) {
      const p = people.get(turn.speaker);
      const row: TurnRow = {
        session: session.id,
        condition: session.metadata.condition ?? "",
        run: session.metadata.run ?? "",
        turn: turn.id,
        index: turn.index,
        speaker: p?.name ?? turn.speaker,
        speaker_id: turn.speaker,
        role: p?.role ?? "",
        kind: p?.kind ?? "",
        time: turn.start ?? turn.timestamp ?? "",
        timestamp: turn.timestamp ?? "",
        end: turn.end ?? "",
        type: turn.type,
        text: turn.text,
      };
      if (extra) Object.assign(row, extra(session, turn.id));
      rows.push(row);
    }
  }
  return rows;
}
