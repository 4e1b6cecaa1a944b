import type { Session } from "../../transcript/schema.js";
import type { SessionMetrics } from "../../analysis/stats/metrics.js";
import {
  cumulativeWords,
  followsBySpeaker,
  participationBySpeaker,
  speakerName,
  speakingSeconds,
  type SpeakerPooling,
} from "../../analysis/stats/participation.js";
import type { FollowMatrix, ParticipationSession, ReportBundle } from "../types.js";
import { conditionOf } from "./common.js";

/** Points kept per cumulative-words line: enough for a smooth curve, small for huge sessions. */
export const MAX_CUMULATIVE_POINTS = 200;

/** Keep at most `max` points, evenly spaced by index, always keeping the last (drawing only: no value changes). */
export function thin<T>(points: T[], max: number): T[] {
  if (points.length <= max) return points;
  const out: T[] = [];
  const step = (points.length - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(points[Math.round(i * step)]);
  return out;
}

/**
 * One session's participation as `colloquy stats` measures it (src/analysis/stats/metrics.ts
 * sessionMetrics: counted turns, words, shares, balance = normalised entropy of word shares) and
 * its cumulative words over time (src/analysis/stats/participation.ts cumulativeWords), speaking
 * seconds (speakingSeconds) and who follows whom (metrics.follows, rows and columns in the order
 * of `speakers`).
 */
export function buildParticipation(session: Session, metrics: SessionMetrics): ParticipationSession {
  const cumulative = cumulativeWords(session);
  const seconds = speakingSeconds(session);
  return {
    session: session.id,
    condition: conditionOf(session),
    speakers: metrics.participants.map((m) => ({
      key: speakerName({ id: m.participant, name: m.name }),
      turns: m.turns,
      words: m.words,
      // A session with no counted turns (or words) has no shares; the chart draws them as 0.
      turnShare: m.shareTurns ?? 0,
      wordShare: m.shareWords ?? 0,
      seconds: seconds ? (seconds.get(m.participant) ?? 0) : null,
    })),
    follows: metrics.follows.counts,
    balance: metrics.balance.entropyWords,
    cumulative: cumulative.members.map((m) => ({ key: m.name, points: thin(m.points, MAX_CUMULATIVE_POINTS) })),
    timeAxis: cumulative.timeAxis,
  };
}

/** Who follows whom over all sessions (src/analysis/stats/participation.ts followsBySpeaker), rows and columns in `order` first. */
export function buildFollows(metrics: readonly SpeakerPooling[], order: string[]): FollowMatrix {
  const pooled = followsBySpeaker(metrics, order);
  return { keys: pooled.names, counts: pooled.counts };
}

/** Each speaker's counted turns and words over all sessions and their shares of the study's (participationBySpeaker). */
export function buildSpeakerParticipation(metrics: readonly SpeakerPooling[], order: string[]): ReportBundle["participation"]["speakers"] {
  return participationBySpeaker(metrics, order).map((s) => ({
    key: s.name,
    turns: s.turns,
    words: s.words,
    turnShare: s.shareTurns ?? 0,
    wordShare: s.shareWords ?? 0,
  }));
}
