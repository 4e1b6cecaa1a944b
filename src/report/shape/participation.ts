import type { Session } from "../../transcript/schema.js";
import type { FollowMatrix, ParticipationSession } from "../types.js";
import { conditionOf, speakerKeys, turnSpeaker, wordCount } from "./common.js";

/** Points kept per cumulative-words line: enough for a smooth curve, small for huge sessions. */
export const MAX_CUMULATIVE_POINTS = 200;

/**
 * Participation balance: normalised Shannon entropy of the shares, H / ln(k) for k speakers.
 * 1 = everyone contributed equally, 0 = one speaker did everything; null with fewer than 2 speakers.
 */
export function balanceIndex(shares: number[]): number | null {
  if (shares.length < 2) return null;
  let h = 0;
  for (const p of shares) if (p > 0) h -= p * Math.log(p);
  return h / Math.log(shares.length);
}

/** Keep at most `max` points, evenly spaced by index, always keeping the last. */
export function thin<T>(points: T[], max: number): T[] {
  if (points.length <= max) return points;
  const out: T[] = [];
  const step = (points.length - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(points[Math.round(i * step)]);
  return out;
}

/** Share of turns and words per speaker, balance, and cumulative words over time, for one session. */
export function buildParticipation(session: Session): ParticipationSession {
  const keys = speakerKeys(session);
  const timed = session.turns.length > 0 && session.turns.every((t) => t.start !== undefined);
  const stats = new Map<string, { turns: number; words: number; points: [number, number][] }>();
  // Listed participants appear even with zero turns (a silent member matters for balance).
  for (const p of session.participants) if (p.kind !== "system") stats.set(keys.get(p.id)!.key, { turns: 0, words: 0, points: [] });
  let allTurns = 0;
  let allWords = 0;
  session.turns.forEach((t, i) => {
    if (t.type === "system") return;
    const key = turnSpeaker(session, keys, t);
    const s = stats.get(key) ?? { turns: 0, words: 0, points: [] };
    const w = wordCount(t.text);
    s.turns++;
    s.words += w;
    s.points.push([timed ? t.start! : i, s.words]);
    stats.set(key, s);
    allTurns++;
    allWords += w;
  });
  const speakers = [...stats.entries()].map(([key, s]) => ({
    key,
    turns: s.turns,
    words: s.words,
    turnShare: allTurns ? s.turns / allTurns : 0,
    wordShare: allWords ? s.words / allWords : 0,
  }));
  return {
    session: session.id,
    condition: conditionOf(session),
    speakers,
    balance: balanceIndex(speakers.map((s) => s.wordShare)),
    cumulative: [...stats.entries()].map(([key, s]) => ({ key, points: thin(s.points, MAX_CUMULATIVE_POINTS) })),
    timeAxis: timed ? "seconds" : "turn",
  };
}

/**
 * Who follows whom, over all sessions: counts[i][j] = turns by keys[j] directly after a turn by
 * keys[i] (system turns skipped, self-follows kept: a speaker continuing is informative too).
 */
export function buildFollows(sessions: Session[], order: string[]): FollowMatrix {
  const keys = [...order];
  const index = new Map(keys.map((k, i) => [k, i]));
  const counts = keys.map(() => keys.map(() => 0));
  for (const session of sessions) {
    const map = speakerKeys(session);
    let prev = -1;
    for (const t of session.turns) {
      if (t.type === "system") continue;
      const key = turnSpeaker(session, map, t);
      let cur = index.get(key);
      if (cur === undefined) {
        cur = keys.length;
        index.set(key, cur);
        keys.push(key);
        for (const row of counts) row.push(0);
        counts.push(keys.map(() => 0));
      }
      if (prev >= 0) counts[prev][cur]++;
      prev = cur;
    }
  }
  return { keys, counts };
}
