import type { Session, Turn } from "../transcript/schema.js";

/**
 * Which turns a coding job codes, and how they are grouped into requests.
 * Not coded: `system` turns (and turns by system participants: join/leave notices, tool
 * banners), `reasoning` turns (an agent's private chain of thought is not an act in the
 * conversation), and turns with no text. They are counted per reason in `skipped`.
 */
export const SKIPPED_TURN_TYPES = ["system", "reasoning"] as const;

/** Why a turn is not coded, or undefined when it is. */
export function skipReason(session: Session, turn: Turn, systemSpeakers: Set<string>): string | undefined {
  if ((SKIPPED_TURN_TYPES as readonly string[]).includes(turn.type)) return turn.type;
  if (systemSpeakers.has(turn.speaker)) return "system";
  if (turn.text.trim() === "") return "empty";
  return undefined;
}

/** Units of work: one per target turn, or up to `batch` nearby targets of one session. */
export interface CodingUnit {
  session: Session;
  targets: number[];
}

export interface CodingPlan {
  units: CodingUnit[];
  turns: number;
  alreadyCoded: number;
  /** Keys (`session\u0000turn`) of the codeable turns already coded. */
  coded: Set<string>;
  skipped: Record<string, number>;
}

export function planCoding(sessions: readonly Session[], done: ReadonlySet<string>, batch = 1): CodingPlan {
  const units: CodingUnit[] = [];
  const skipped: Record<string, number> = {};
  let turns = 0;
  let alreadyCoded = 0;
  const coded = new Set<string>();
  for (const session of sessions) {
    const systemSpeakers = new Set(session.participants.filter((p) => p.kind === "system").map((p) => p.id));
    let current: CodingUnit | undefined;
    session.turns.forEach((turn, index) => {
      const reason = skipReason(session, turn, systemSpeakers);
      if (reason) {
        skipped[reason] = (skipped[reason] ?? 0) + 1;
        return;
      }
      turns++;
      const key = `${session.id}\u0000${turn.id}`;
      if (done.has(key)) {
        alreadyCoded++;
        coded.add(key);
        return;
      }
      // A batch holds nearby targets only, so its shared window stays small.
      if (current && current.targets.length < batch && index - current.targets[0] < 2 * batch) {
        current.targets.push(index);
      } else {
        current = { session, targets: [index] };
        units.push(current);
      }
    });
  }
  return { units, turns, alreadyCoded, coded, skipped };
}
