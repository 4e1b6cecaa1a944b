import { summariseRatings } from "../../analysis/shared/scales.js";
import type { CodeSet } from "../load.js";
import type { CodebookInfo, ScaleSummary, StyleSet } from "../types.js";

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
