import { z } from "zod";

/**
 * Topic trees: main topics, each with sub-topics, each citing the turn ids it draws on.
 *
 * Branching ratio = number of sub-topics / number of main topics: 1 sub-topic per main topic is
 * linear development, more is exploratory. A tree with no main topics has no ratio (null, left
 * out of means and counted as missing): there is nothing that branches, and 0 would wrongly
 * read as "perfectly linear".
 */
export const subtopicSchema = z.object({
  id: z.string(),
  label: z.string(),
  turns: z.array(z.string()),
  /** Merged trees only: in how many runs (main topics) / members (sub-topics) it was found. */
  support: z.number().int().positive().optional(),
});

export const mainTopicSchema = z.object({
  id: z.string(),
  label: z.string(),
  turns: z.array(z.string()),
  subtopics: z.array(subtopicSchema),
  /** Merged trees only: in how many runs it was found. */
  support: z.number().int().positive().optional(),
});

export const topicTreeSchema = z.object({
  /** "session": the whole conversation's topics; "participant": one participant's contributions. */
  scope: z.enum(["session", "participant"]),
  session: z.string(),
  /** Participant id, for participant scope. */
  participant: z.string().optional(),
  mainTopics: z.array(mainTopicSchema),
});

export type Subtopic = z.infer<typeof subtopicSchema>;
export type MainTopic = z.infer<typeof mainTopicSchema>;
export type TopicTree = z.infer<typeof topicTreeSchema>;

/** Sub-topics / main topics; null when the tree has no main topics. */
export function branchingRatio(tree: Pick<TopicTree, "mainTopics">): number | null {
  const main = tree.mainTopics.length;
  if (main === 0) return null;
  return tree.mainTopics.reduce((n, t) => n + t.subtopics.length, 0) / main;
}

/** Counts of a tree. */
export function treeCounts(tree: Pick<TopicTree, "mainTopics">): { mainTopics: number; subtopics: number; branchingRatio: number | null } {
  return {
    mainTopics: tree.mainTopics.length,
    subtopics: tree.mainTopics.reduce((n, t) => n + t.subtopics.length, 0),
    branchingRatio: branchingRatio(tree),
  };
}

/**
 * Stable topic ids: "m1", "m1.s2" in session scope; prefixed with the participant id in
 * participant scope ("alice:m1.s2"), so a sub-topic id is unique within its session (the
 * review code records use it as their `turn`).
 */
export function topicId(participant: string | undefined, main: number, sub?: number): string {
  const local = sub === undefined ? `m${main + 1}` : `m${main + 1}.s${sub + 1}`;
  return participant === undefined ? local : `${participant}:${local}`;
}

/** Re-number a tree's ids in order (after building or merging). */
export function numberTree(tree: TopicTree): TopicTree {
  return {
    ...tree,
    mainTopics: tree.mainTopics.map((m, i) => ({
      ...m,
      id: topicId(tree.participant, i),
      subtopics: m.subtopics.map((s, j) => ({ ...s, id: topicId(tree.participant, i, j) })),
    })),
  };
}
