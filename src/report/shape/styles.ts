import type { Session } from "../../transcript/schema.js";
import { summariseRatings } from "../../analysis/shared/scales.js";
import { sessionCodes, type CodeSet } from "../load.js";
import type { CodebookInfo, ScaleSummary, StyleSet } from "../types.js";
import { conditionOf, speakerKeys, turnSpeaker } from "./common.js";

/**
 * Pragmatic style: per participant and per condition, each scale's ratings summarised by
 * src/analysis/shared/scales.ts summariseRatings (quartiles, mean, histogram).
 */
export function buildStyleSet(sessions: Session[], set: CodeSet, codebook: CodebookInfo): StyleSet {
  const bySpeaker = new Map<string, { kind: string; values: Map<string, number[]> }>();
  const byCondition = new Map<string, Map<string, number[]>>();
  const push = (map: Map<string, number[]>, scale: string, v: number) => {
    const list = map.get(scale) ?? [];
    list.push(v);
    map.set(scale, list);
  };
  for (const session of sessions) {
    const keys = speakerKeys(session);
    const condition = conditionOf(session);
    const records = sessionCodes(set, session.id);
    for (const turn of session.turns) {
      const scores = records.get(turn.id)?.scores;
      if (!scores) continue;
      const key = turnSpeaker(session, keys, turn);
      const s = bySpeaker.get(key) ?? { kind: keys.get(turn.speaker)?.kind ?? "human", values: new Map() };
      const c = byCondition.get(condition) ?? new Map<string, number[]>();
      for (const [scale, v] of Object.entries(scores)) {
        if (!Number.isFinite(v)) continue;
        push(s.values, scale, v);
        push(c, scale, v);
      }
      bySpeaker.set(key, s);
      byCondition.set(condition, c);
    }
  }
  return styleSetOf(set, codebook, bySpeaker, byCondition);
}

/** The view's data from each speaker's and each condition's finite ratings per scale. */
export function styleSetOf(
  set: Pick<CodeSet, "codebook" | "coder">,
  codebook: CodebookInfo,
  bySpeaker: ReadonlyMap<string, { kind: string; values: ReadonlyMap<string, ArrayLike<number>> }>,
  byCondition: ReadonlyMap<string, ReadonlyMap<string, ArrayLike<number>>>,
): StyleSet {
  const summarise = (values: ReadonlyMap<string, ArrayLike<number>>) => {
    const out: Record<string, ScaleSummary> = {};
    for (const scale of codebook.scales) {
      const list = values.get(scale.id);
      if (list && list.length > 0) out[scale.id] = summariseRatings(list, scale.points);
    }
    return out;
  };
  return {
    codebook: set.codebook,
    coder: set.coder,
    scales: codebook.scales,
    bySpeaker: [...bySpeaker.entries()].map(([key, s]) => ({ key, kind: s.kind, summaries: summarise(s.values) })),
    byCondition: [...byCondition.entries()].map(([condition, v]) => ({ condition, summaries: summarise(v) })),
  };
}
