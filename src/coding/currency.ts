import type { Session } from "../transcript/schema.js";
import { sessionFingerprints } from "../transcript/fingerprint.js";
import type { CodeRecord } from "./records.js";

/**
 * Which code records still describe the turn they point at. A record carries the fingerprint of
 * the turn it was given; if that turn's speaker or words have changed since (a session file
 * edited, a transcript re-imported outside `colloquy import`, a crash between the two halves of a
 * re-import), the record is withheld from every analysis rather than applied to different words.
 * `colloquy import` moves such codes to the stale list itself (coding/realign.ts); this check is
 * the safety net every reader goes through.
 */

export interface WithheldCode {
  record: CodeRecord;
  reason: "turn-changed" | "turn-removed";
}

export interface CodeCurrency {
  /** Records whose turn exists with the fingerprint they were given (or that have none to check). */
  current: CodeRecord[];
  withheld: WithheldCode[];
}

/**
 * Split records into those that apply to the sessions as they are now and those that do not.
 * Records of sessions not in `sessions`, and records without a fingerprint (written before
 * fingerprints existed, or keyed by something other than a turn, like topic reviews), are passed
 * through: there is nothing to check them against.
 */
export function checkCodeCurrency(records: readonly CodeRecord[], sessions: readonly Session[]): CodeCurrency {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const current: CodeRecord[] = [];
  const withheld: WithheldCode[] = [];
  // Records come session by session: find a session's fingerprints once per run of its records.
  let id: string | undefined;
  let prints: Map<string, string> | undefined;
  for (const record of records) {
    if (record.fingerprint === undefined) {
      current.push(record);
      continue;
    }
    if (record.session !== id) {
      id = record.session;
      const session = byId.get(id);
      prints = session && sessionFingerprints(session);
    }
    if (!prints) {
      current.push(record);
      continue;
    }
    const fingerprint = prints.get(record.turn);
    if (fingerprint === undefined) withheld.push({ record, reason: "turn-removed" });
    else if (record.fingerprint !== fingerprint) withheld.push({ record, reason: "turn-changed" });
    else current.push(record);
  }
  return { current, withheld };
}
