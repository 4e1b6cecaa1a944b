import type { Codebook } from "../codebook/schema.js";
import type { CodeValue } from "./parse.js";

/**
 * Combine N sampled codings of one turn (--samples N).
 * Nominal: the majority code; a tie is broken by codebook order (the earlier category wins,
 * deterministic and independent of sample order) and reported. Multi-code: a category is kept
 * when more than half the samples gave it (or, if none reaches that, the most frequent ones).
 * Scales: the mean of the samples rounded half up to an integer (so the stored value is still
 * a point of the scale); the unrounded means are kept in provenance.
 * `agreement` is the share of samples that agree with the stored value (for scales, averaged
 * over scales).
 */
export interface Aggregate {
  value: CodeValue;
  agreement: number;
  /** Provenance details: method, tie, unrounded means. */
  details: Record<string, unknown>;
}

export function aggregateSamples(codebook: Codebook, samples: readonly CodeValue[]): Aggregate {
  if (samples.length === 0) throw new Error("aggregateSamples needs at least one sample");
  const n = samples.length;
  const rationale = samples[0].rationale;
  if (codebook.kind === "nominal") {
    const order = new Map(codebook.categories.map((c, i) => [c.id, i]));
    const counts = new Map<string, number>();
    for (const s of samples) for (const code of s.codes ?? []) counts.set(code, (counts.get(code) ?? 0) + 1);
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || (order.get(a[0]) ?? 0) - (order.get(b[0]) ?? 0));
    if (!codebook.multiple) {
      const [winner, votes] = ranked[0];
      const tied = ranked.filter(([, c]) => c === votes).map(([id]) => id);
      const details: Record<string, unknown> = { aggregation: "majority", votes: Object.fromEntries(ranked) };
      if (tied.length > 1) details.tie = { between: tied, brokenBy: "codebook order", chosen: winner };
      const chosen = samples.find((s) => s.codes?.[0] === winner);
      return { value: { codes: [winner], rationale: chosen?.rationale ?? rationale }, agreement: votes / n, details };
    }
    let kept = ranked.filter(([, c]) => c > n / 2).map(([id]) => id);
    if (kept.length === 0) kept = ranked.filter(([, c]) => c === ranked[0][1]).map(([id]) => id);
    kept.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    const key = kept.join("\u0000");
    const same = samples.filter((s) => [...(s.codes ?? [])].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)).join("\u0000") === key).length;
    return {
      value: { codes: kept, rationale },
      agreement: same / n,
      details: { aggregation: "per-category majority (> half of samples)", votes: Object.fromEntries(ranked) },
    };
  }
  const ids = [...codebook.scales.map((s) => s.id), ...codebook.counts.map((c) => c.id)];
  const scores: Record<string, number> = {};
  const means: Record<string, number> = {};
  let agreementSum = 0;
  for (const id of ids) {
    const values = samples.map((s) => s.scores?.[id]).filter((v): v is number => typeof v === "number");
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    means[id] = mean;
    scores[id] = Math.floor(mean + 0.5);
    agreementSum += values.filter((v) => v === scores[id]).length / values.length;
  }
  return {
    value: { scores, rationale },
    agreement: agreementSum / ids.length,
    details: { aggregation: "mean rounded half up", sampleMeans: means },
  };
}
