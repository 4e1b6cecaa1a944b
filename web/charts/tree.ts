import * as d3 from "d3";
import type { TopicNode } from "../../src/report/types.js";
import { createSvg, clip, textWidth } from "../lib/svg.js";

/**
 * A topic tree (root on the left). `collapsed` holds ids of nodes whose children are hidden;
 * collapsed nodes with children are drawn filled, with data-node for the view's click handler.
 */
export function treeChart(data: { title: string; root: TopicNode; colour: string }, options: { collapsed?: Set<string>; width?: number } = {}): SVGSVGElement {
  const collapsed = options.collapsed ?? new Set<string>();
  const h = d3.hierarchy(data.root, (n) => (collapsed.has(n.id) ? [] : n.children));
  const leaves = h.leaves().length;
  const rowH = 24;
  const height = Math.max(80, leaves * rowH + 30);
  const label = (d: d3.HierarchyNode<TopicNode>) =>
    clip(d.data.label, 40) + (collapsed.has(d.data.id) && d.data.children.length ? ` (+${d.data.children.length})` : "");
  // Depth steps of at most 200 px, and room after the deepest level for the widest label there.
  const depth = h.height;
  let deepest = 0;
  for (const leaf of h.leaves()) if (leaf.depth === depth) deepest = Math.max(deepest, textWidth(label(leaf)));
  const step = Math.min(200, Math.max(120, ((options.width ?? 760) - 60 - deepest) / Math.max(1, depth)));
  // Wide enough for every node's label (a shallow node's label may be the longest).
  let width = options.width ?? 760;
  h.each((d) => (width = Math.max(width, Math.ceil(30 + d.depth * step + 9 + textWidth(label(d)) + 10))));
  const svg = createSvg(width, height, data.title);
  const layout = d3.tree<TopicNode>().size([height - 30, depth * step]);
  const root = layout(h);
  const g = svg.append("g").attr("transform", "translate(30,15)");
  g.selectAll("path.link")
    .data(root.links())
    .join("path")
    .attr("class", "link")
    .attr("fill", "none")
    .attr("stroke", "#bbb")
    .attr(
      "d",
      (l) =>
        `M${l.source.y},${l.source.x}C${(l.source.y + l.target.y) / 2},${l.source.x} ${(l.source.y + l.target.y) / 2},${l.target.x} ${l.target.y},${l.target.x}`,
    );
  const node = g
    .selectAll("g.node")
    .data(root.descendants())
    .join("g")
    .attr("class", "node")
    .attr("data-node", (d) => d.data.id)
    .attr("transform", (d) => `translate(${d.y},${d.x})`)
    .attr("cursor", (d) => (d.data.children.length ? "pointer" : "default"))
    .attr(
      "data-tip",
      (d) =>
        `${d.data.label}${d.data.turns !== undefined ? `\n${d.data.turns} turns` : ""}${d.data.children.length ? `\n${d.data.children.length} subtopics (click to ${collapsed.has(d.data.id) ? "expand" : "collapse"})` : ""}`,
    );
  node
    .append("circle")
    .attr("r", 5)
    .attr("fill", (d) => (collapsed.has(d.data.id) && d.data.children.length ? data.colour : "#fff"))
    .attr("stroke", data.colour)
    .attr("stroke-width", 2);
  node.append("text").attr("x", 9).attr("dy", "0.35em").text(label);
  return svg.node()!;
}
