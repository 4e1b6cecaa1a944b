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

/** A plan's counts, without its units. */
export type PlanCounts = Pick<CodingPlan, "turns" | "alreadyCoded" | "skipped"> & { toCode: number };

/**
 * The plan one session at a time: with `load`, each session is read when its turn comes and let
 * go after, so a pass over a large study holds one session's turns (the study's sessions given
 * may then be heads whose turns are never read). Without it, the sessions given are planned.
 */
export async function* sessionPlans(
  sessions: readonly Session[],
  done: ReadonlySet<string>,
  batch: number,
  load?: (session: Session) => Session | Promise<Session>,
): AsyncGenerator<CodingPlan> {
  for (const session of sessions) yield planCoding([load ? await load(session) : session], done, batch);
}

/** Nothing counted yet. */
export const noCounts = (): PlanCounts => ({ turns: 0, alreadyCoded: 0, skipped: {}, toCode: 0 });

/** Add one plan's turns to `counts` (in place). */
export function addCounts(counts: PlanCounts, plan: CodingPlan): void {
  counts.turns += plan.turns;
  counts.alreadyCoded += plan.alreadyCoded;
  counts.toCode += plan.units.reduce((n, u) => n + u.targets.length, 0);
  for (const [reason, n] of Object.entries(plan.skipped)) counts.skipped[reason] = (counts.skipped[reason] ?? 0) + n;
}

/** What one plan counts. */
export function countsOf(plan: CodingPlan): PlanCounts {
  const counts = noCounts();
  addCounts(counts, plan);
  return counts;
}

/** What the plans of a pass add up to. */
export async function countPlans(plans: AsyncIterable<CodingPlan>): Promise<PlanCounts> {
  const counts = noCounts();
  for await (const plan of plans) addCounts(counts, plan);
  return counts;
}
