import * as crypto from "node:crypto";
import { createHash } from "node:crypto";
import type { Session, Turn } from "./schema.js";

/**
 * A turn's content fingerprint: who spoke and exactly what they said. Turn ids are positions, so
 * after a transcript is edited and imported again an id can name another utterance; every code
 * record stores the fingerprint of the turn it was given, and a code is only ever applied to a
 * turn with that fingerprint (see coding/currency.ts and coding/realign.ts).
 *
 * Only line endings are normalised (a file saved on Windows is the same transcript); case,
 * spacing and punctuation are not, because a coder saw them.
 */
export function turnFingerprint(turn: Pick<Turn, "speaker" | "text">): string {
  const text = turn.text.includes("\r") ? turn.text.replace(/\r\n?/g, "\n") : turn.text;
  // 16 hex digits (64 bits): collisions between two turns of one session are out of reach.
  // The same bytes as three updates (UTF-8 of a joined string is the join of each one's UTF-8,
  // the NUL between them pairing with no surrogate), hashed in one call: twice as fast, and a
  // study's 100,000 turns are fingerprinted on every load.
  const joined = `${turn.speaker}\u0000${text}`;
  return oneShot ? oneShot("sha256", joined).slice(0, 16) : createHash("sha256").update(joined).digest("hex").slice(0, 16);
}

/** node:crypto's one-shot `hash` (Node 20.12 and later). */
const oneShot = (crypto as { hash?: (algorithm: string, data: string) => string }).hash;

// Sessions read once per run are shared and never mutated, so their fingerprints can be cached.
const bySession = new WeakMap<Session, Map<string, string>>();

/** Turn id -> fingerprint for one session (computed once per session object). */
export function sessionFingerprints(session: Session): Map<string, string> {
  let map = bySession.get(session);
  if (!map) {
    map = new Map(session.turns.map((t) => [t.id, turnFingerprint(t)]));
    bySession.set(session, map);
  }
  return map;
}

/** One fingerprint for a session's whole sequence of turns (ids, speakers, words, order). */
export function sessionContentHash(session: Session): string {
  const hash = createHash("sha256");
  const prints = sessionFingerprints(session);
  for (const turn of session.turns) hash.update(turn.id).update("\u0000").update(prints.get(turn.id)!).update("\n");
  return hash.digest("hex").slice(0, 16);
}
