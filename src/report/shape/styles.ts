import type { Session } from "../../transcript/schema.js";
import type { CodeSet } from "../load.js";
import type { CodebookInfo, ScaleSummary, StyleSet } from "../types.js";
import { conditionOf, speakerKeys, turnSpeaker } from "./common.js";

/** Quantile of sorted values with linear interpolation between order statistics (as d3.quantile, numpy's default). */
export function quantileSorted(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Box-plot summary and histogram of ratings on a 1..points scale. */
export function summariseRatings(values: number[], points: number): ScaleSummary {
  const sorted = [...values].sort((a, b) => a - b);
  const counts = Array.from({ length: points }, () => 0);
  let sum = 0;
  for (const v of sorted) {
    sum += v;
    const bin = Math.round(v) - 1;
    if (bin >= 0 && bin < points) counts[bin]++;
  }
  return {
    n: sorted.length,
    mean: sorted.length ? sum / sorted.length : NaN,
    min: sorted[0] ?? NaN,
    q1: quantileSorted(sorted, 0.25),
    median: quantileSorted(sorted, 0.5),
    q3: quantileSorted(sorted, 0.75),
    max: sorted[sorted.length - 1] ?? NaN,
    counts,
  };
}

/** Pragmatic style: per participant and per condition, the distribution of each scale's ratings. */
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
    for (const turn of session.turns) {
      const scores = set.byTurn.get(`${session.id}\u0000${turn.id}`)?.scores;
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
  const summarise = (values: Map<string, number[]>) => {
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
