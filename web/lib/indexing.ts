/**
 * Pure indexing helpers for the views (no DOM, so they are unit-tested in Node). Views index
 * their data once with these instead of searching a list per row (`list.filter(...)` or
 * `list.indexOf(...)` inside a map over sessions is quadratic: 33 s for the topics view at
 * 300,000 turns before issue 11).
 */

/** Items grouped by key, keys in order of first appearance, items in input order. One pass. */
export function groupBy<T, K>(items: Iterable<T>, key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * Position of each value in `order` (first occurrence wins, as `indexOf`); values not in it get
 * -1. For sorting by a reference order in O(n log n) instead of `indexOf` per comparison.
 */
export function positions<T>(order: readonly T[]): (value: T) => number {
  const at = new Map<T, number>();
  order.forEach((v, i) => {
    if (!at.has(v)) at.set(v, i);
  });
  return (value) => at.get(value) ?? -1;
}

/** A copy of `items` sorted by the position of `key(item)` in `order` (stable; unknown keys first, as with indexOf). */
export function sortByOrder<T, K>(items: readonly T[], order: readonly K[], key: (item: T) => K): T[] {
  const pos = positions(order);
  return items
    .map((item) => ({ item, p: pos(key(item)) }))
    .sort((a, b) => a.p - b.p)
    .map((x) => x.item);
}

/** Label by id (first entry per id wins, as `find` would), for codebook categories and the like. */
export function labelMap(items: readonly { id: string; label: string }[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const c of items) if (!labels.has(c.id)) labels.set(c.id, c.label);
  return labels;
}

/** One first mention of a concept (ConceptsSet["firstMentions"][number]). */
export interface FirstMentionLike {
  session: string;
  condition?: string;
  time: number;
}

/** Cumulative first mentions of one session: its condition and the sorted mention times. */
export interface FirstMentionSeries {
  session: string;
  /** Condition of the session's first listed mention ("" when it has none). */
  condition: string;
  /** Mention times, ascending; point i of the step line is (times[i], i + 1). */
  times: number[];
}

/**
 * The first-mentions chart's series: one per session, in order of the session's first mention,
 * each with its mention times sorted ascending. Indexes the mentions once (linear in mentions,
 * plus sorting each session's times), never scanning all mentions per session.
 */
export function firstMentionSeries(mentions: readonly FirstMentionLike[]): FirstMentionSeries[] {
  const out: FirstMentionSeries[] = [];
  const bySession = new Map<string, FirstMentionSeries>();
  for (const m of mentions) {
    const session = m.session;
    let s = bySession.get(session);
    if (!s) {
      s = { session, condition: m.condition ?? "", times: [] };
      bySession.set(session, s);
      out.push(s);
    }
    s.times.push(m.time);
  }
  for (const s of out) s.times.sort((a, b) => a - b);
  return out;
}
