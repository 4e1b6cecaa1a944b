import type { Session } from "../../transcript/schema.js";
import type { CodeSet } from "../load.js";
import type { BalesSet, CodebookInfo, Counts } from "../types.js";
import { speakerKeys, turnSpeaker } from "./common.js";

const PHASES = ["early", "middle", "late"] as const;

/** A Bales-style codebook: nominal with groups of kind "area" (bales-ipa, or a researcher's variant). */
export function isBalesLike(codebook: CodebookInfo): boolean {
  return codebook.kind === "nominal" && codebook.groups.some((g) => g.kind === "area");
}

/** Third of a session a turn falls in, by position: index * 3 / n (so thirds have equal turn counts ±1). */
export function phaseOf(index: number, turns: number): 0 | 1 | 2 {
  return Math.min(2, Math.floor((index * 3) / Math.max(1, turns))) as 0 | 1 | 2;
}

/** Each member's act profile and phase movement across session thirds, for one coder. */
export function buildBalesSet(sessions: Session[], set: CodeSet, codebook: CodebookInfo): BalesSet {
  const groupMembers = (kind: string) =>
    codebook.groups
      .filter((g) => g.kind === kind)
      .map((g) => ({ id: g.id, label: g.label, categories: codebook.categories.filter((c) => c.groups.includes(g.id)).map((c) => c.id) }));
  const members = new Map<string, { key: string; kind: string; total: number; counts: Counts }>();
  const phases = PHASES.map((phase) => ({ phase, total: 0, counts: {} as Counts }));
  for (const session of sessions) {
    const keys = speakerKeys(session);
    session.turns.forEach((turn, i) => {
      const codes = set.byTurn.get(`${session.id}\u0000${turn.id}`)?.codes;
      if (!codes || codes.length === 0) return;
      const key = turnSpeaker(session, keys, turn);
      const m = members.get(key) ?? { key, kind: keys.get(turn.speaker)?.kind ?? "human", total: 0, counts: {} };
      const ph = phases[phaseOf(i, session.turns.length)];
      m.total++;
      ph.total++;
      for (const code of codes) {
        m.counts[code] = (m.counts[code] ?? 0) + 1;
        ph.counts[code] = (ph.counts[code] ?? 0) + 1;
      }
      members.set(key, m);
    });
  }
  return {
    codebook: set.codebook,
    coder: set.coder,
    areas: groupMembers("area"),
    members: [...members.values()],
    phases,
    problems: groupMembers("problem"),
  };
}
