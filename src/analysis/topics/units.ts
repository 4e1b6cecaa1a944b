import type { Participant, Session, Turn } from "../../transcript/schema.js";
import { isSelected, isSpokenTurn, type SpeakerSelection } from "../concepts/speakers.js";
import { NO_CONDITION } from "../concepts/measures.js";

/**
 * One thing a topic tree is built for: a whole session (scope "session": the selected
 * speakers' turns) or one participant's contributions (scope "participant").
 * `turns` are the eligible turns: the only ones a topic may cite.
 */
export interface TopicUnit {
  session: Session;
  condition: string;
  scope: "session" | "participant";
  participant?: Participant;
  turns: Turn[];
}

export function topicUnits(sessions: readonly Session[], scope: TopicUnit["scope"], speakers: SpeakerSelection): TopicUnit[] {
  const units: TopicUnit[] = [];
  for (const session of sessions) {
    const condition = session.metadata.condition ?? NO_CONDITION;
    const selected = session.participants.filter((p) => isSelected(p, speakers));
    const ids = new Set(selected.map((p) => p.id));
    const spoken = session.turns.filter(isSpokenTurn);
    if (scope === "session") {
      units.push({ session, condition, scope, turns: spoken.filter((t) => ids.has(t.speaker)) });
      continue;
    }
    for (const participant of selected) {
      const turns = spoken.filter((t) => t.speaker === participant.id);
      if (turns.length > 0) units.push({ session, condition, scope, participant, turns });
    }
  }
  return units;
}

/** "session" or "session/participant": the key of a unit's tree in the report. */
export function unitKey(unit: Pick<TopicUnit, "session" | "participant">): string {
  return unit.participant ? `${unit.session.id}/${unit.participant.id}` : unit.session.id;
}
