import type { Participant, Session, TurnType } from "../../transcript/schema.js";
import { countWords } from "../shared/words.js";
import { normalisedEntropy, rateSeconds, timeSpan } from "../shared/measures.js";

// Defined once in measures.ts; re-exported here, where stats readers look for them.
export { normalisedEntropy };
import { NO_CONDITION, summarise, type Summary } from "../shared/table.js";

/**
 * Session metrics and participation. What counts:
 *  - a turn counts when its type is not "system" or "reasoning" (not spoken to the group) and its
 *    speaker is not a participant of kind "system"; the others are reported as `excludedTurns`;
 *  - members are the session's participants whose kind is not "system", including those who
 *    never spoke (silence is part of participation balance);
 *  - words follow {@link countWords};
 *  - duration (seconds) follows {@link timeSpan} over all the session's turns: the latest `end`
 *    (or `start` when a turn has no end) minus the earliest `start`, over every turn that has a
 *    start time; null with a reason when no turn has one or the span is zero.
 *    Rates (per minute) divide by that duration and are null whenever it is, or when the times
 *    are to the minute and span one minute ({@link rateSeconds});
 *  - balance follows {@link normalisedEntropy} (and 1 - {@link gini}).
 */
export const EXCLUDED_TURN_TYPES: readonly TurnType[] = ["system", "reasoning"];

/** Participation balance of one session (null when fewer than 2 members or nothing was said). */
export interface Balance {
  /** Normalised Shannon entropy of turn shares: -Σ p ln p / ln k over the k members (1 = perfectly even). */
  entropyTurns: number | null;
  entropyWords: number | null;
  /** 1 - Gini coefficient of turn counts across the k members, Gini = Σi Σj |xi - xj| / (2 k² mean) (1 = even). */
  oneMinusGiniTurns: number | null;
  oneMinusGiniWords: number | null;
}

/** One member's figures in one session (a row of `stats-participants.csv`). */
export interface MemberMetrics {
  session: string;
  condition: string;
  run: string;
  participant: string;
  name: string;
  /** `role`, or the participant's kind when no role is given. */
  role: string;
  kind: Participant["kind"];
  turns: number;
  words: number;
  /** Share of the session's counted turns / words (0..1); null when the session has none. */
  shareTurns: number | null;
  shareWords: number | null;
  meanWordsPerTurn: number | null;
  turnsPerMinute: number | null;
  wordsPerMinute: number | null;
}

/** A square matrix over the session's members (row = from, column = to). */
export interface SpeakerMatrix {
  /** Participant ids, in participant order. */
  ids: string[];
  names: string[];
  counts: number[][];
}

/** One session's figures (a row of `stats-sessions.csv`, plus its matrices). */
export interface SessionMetrics {
  session: string;
  condition: string;
  run: string;
  members: number;
  turns: number;
  words: number;
  /** Turns left out (system/reasoning turns, system speakers). */
  excludedTurns: number;
  durationSeconds: number | null;
  /** Why duration (and so every rate) is null, or a caveat (e.g. only some turns are timed). */
  durationNote?: string;
  turnsPerMinute: number | null;
  wordsPerMinute: number | null;
  meanWordsPerTurn: number | null;
  balance: Balance;
  /** Speaker of turn i-1 -> speaker of turn i, over counted turns (self-transitions on the diagonal). */
  follows: SpeakerMatrix;
  /** Speaker -> each addressee, when any counted turn names addressees; otherwise null. */
  addresses: SpeakerMatrix | null;
  participants: MemberMetrics[];
}

/** What the summaries over sessions read of a member's metrics ({@link summariseByRole}). */
export type MemberFigures = Pick<
  MemberMetrics,
  "condition" | "role" | "turns" | "words" | "shareTurns" | "shareWords" | "meanWordsPerTurn" | "turnsPerMinute" | "wordsPerMinute"
>;

/**
 * What the summaries over sessions read of a session's metrics ({@link summariseByCondition},
 * {@link summariseByRole}, {@link followsByRole}).
 */
export interface SessionFigures extends Pick<
  SessionMetrics,
  "condition" | "turns" | "words" | "durationSeconds" | "turnsPerMinute" | "wordsPerMinute" | "meanWordsPerTurn"
> {
  balance: Pick<Balance, "entropyTurns" | "oneMinusGiniTurns">;
  follows: Pick<SpeakerMatrix, "counts">;
  participants: MemberFigures[];
}

/** Gini coefficient of non-negative values (0 = all equal, (k-1)/k = one holds everything). */
export function gini(values: readonly number[]): number | null {
  const k = values.length;
  const total = values.reduce((a, b) => a + b, 0);
  if (k < 2 || total <= 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  // Σi Σj |xi - xj| = 2 Σi (2i - k - 1) x(i) for the ascending order statistics, i = 1..k.
  let s = 0;
  sorted.forEach((x, i) => (s += (2 * (i + 1) - k - 1) * x));
  return s / (k * total);
}

function balance(turns: readonly number[], words: readonly number[]): Balance {
  const gt = gini(turns);
  const gw = gini(words);
  return {
    entropyTurns: normalisedEntropy(turns),
    entropyWords: normalisedEntropy(words),
    oneMinusGiniTurns: gt === null ? null : 1 - gt,
    oneMinusGiniWords: gw === null ? null : 1 - gw,
  };
}

const perMinute = (count: number, seconds: number | null) => (seconds === null ? null : count / (seconds / 60));
const ratio = (a: number, b: number) => (b > 0 ? a / b : null);

/** Metrics, participation and speaker matrices of one session. */
export function sessionMetrics(session: Session): SessionMetrics {
  const members = session.participants.filter((p) => p.kind !== "system");
  const index = new Map(members.map((p, i) => [p.id, i]));
  const k = members.length;
  const turns = new Array<number>(k).fill(0);
  const words = new Array<number>(k).fill(0);
  const follows = members.map(() => new Array<number>(k).fill(0));
  let addresses: number[][] | null = null;
  let excluded = 0;
  let previous = -1;
  for (const turn of session.turns) {
    const s = index.get(turn.speaker);
    if (s === undefined || EXCLUDED_TURN_TYPES.includes(turn.type)) {
      excluded++;
      continue;
    }
    turns[s]++;
    words[s] += countWords(turn.text);
    if (previous >= 0) follows[previous][s]++;
    previous = s;
    if (turn.addressees && turn.addressees.length > 0) {
      addresses ??= members.map(() => new Array<number>(k).fill(0));
      for (const a of turn.addressees) {
        const t = index.get(a);
        if (t !== undefined) addresses[s][t]++;
      }
    }
  }
  const totalTurns = turns.reduce((a, b) => a + b, 0);
  const totalWords = words.reduce((a, b) => a + b, 0);
  const time = timeSpan(session.turns);
  const rated = rateSeconds(time);
  const durationNote = [time.note, time.seconds !== null ? rated.reason : undefined].filter(Boolean).join("; ");
  const condition = session.metadata.condition ?? NO_CONDITION;
  const run = session.metadata.run ?? session.id;
  const ids = members.map((p) => p.id);
  const names = members.map((p) => p.name);
  return {
    session: session.id,
    condition,
    run,
    members: k,
    turns: totalTurns,
    words: totalWords,
    excludedTurns: excluded,
    durationSeconds: time.seconds,
    ...(durationNote ? { durationNote } : {}),
    turnsPerMinute: perMinute(totalTurns, rated.seconds),
    wordsPerMinute: perMinute(totalWords, rated.seconds),
    meanWordsPerTurn: ratio(totalWords, totalTurns),
    balance: balance(turns, words),
    follows: { ids, names, counts: follows },
    addresses: addresses ? { ids, names, counts: addresses } : null,
    participants: members.map((p, i) => ({
      session: session.id,
      condition,
      run,
      participant: p.id,
      name: p.name,
      role: p.role ?? p.kind,
      kind: p.kind,
      turns: turns[i],
      words: words[i],
      shareTurns: ratio(turns[i], totalTurns),
      shareWords: ratio(words[i], totalWords),
      meanWordsPerTurn: ratio(words[i], turns[i]),
      turnsPerMinute: perMinute(turns[i], rated.seconds),
      wordsPerMinute: perMinute(words[i], rated.seconds),
    })),
  };
}

/** Session-level metrics summarised (mean ± SD, n) for one condition. */
export interface ConditionSummary {
  condition: string;
  sessions: number;
  turns: Summary;
  words: Summary;
  durationSeconds: Summary;
  turnsPerMinute: Summary;
  wordsPerMinute: Summary;
  meanWordsPerTurn: Summary;
  balanceEntropyTurns: Summary;
  balanceOneMinusGiniTurns: Summary;
}

/** Member-level metrics summarised over the members of one role in one condition. */
export interface RoleSummary {
  condition: string;
  role: string;
  members: number;
  turns: Summary;
  words: Summary;
  shareTurns: Summary;
  shareWords: Summary;
  meanWordsPerTurn: Summary;
  turnsPerMinute: Summary;
  wordsPerMinute: Summary;
}

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    let list = groups.get(k);
    if (!list) groups.set(k, (list = []));
    list.push(item);
  }
  return groups;
}

/** Per-condition summaries of session metrics (conditions sorted). */
export function summariseByCondition(sessions: readonly SessionFigures[]): ConditionSummary[] {
  return [...groupBy(sessions, (s) => s.condition)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([condition, list]) => ({
      condition,
      sessions: list.length,
      turns: summarise(list.map((s) => s.turns)),
      words: summarise(list.map((s) => s.words)),
      durationSeconds: summarise(list.map((s) => s.durationSeconds)),
      turnsPerMinute: summarise(list.map((s) => s.turnsPerMinute)),
      wordsPerMinute: summarise(list.map((s) => s.wordsPerMinute)),
      meanWordsPerTurn: summarise(list.map((s) => s.meanWordsPerTurn)),
      balanceEntropyTurns: summarise(list.map((s) => s.balance.entropyTurns)),
      balanceOneMinusGiniTurns: summarise(list.map((s) => s.balance.oneMinusGiniTurns)),
    }));
}

/** Per condition × role summaries of member metrics. */
export function summariseByRole(sessions: readonly SessionFigures[]): RoleSummary[] {
  const members = sessions.flatMap((s) => s.participants);
  return [...groupBy(members, (m) => `${m.condition}\u0000${m.role}`)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, list]) => ({
      condition: list[0].condition,
      role: list[0].role,
      members: list.length,
      turns: summarise(list.map((m) => m.turns)),
      words: summarise(list.map((m) => m.words)),
      shareTurns: summarise(list.map((m) => m.shareTurns)),
      shareWords: summarise(list.map((m) => m.shareWords)),
      meanWordsPerTurn: summarise(list.map((m) => m.meanWordsPerTurn)),
      turnsPerMinute: summarise(list.map((m) => m.turnsPerMinute)),
      wordsPerMinute: summarise(list.map((m) => m.wordsPerMinute)),
    }));
}

/** Who-follows-whom pooled over the sessions of a condition, by role (role, or kind when no role). */
export interface RoleFollows {
  condition: string;
  /** Roles, sorted; rows and columns of `counts` follow this order. */
  roles: string[];
  /** counts[a][b] = counted turns by a member of role b directly after a turn by a member of role a. */
  counts: number[][];
}

/** Pool each session's who-follows-whom matrix by role, per condition (for study-level charts). */
export function followsByRole(sessions: readonly SessionFigures[]): RoleFollows[] {
  return [...groupBy(sessions, (s) => s.condition)]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([condition, list]) => {
      const roles = [...new Set(list.flatMap((s) => s.participants.map((p) => p.role)))].sort();
      const index = new Map(roles.map((r, i) => [r, i]));
      const counts = roles.map(() => new Array<number>(roles.length).fill(0));
      for (const s of list) {
        // The rows of follows and the participants are both the session's members, in the same order.
        const roleOf = s.participants.map((p) => index.get(p.role)!);
        s.follows.counts.forEach((row, i) => row.forEach((n, j) => (counts[roleOf[i]][roleOf[j]] += n)));
      }
      return { condition, roles, counts };
    });
}
