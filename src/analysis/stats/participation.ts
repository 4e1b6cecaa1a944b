import type { Participant, Session } from "../../transcript/schema.js";
import { EXCLUDED_TURN_TYPES, type MemberMetrics, type SessionMetrics, type SpeakerMatrix } from "./metrics.js";
import { countWords } from "../shared/words.js";

/**
 * Participation over time and across sessions, by the counting rules of {@link sessionMetrics}:
 * counted turns are those whose type is not system or reasoning, by a participant whose kind is
 * not system; members are the non-system participants, silent ones included. Speakers are pooled
 * across sessions by name ({@link speakerName}), the study-wide identity the dashboard colours by.
 */

/** A participant's study-wide name: its name, or its id when the source gave no name. */
export function speakerName(participant: Pick<Participant, "id" | "name">): string {
  return participant.name || participant.id;
}

/** Cumulative words of each member of one session, at each of the member's counted turns. */
export interface CumulativeWords {
  /** "seconds" when every turn of the session has a start time, else "turn" (the turn's index). */
  timeAxis: "seconds" | "turn";
  members: { participant: string; name: string; points: [x: number, words: number][] }[];
}

/** Words said so far by each member, turn by turn (words by {@link countWords}). */
export function cumulativeWords(session: Session): CumulativeWords {
  const timed = session.turns.length > 0 && session.turns.every((t) => t.start !== undefined);
  const members = session.participants
    .filter((p) => p.kind !== "system")
    .map((p) => ({ participant: p.id, name: speakerName(p), words: 0, points: [] as [number, number][] }));
  const index = new Map(members.map((m, i) => [m.participant, i]));
  session.turns.forEach((turn, i) => {
    const m = index.get(turn.speaker);
    if (m === undefined || EXCLUDED_TURN_TYPES.includes(turn.type)) return;
    const member = members[m];
    member.words += countWords(turn.text);
    member.points.push([timed ? turn.start! : i, member.words]);
  });
  return { timeAxis: timed ? "seconds" : "turn", members: members.map(({ participant, name, points }) => ({ participant, name, points })) };
}

/**
 * Seconds each member of one session spoke: the sum of `end - start` over their counted turns
 * that have both times (turns without an end add nothing: their length is unknown). Keyed by
 * participant id, every member present (0 when silent); null when no counted turn has both times.
 */
export function speakingSeconds(session: Session): Map<string, number> | null {
  const members = session.participants.filter((p) => p.kind !== "system");
  const seconds = new Map(members.map((p) => [p.id, 0]));
  let timed = false;
  for (const turn of session.turns) {
    const so = seconds.get(turn.speaker);
    if (so === undefined || EXCLUDED_TURN_TYPES.includes(turn.type) || turn.start === undefined || turn.end === undefined) continue;
    seconds.set(turn.speaker, so + Math.max(0, turn.end - turn.start));
    timed = true;
  }
  return timed ? seconds : null;
}

/**
 * What pooling by speaker ({@link followsBySpeaker}, {@link participationBySpeaker}) reads of a
 * session's metrics: what the dashboard build's session memo keeps of them (src/report/shape/parts.ts),
 * a third of the whole metrics' bytes and objects to load back for every session of a large study.
 */
export interface SpeakerPooling {
  follows: Pick<SpeakerMatrix, "ids" | "names" | "counts">;
  participants: Pick<MemberMetrics, "participant" | "name" | "turns" | "words">[];
}

/** The {@link SpeakerPooling} of a session's metrics. */
export function speakerPooling(m: SessionMetrics): SpeakerPooling {
  return {
    follows: { ids: m.follows.ids, names: m.follows.names, counts: m.follows.counts },
    participants: m.participants.map((p) => ({ participant: p.participant, name: p.name, turns: p.turns, words: p.words })),
  };
}

/** Who follows whom pooled over sessions by speaker name: counts[a][b] = counted turns by b directly after a turn by a. */
export interface SpeakerFollows {
  names: string[];
  counts: number[][];
}

/**
 * Pool each session's who-follows-whom matrix ({@link SessionMetrics.follows}) by speaker name.
 * Names come in `order` first (e.g. the dashboard's speaker order), then in order of appearance.
 */
export function followsBySpeaker(sessions: readonly SpeakerPooling[], order: readonly string[] = []): SpeakerFollows {
  const names = [...order];
  const index = new Map(names.map((n, i) => [n, i]));
  const counts = names.map(() => names.map(() => 0));
  const slot = (name: string): number => {
    let i = index.get(name);
    if (i === undefined) {
      i = names.length;
      index.set(name, i);
      names.push(name);
      for (const row of counts) row.push(0);
      counts.push(names.map(() => 0));
    }
    return i;
  };
  for (const s of sessions) {
    const at = s.follows.ids.map((id, k) => slot(speakerName({ id, name: s.follows.names[k] })));
    s.follows.counts.forEach((row, i) => row.forEach((n, j) => (counts[at[i]][at[j]] += n)));
  }
  return { names, counts };
}

/** One speaker's participation summed over every session they are a member of. */
export interface SpeakerParticipation {
  name: string;
  /** Sessions the speaker is a member of (silent ones included). */
  sessions: number;
  turns: number;
  words: number;
  /** Share of all counted turns / words of the study (0..1); null when the study has none. */
  shareTurns: number | null;
  shareWords: number | null;
}

/**
 * Participation per speaker over the whole study: each member's counted turns and words
 * ({@link sessionMetrics}) summed by speaker name, and their shares of the study's totals.
 * Speakers come in `order` first, then in order of appearance.
 */
export function participationBySpeaker(sessions: readonly SpeakerPooling[], order: readonly string[] = []): SpeakerParticipation[] {
  const byName = new Map<string, { sessions: number; turns: number; words: number }>(order.map((n) => [n, { sessions: 0, turns: 0, words: 0 }]));
  let turns = 0;
  let words = 0;
  for (const s of sessions) {
    for (const m of s.participants) {
      const name = speakerName({ id: m.participant, name: m.name });
      let entry = byName.get(name);
      if (!entry) byName.set(name, (entry = { sessions: 0, turns: 0, words: 0 }));
      entry.sessions++;
      entry.turns += m.turns;
      entry.words += m.words;
      turns += m.turns;
      words += m.words;
    }
  }
  return [...byName]
    .filter(([, e]) => e.sessions > 0)
    .map(([name, e]) => ({ name, ...e, shareTurns: turns > 0 ? e.turns / turns : null, shareWords: words > 0 ? e.words / words : null }));
}
