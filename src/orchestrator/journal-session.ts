import type { Session, Turn } from "../transcript/schema.js";
import { turnId } from "../transcript/ids.js";
import { resolveAgents } from "./agent.js";
import { sessionOf } from "./session-of.js";
import { SessionJournal, untakenPosts, type DamagedLine, type JournalContents, type PostRecord } from "./journal.js";
import type { ConditionSpec, Scenario } from "./scenario.js";

/**
 * Sessions made from a journal alone: what a session file holds when its run stopped (Ctrl-C, a
 * failure) or is started again over an interrupted one (--overwrite). Every acknowledged word is
 * in them: the turns said, then what people posted that nothing took yet.
 */

/** `session` with the posts its journal holds that no turn took, appended as the people's late messages. */
export function withUntakenPosts(session: Session, journalPath: string): Session {
  const read = SessionJournal.read(journalPath);
  return read ? appendPosts(session, untakenPosts(read.contents)) : session;
}

/**
 * The session an interrupted journal holds (incomplete). Lines of it that were damaged are kept
 * as they are in `metadata.orchestrator.journalDamage`, and the turns read around them are
 * numbered again in order (their number in the journal stays in `metadata.journalIndex`).
 */
export function sessionFromJournal(
  scenario: Scenario,
  condition: ConditionSpec,
  run: number,
  contents: JournalContents,
  damaged: readonly DamagedLine[] = [],
): Session {
  const turns = contents.turns.map((turn, i) =>
    turn.index === i ? turn : { ...turn, id: turnId(i), index: i, metadata: { ...turn.metadata, journalIndex: turn.index } },
  );
  const session = sessionOf(
    {
      scenario,
      condition,
      run,
      seed: contents.start.seed,
      sessionId: contents.start.sessionId,
      participants: resolveAgents(scenario),
      turns,
      usage: { promptTokens: 0, completionTokens: 0, requests: 0 },
      endReason: undefined,
      humanAnswers: [],
      notes: damaged.length ? { journalDamage: damaged } : {},
      clock: turns.at(-1)?.end ?? 0,
    },
    { incomplete: true, failure: "interrupted", strategy: { type: scenario.strategy.type }, model: {} },
  );
  return appendPosts(session, untakenPosts(contents));
}

function appendPosts(session: Session, posts: readonly PostRecord[]): Session {
  if (posts.length === 0) return session;
  // A terminal's lines wait in one queue: they are the (first) person's at the terminal.
  const someone = session.participants.find((p) => p.kind === "human")?.id ?? "";
  const at = session.turns.at(-1)?.end ?? 0;
  const turns: Turn[] = posts.map((post, i) => ({
    id: turnId(session.turns.length + i),
    index: session.turns.length + i,
    speaker: post.participant || someone,
    text: post.text,
    start: at,
    end: at,
    type: "message",
    metadata: {
      receivedAt: new Date(post.receivedAt).toISOString(),
      late: true,
      untaken: true,
      note: "posted before the session stopped; colloquy run --resume takes it into the session",
    },
  }));
  return { ...session, turns: [...session.turns, ...turns] };
}
