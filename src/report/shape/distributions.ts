import type { Session } from "../../transcript/schema.js";
import { binCodes } from "../../analysis/stats/sequences.js";
import { sessionCodes, type CodeSet } from "../load.js";
import type { CodebookInfo, Counts, Distribution, SequenceSession, SequenceSet } from "../types.js";
import { conditionOf, speakerKeys, turnSpeaker } from "./common.js";
import { addToCount } from "../../util/named-entries.js";

function bump(counts: Counts, code: string): void {
  addToCount(counts, code, 1);
}

/**
 * Who does what: per speaker and per condition, how many turns got each code from one coder.
 * A multi-coded turn counts once per code; uncoded turns are not counted (totals say how many were).
 */
export function buildDistribution(sessions: Session[], set: CodeSet): Distribution {
  const bySpeaker = new Map<string, Distribution["bySpeaker"][number]>();
  const byCondition = new Map<string, Distribution["byCondition"][number]>();
  for (const session of sessions) {
    const keys = speakerKeys(session);
    const condition = conditionOf(session);
    const records = sessionCodes(set, session.id);
    for (const turn of session.turns) {
      const codes = records.get(turn.id)?.codes;
      if (!codes || codes.length === 0) continue;
      const key = turnSpeaker(session, keys, turn);
      const info = keys.get(turn.speaker);
      const s = bySpeaker.get(key) ?? { key, kind: info?.kind ?? "human", role: info?.role, total: 0, counts: {} };
      const c = byCondition.get(condition) ?? { condition, total: 0, counts: {} };
      s.total++;
      c.total++;
      for (const code of codes) {
        bump(s.counts, code);
        bump(c.counts, code);
      }
      bySpeaker.set(key, s);
      byCondition.set(condition, c);
    }
  }
  return { codebook: set.codebook, coder: set.coder, bySpeaker: [...bySpeaker.values()], byCondition: [...byCondition.values()] };
}

/** Cells per sequence row before long sessions are binned (keeps the SVG small for huge studies). */
export const MAX_SEQUENCE_CELLS = 400;

/**
 * The code of every turn in time order (turn index order), as indexes into the codebook's
 * categories; a binned cell holds the most frequent code of its turns (src/analysis/stats/sequences.ts
 * binCodes; ties: first in codebook order).
 */
export function buildSequenceSet(sessions: Session[], rows: SequenceSession[], set: CodeSet, codebook: CodebookInfo): SequenceSet {
  const catIndex = new Map(codebook.categories.map((c, i) => [c.id, i]));
  const cells = sessions.map((session, r) => {
    const records = sessionCodes(set, session.id);
    const codes = session.turns.map((turn) => {
      const code = records.get(turn.id)?.codes?.[0];
      return code === undefined ? -1 : (catIndex.get(code) ?? -1);
    });
    return binCodes(codes, rows[r].binSize);
  });
  return { codebook: set.codebook, coder: set.coder, cells };
}
