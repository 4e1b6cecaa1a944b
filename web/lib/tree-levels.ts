// How much of a large tree to show when it is first opened (the topics view).
/** Nodes shown at once when a tree is first opened: a tree of thousands of nodes is slow to draw and unreadable. */
export const MAX_OPEN_NODES = 200;

type Node = { id: string; children: Node[] };

/** The deepest level d such that the nodes at depth <= d number at most `max` (at least 1). */
export function openLevels(root: Node, max: number): number {
  let level: Node[] = [root];
  let shown = 1;
  let depth = 0;
  for (;;) {
    const next = level.flatMap((n) => n.children);
    if (next.length === 0 || shown + next.length > max) return Math.max(1, depth);
    shown += next.length;
    level = next;
    depth++;
  }
}

/** Ids of the nodes at one depth that have children (collapsing them hides everything deeper). */
export function nodesAtDepth(root: Node, depth: number): string[] {
  let level: Node[] = [root];
  for (let d = 0; d < depth; d++) level = level.flatMap((n) => n.children);
  return level.filter((n) => n.children.length > 0).map((n) => n.id);
}
