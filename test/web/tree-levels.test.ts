import { describe, expect, it } from "vitest";
import { nodesAtDepth, openLevels } from "../../web/lib/tree-levels.js";

type Node = { id: string; children: Node[] };

/** A complete tree with `fanout` children per node, `depth` levels below the root. */
function tree(fanout: number, depth: number, id = "r"): Node {
  return { id, children: depth === 0 ? [] : Array.from({ length: fanout }, (_, i) => tree(fanout, depth - 1, `${id}.${i}`)) };
}

describe("which levels of a large topic tree open first", () => {
  it("a small tree opens whole: nothing to collapse at its deepest level", () => {
    const small = tree(3, 2); // 1 + 3 + 9 = 13 nodes
    const levels = openLevels(small, 200);
    expect(levels).toBe(2);
    expect(nodesAtDepth(small, levels)).toEqual([]);
  });

  it("a large tree opens to the deepest level that keeps the shown nodes within the bound", () => {
    const big = tree(5, 5); // 1 + 5 + 25 + 125 + 625 + 3125 nodes
    const levels = openLevels(big, 200); // 1 + 5 + 25 + 125 = 156 <= 200 < 156 + 625
    expect(levels).toBe(3);
    const collapsed = nodesAtDepth(big, levels);
    expect(collapsed).toHaveLength(125);
    expect(collapsed).toContain("r.4.4.4");
  });

  it("opens at least the root's children, however many", () => {
    const wide = tree(300, 2);
    expect(openLevels(wide, 200)).toBe(1);
    expect(nodesAtDepth(wide, 1)).toHaveLength(300);
  });
});
