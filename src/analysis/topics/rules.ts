import type { Turn } from "../../transcript/schema.js";
import type { ConceptExtractor } from "../concepts/extract.js";
import { jaccard, dice } from "./similarity.js";
import { numberTree, type MainTopic, type TopicTree } from "./tree.js";

/**
 * The offline, deterministic topic baseline (`--coder rules`). It is a baseline, not a model of
 * meaning: it only sees which nouns are said together.
 *
 * 1. Noun concepts of each eligible turn (the concepts extractor: compromise noun compounds,
 *    lower case, singular).
 * 2. Concepts sharing a head noun form a group ("community garden", "garden" -> garden).
 * 3. Groups are merged agglomeratively (average linkage) while the best pair's similarity is at
 *    least {@link RULES_THRESHOLD}; similarity = max(Jaccard of the turns they occur in,
 *    Dice of their word sets), i.e. co-occurrence in turns or shared words.
 * 4. Each final group is a main topic labelled by its most mentioned concept (ties: first
 *    mentioned); its other concepts are its sub-topics. Topics are ordered by first mention.
 */
export const RULES_THRESHOLD = 0.5;

interface ConceptStats {
  concept: string;
  turns: Set<string>;
  mentions: number;
  first: number;
}

interface Group {
  concepts: ConceptStats[];
  turns: Set<string>;
  tokens: Set<string>;
  /** Head groups merged into this group (average-linkage weights). */
  size: number;
  first: number;
}

/** Build a topic tree from the eligible turns (in session order). */
export function rulesTopicTree(
  base: Pick<TopicTree, "scope" | "session" | "participant">,
  turns: readonly Turn[],
  extractor: ConceptExtractor,
  threshold = RULES_THRESHOLD,
): TopicTree {
  const stats = new Map<string, ConceptStats>();
  let order = 0;
  for (const turn of turns) {
    for (const concept of extractor.extract(turn.text)) {
      let s = stats.get(concept);
      if (s === undefined) {
        s = { concept, turns: new Set(), mentions: 0, first: order++ };
        stats.set(concept, s);
      }
      s.turns.add(turn.id);
      s.mentions++;
    }
  }
  // Head-noun groups, in order of first mention.
  const heads = new Map<string, Group>();
  for (const s of [...stats.values()].sort((a, b) => a.first - b.first)) {
    const words = s.concept.split(" ");
    const head = words[words.length - 1];
    let g = heads.get(head);
    if (g === undefined) {
      g = { concepts: [], turns: new Set(), tokens: new Set(), size: 1, first: s.first };
      heads.set(head, g);
    }
    g.concepts.push(s);
    for (const t of s.turns) g.turns.add(t);
    for (const w of words) g.tokens.add(w);
  }
  const groups: (Group | null)[] = [...heads.values()];
  const n = groups.length;
  const sim: number[][] = groups.map((a) => groups.map((b) => Math.max(jaccard(a!.turns, b!.turns), dice(a!.tokens, b!.tokens))));
  for (;;) {
    let best = -1;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < n; i++) {
      if (groups[i] === null) continue;
      for (let j = i + 1; j < n; j++) {
        if (groups[j] !== null && sim[i][j] > best) [best, bi, bj] = [sim[i][j], i, j];
      }
    }
    if (bi < 0 || best < threshold) break;
    const a = groups[bi]!;
    const b = groups[bj]!;
    // Lance-Williams update for average linkage.
    for (let k = 0; k < n; k++) {
      if (k === bi || k === bj || groups[k] === null) continue;
      const s = (a.size * sim[bi][k] + b.size * sim[bj][k]) / (a.size + b.size);
      sim[bi][k] = sim[k][bi] = s;
    }
    groups[bi] = {
      concepts: [...a.concepts, ...b.concepts].sort((x, y) => x.first - y.first),
      turns: new Set([...a.turns, ...b.turns]),
      tokens: new Set([...a.tokens, ...b.tokens]),
      size: a.size + b.size,
      first: Math.min(a.first, b.first),
    };
    groups[bj] = null;
  }
  const turnOrder = new Map(turns.map((t, i) => [t.id, i]));
  const sortTurns = (ids: Iterable<string>) => [...ids].sort((x, y) => turnOrder.get(x)! - turnOrder.get(y)!);
  const mainTopics: MainTopic[] = groups
    .filter((g): g is Group => g !== null)
    .sort((a, b) => a.first - b.first)
    .map((g) => {
      const label = [...g.concepts].sort((x, y) => y.mentions - x.mentions || x.first - y.first)[0];
      return {
        id: "",
        label: label.concept,
        turns: sortTurns(g.turns),
        subtopics: g.concepts.filter((c) => c !== label).map((c) => ({ id: "", label: c.concept, turns: sortTurns(c.turns) })),
      };
    });
  return numberTree({ ...base, mainTopics });
}
