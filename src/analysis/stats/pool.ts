/**
 * Sum per-session count vectors (parts[i] of a session of conditions[i], each `size` long) per
 * condition, conditions in sorted order, and over the whole study: how the Bales phases and
 * transitions and the segment distributions are recombined from their per-session parts.
 */
export function poolCounts(
  conditions: readonly string[],
  parts: readonly ArrayLike<number>[],
  size: number,
): { byCondition: [condition: string, counts: Float64Array][]; overall: Float64Array } {
  const byCondition = new Map<string, Float64Array>();
  const overall = new Float64Array(size);
  parts.forEach((part, s) => {
    let c = byCondition.get(conditions[s]);
    if (!c) byCondition.set(conditions[s], (c = new Float64Array(size)));
    for (let i = 0; i < size; i++) {
      c[i] += part[i];
      overall[i] += part[i];
    }
  });
  return { byCondition: [...byCondition].sort(([a], [b]) => a.localeCompare(b)), overall };
}
