import type { Session } from "../../transcript/schema.js";
import type { ConceptExtractor } from "./extract.js";
import { mtld, type MtldResult } from "./mtld.js";
import { isSelected, isSpokenTurn, type SpeakerSelection } from "./speakers.js";
import { words } from "./tokens.js";
import { countWords } from "../shared/words.js";
import { rateSeconds, timeSpan, type TimeSpan } from "../shared/measures.js";

/** Concepts of one turn, in order of mention with repeats. */
export interface TurnConcepts {
  turn: string;
  speaker: string;
  /** Seconds from session start, when the source had times. */
  start: number | null;
  concepts: string[];
  words: number;
}

/**
 * Concepts per minute. `basis` "session": the session's duration (src/analysis/shared/measures.ts
 * `timeSpan` over all its turns, as stats reports it); "active": the same rule over the
 * participant's own spoken turns. `value` is null, with `reason`, when there are no times or
 * the span is zero.
 */
export interface ConceptRate {
  value: number | null;
  basis: "session" | "active";
  minutes: number | null;
  reason?: string;
}

/** Per participant and session measures. Counts are over the participant's spoken turns. */
export interface ParticipantConcepts {
  session: string;
  condition: string;
  participant: string;
  name: string;
  kind: string;
  turns: number;
  /** Words by Colloquy's one word-counting rule (src/analysis/shared/words.ts), as in the stats reports. */
  words: number;
  wordsPerUtterance: number | null;
  /** Concept mentions (a concept said twice counts twice). */
  totalConcepts: number;
  uniqueConcepts: number;
  conceptsPerUtterance: number | null;
  rate: ConceptRate;
  /** Concepts this participant was first to mention in the session. */
  introduced: number;
  /** Distinct concepts first mentioned by someone else that this participant went on to use. */
  pickedUp: number;
  /** MTLD over all the participant's words in the session (lower-cased, in order). */
  mtld: MtldResult;
  /**
   * Referential cohesion: mean over the participant's turns (after the first turn of the
   * session, with at least one concept) of the share of the turn's distinct concepts that
   * also occur in the immediately preceding spoken turn (whoever said it). null when no turn qualifies.
   */
  cohesion: number | null;
  cohesionTurns: number;
}

/** When a concept entered the conversation and who introduced it. */
export interface FirstMention {
  concept: string;
  turn: string;
  speaker: string;
  start: number | null;
  /** Mentions of the concept in the whole session, by anyone. */
  mentions: number;
}

/**
 * Who picks up whose concepts: `matrix[i][j]` is the number of distinct concepts first
 * mentioned by `speakers[j]` that `speakers[i]` later used (diagonal 0: one's own concepts
 * are not uptake). Over every speaker of the session, whatever `--speakers` selects.
 */
export interface UptakeMatrix {
  speakers: string[];
  matrix: number[][];
}

export interface SessionConcepts {
  session: string;
  condition: string;
  durationMinutes: number | null;
  /** Over the selected speakers. */
  totalConcepts: number;
  uniqueConcepts: number;
  conceptsPerUtterance: number | null;
  rate: ConceptRate;
  participants: ParticipantConcepts[];
  firstMentions: FirstMention[];
  uptake: UptakeMatrix;
  /** Every spoken turn with its concepts (all speakers; `selected` marks the counted ones). */
  turns: (TurnConcepts & { selected: boolean })[];
}

/** Condition label for sessions without one (the same label as the compare and stats reports). */
export const NO_CONDITION = "(no condition)";

/**
 * Minutes of a span of turns ({@link timeSpan}, the one duration rule) a rate divides by; null
 * with a reason. `toTheMinute`: the session's clock keeps minutes, which a participant's own two
 * turns cannot show (timeSpan needs three), yet their 10:16-10:17 span is as uncertain as a session's.
 */
function span(time: TimeSpan, toTheMinute = false): { minutes: number | null; reason?: string } {
  if (time.seconds === null) return { minutes: null, reason: time.timed === 0 ? "no turn times" : "the time span is zero" };
  const rated = rateSeconds({ ...time, toTheMinute: toTheMinute || time.toTheMinute });
  if (rated.seconds === null) return { minutes: null, reason: "times to the minute spanning one minute" };
  return { minutes: rated.seconds / 60 };
}

function rate(total: number, basis: ConceptRate["basis"], time: { minutes: number | null; reason?: string }): ConceptRate {
  if (time.minutes === null) return { value: null, basis, minutes: null, reason: time.reason };
  return { value: total / time.minutes, basis, minutes: time.minutes };
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : null);

/** Concept measures of one session. */
export function analyseSessionConcepts(
  session: Session,
  extractor: ConceptExtractor,
  options: { speakers: SpeakerSelection; rateBasis: "session" | "active" },
): SessionConcepts {
  const condition = session.metadata.condition ?? NO_CONDITION;
  const spoken = session.turns.filter(isSpokenTurn);
  const byId = new Map(session.participants.map((p) => [p.id, p]));
  const selected = new Set(session.participants.filter((p) => isSelected(p, options.speakers)).map((p) => p.id));
  const turns = spoken.map((t) => ({
    turn: t.id,
    speaker: t.speaker,
    start: t.start ?? null,
    concepts: extractor.extract(t.text),
    words: countWords(t.text),
    selected: selected.has(t.speaker),
  }));

  // First mentions and uptake over everyone who spoke.
  const first = new Map<string, FirstMention>();
  const pickedUp = new Map<string, Set<string>>(); // picker -> concepts
  const uptakeCounts = new Map<string, number>(); // picker\0introducer -> distinct concepts
  for (const t of turns) {
    for (const c of t.concepts) {
      const known = first.get(c);
      if (known === undefined) {
        first.set(c, { concept: c, turn: t.turn, speaker: t.speaker, start: t.start, mentions: 1 });
        continue;
      }
      known.mentions++;
      if (known.speaker === t.speaker) continue;
      const mine = pickedUp.get(t.speaker) ?? new Set<string>();
      if (!mine.has(c)) {
        mine.add(c);
        pickedUp.set(t.speaker, mine);
        const key = `${t.speaker}\u0000${known.speaker}`;
        uptakeCounts.set(key, (uptakeCounts.get(key) ?? 0) + 1);
      }
    }
  }
  const speakers = [...new Set(turns.map((t) => t.speaker))];
  const uptake: UptakeMatrix = {
    speakers,
    matrix: speakers.map((row) => speakers.map((col) => uptakeCounts.get(`${row}\u0000${col}`) ?? 0)),
  };

  // The session's duration is the same number stats reports: over all its turns.
  const sessionTime = timeSpan(session.turns);
  const sessionSpan = span(sessionTime);
  const participants: ParticipantConcepts[] = [];
  for (const id of session.participants.map((p) => p.id).filter((p) => selected.has(p))) {
    const own = turns.filter((t) => t.speaker === id);
    if (own.length === 0) continue;
    const participant = byId.get(id)!;
    const all = own.flatMap((t) => t.concepts);
    let cohesionSum = 0;
    let cohesionTurns = 0;
    turns.forEach((t, i) => {
      if (t.speaker !== id || i === 0) return;
      const mine = new Set(t.concepts);
      if (mine.size === 0) return;
      const previous = new Set(turns[i - 1].concepts);
      cohesionSum += [...mine].filter((c) => previous.has(c)).length / mine.size;
      cohesionTurns++;
    });
    const wordList = spoken.filter((t) => t.speaker === id).flatMap((t) => words(t.text));
    const wordCount = own.reduce((n, t) => n + t.words, 0);
    const time = options.rateBasis === "session" ? sessionSpan : span(timeSpan(spoken.filter((t) => t.speaker === id)), sessionTime.toTheMinute);
    participants.push({
      session: session.id,
      condition,
      participant: id,
      name: participant.name,
      kind: participant.kind,
      turns: own.length,
      words: wordCount,
      wordsPerUtterance: ratio(wordCount, own.length),
      totalConcepts: all.length,
      uniqueConcepts: new Set(all).size,
      conceptsPerUtterance: ratio(all.length, own.length),
      rate: rate(all.length, options.rateBasis, time),
      introduced: [...first.values()].filter((f) => f.speaker === id).length,
      pickedUp: pickedUp.get(id)?.size ?? 0,
      mtld: mtld(wordList),
      cohesion: cohesionTurns > 0 ? cohesionSum / cohesionTurns : null,
      cohesionTurns,
    });
  }

  const counted = turns.filter((t) => t.selected);
  const allSelected = counted.flatMap((t) => t.concepts);
  return {
    session: session.id,
    condition,
    durationMinutes: sessionSpan.minutes,
    totalConcepts: allSelected.length,
    uniqueConcepts: new Set(allSelected).size,
    conceptsPerUtterance: ratio(allSelected.length, counted.length),
    // A session's rate always divides by the session's duration.
    rate: rate(allSelected.length, "session", sessionSpan),
    participants,
    firstMentions: [...first.values()],
    uptake,
    turns,
  };
}
