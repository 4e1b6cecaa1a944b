import { dice, jaccard, labelTokens } from "./similarity.js";
import { numberTree, type TopicTree } from "./tree.js";

/**
 * Merging the trees of several runs (`--runs N`) into one.
 *
 * Two topics match when score = (label Dice + turn Jaccard) / 2 >= {@link MERGE_THRESHOLD},
 * where label Dice compares the labels' content words (lower case, singular, function words
 * dropped) and turn Jaccard the turn ids they cite. So identical labels match even without
 * shared turns (score 0.5), and so do topics citing the same turns under different names.
 * Runs are taken in order; each topic joins the best-scoring cluster that has no topic from its
 * own run yet, or starts a new one. A merged main topic is kept when it appears in a majority
 * of the successful runs (at least ceil(runs / 2)); its label is the most frequent label (ties:
 * earliest), its turns the union of its members' turns. Sub-topics are merged the same way
 * within each kept main topic and kept when they appear in at least half of its members.
 */
export const MERGE_THRESHOLD = 0.5;

interface Item<T> {
  run: number;
  topic: T;
  tokens: Set<string>;
  turns: Set<string>;
}

export function topicSimilarity(a: { label: string; turns: readonly string[] }, b: { label: string; turns: readonly string[] }): number {
  return (dice(labelTokens(a.label), labelTokens(b.label)) + jaccard(new Set(a.turns), new Set(b.turns))) / 2;
}

function cluster<T extends { label: string; turns: string[] }>(items: { run: number; topic: T }[]): Item<T>[][] {
  const clusters: Item<T>[][] = [];
  for (const { run, topic } of items) {
    const item: Item<T> = { run, topic, tokens: labelTokens(topic.label), turns: new Set(topic.turns) };
    let best = -1;
    let bestScore = MERGE_THRESHOLD;
    clusters.forEach((c, i) => {
      if (c.some((m) => m.run === run)) return;
      const score = c.reduce((s, m) => s + (dice(item.tokens, m.tokens) + jaccard(item.turns, m.turns)) / 2, 0) / c.length;
      if (score >= bestScore && (best < 0 || score > bestScore)) [best, bestScore] = [i, score];
    });
    if (best >= 0) clusters[best].push(item);
    else clusters.push([item]);
  }
  return clusters;
}

function label<T extends { label: string }>(members: Item<T>[]): string {
  const counts = new Map<string, { n: number; first: number; label: string }>();
  members.forEach((m, i) => {
    const key = m.topic.label.trim().toLowerCase();
    const c = counts.get(key) ?? { n: 0, first: i, label: m.topic.label };
    c.n++;
    counts.set(key, c);
  });
  return [...counts.values()].sort((a, b) => b.n - a.n || a.first - b.first)[0].label;
}

/** Merge successful runs' trees; `turnOrder` sorts the merged turn lists in session order. */
export function mergeTrees(trees: readonly TopicTree[], turnOrder: ReadonlyMap<string, number>): TopicTree {
  if (trees.length === 0) throw new Error("mergeTrees: no trees to merge");
  const sortTurns = (ids: Iterable<string>) => [...new Set(ids)].sort((a, b) => (turnOrder.get(a) ?? 0) - (turnOrder.get(b) ?? 0));
  const majority = Math.ceil(trees.length / 2);
  const mains = cluster(trees.flatMap((t, run) => t.mainTopics.map((topic) => ({ run, topic }))));
  const mainTopics = mains
    .filter((c) => new Set(c.map((m) => m.run)).size >= majority)
    .map((c) => {
      const subs = cluster(c.flatMap((m) => m.topic.subtopics.map((topic) => ({ run: m.run, topic }))));
      const subMajority = Math.ceil(c.length / 2);
      return {
        id: "",
        label: label(c),
        turns: sortTurns(c.flatMap((m) => m.topic.turns)),
        support: c.length,
        subtopics: subs
          .filter((s) => s.length >= subMajority)
          .map((s) => ({ id: "", label: label(s), turns: sortTurns(s.flatMap((m) => m.topic.turns)), support: s.length })),
      };
    });
  const base = trees[0];
  return numberTree({ scope: base.scope, session: base.session, participant: base.participant, mainTopics });
}
