import { el, emptyState, select } from "../lib/dom.js";
import { lineLookAt } from "../lib/palette.js";
import { chartCard } from "../lib/frame.js";
import { pref } from "../lib/context.js";
import { firstMentionSeries } from "../lib/indexing.js";
import { treeChart } from "../charts/tree.js";
import { MAX_OPEN_NODES, nodesAtDepth, openLevels } from "../lib/tree-levels.js";
import { groupedBarsChart } from "../charts/grouped-bars.js";
import { linesChart } from "../charts/lines.js";
import type { View } from "./types.js";
import type { MeasureTestLine } from "../../src/report/types.js";
import { fmtCount, fmtNum } from "../lib/format.js";

/** Every comparison's test, in the report's words ("asks_opinion vs control: ..."), under the test's name. */
const testLine = (tests: readonly MeasureTestLine[] = []) =>
  tests.length ? `${[...new Set(tests.map((t) => t.test))].join("; ")}: ${tests.map((t) => `${t.comparison}: ${t.apa}`).join("; ")}` : "";

/** Topics and concepts: collapsible topic trees, branching ratio and concept rates by condition, first mentions. */
export const topicsView: View = {
  id: "topics",
  title: "Topics & concepts",
  render(ctx, main, empty) {
    const topics = ctx.bundle.topics;
    const concepts = ctx.bundle.concepts;
    if (!topics && !concepts) return void main.append(emptyState(empty ?? "No topics or concepts yet."));
    const body = el("div");
    const collapsed = new Set<string>();
    // Trees opened so far, with the levels a large tree opened with (0: all; see openLevels).
    const opened = new Map<string, number>();
    const draw = () => {
      const sections: (HTMLElement | null)[] = [];
      if (topics && topics.trees.length) {
        const ids = topics.trees.map((t) => `${t.scope}:${t.id}`);
        const pick = pref(ctx, "topics.tree", ids);
        const tree = topics.trees[ids.indexOf(pick)];
        if (!opened.has(pick)) {
          opened.set(pick, 0);
          const levels = openLevels(tree.root, MAX_OPEN_NODES);
          const hidden = nodesAtDepth(tree.root, levels);
          for (const id of hidden) collapsed.add(id);
          if (hidden.length) opened.set(pick, levels);
        }
        const startLevels = opened.get(pick) ?? 0;
        const note = startLevels
          ? `large tree: levels below ${startLevels} start collapsed; click a node to expand or collapse it`
          : "click a node to collapse or expand";
        const chart = treeChart({ title: `Topics · ${tree.id}`, root: tree.root, colour: ctx.conditionColour(tree.condition ?? "") }, { collapsed });
        chart.addEventListener("click", (event) => {
          const id = (event.target as Element).closest("g.node")?.getAttribute("data-node");
          if (!id) return;
          if (collapsed.has(id)) collapsed.delete(id);
          else collapsed.add(id);
          draw();
        });
        const flat: (string | number)[][] = [];
        const walk = (n: typeof tree.root, depth: number) => {
          flat.push([depth, n.label, n.children.length]);
          n.children.forEach((c) => walk(c, depth + 1));
        };
        walk(tree.root, 0);
        const card = chartCard("topic-tree", `Topic tree (${tree.scope} ${tree.id}); ${note}`, chart, { columns: ["depth", "topic", "subtopics"], rows: flat });
        sections.push(
          el(
            "div",
            { class: "controls" },
            select(
              "Tree",
              ids.map((i) => ({ value: i, label: i })),
              pick,
              (v) => (ctx.prefs.set("topics.tree", v), draw()),
              "tree",
            ),
          ),
          card,
        );
      }
      const grid = el("div", { class: "grid two" });
      if (topics && topics.branching.length) {
        grid.append(
          chartCard(
            "branching",
            "Branching ratio by condition (mean, 95% CI)",
            groupedBarsChart({
              title: "Branching ratio",
              groups: topics.branching.map((b) => ({
                label: b.condition,
                bars: [
                  {
                    series: b.condition,
                    value: b.mean,
                    colour: ctx.conditionColour(b.condition),
                    err: b.ci,
                    tip: `${b.condition}\nmean ${fmtNum(b.mean)}${b.ci ? ` [${fmtNum(b.ci[0])}, ${fmtNum(b.ci[1])}]` : ""} · n = ${fmtCount(b.n)}`,
                  },
                ],
              })),
              legend: topics.branching.map((b) => ({ label: b.condition, colour: ctx.conditionColour(b.condition) })),
              yLabel: "branching ratio",
            }),
            {
              columns: ["condition", "mean", "sd", "CI low", "CI high", "n"],
              rows: topics.branching.map((b) => [b.condition, b.mean, b.sd ?? null, b.ci?.[0] ?? null, b.ci?.[1] ?? null, b.n]),
            },
            testLine(topics.tests),
          ),
        );
      }
      if (concepts && concepts.rates.length) {
        grid.append(
          chartCard(
            "concept-rates",
            "Concept production rate by condition (per minute)",
            groupedBarsChart({
              title: "Concept rate",
              groups: concepts.rates.map((r) => ({
                label: r.condition,
                bars: [
                  {
                    series: r.condition,
                    value: r.mean,
                    colour: ctx.conditionColour(r.condition),
                    err: r.sd !== undefined ? [Math.max(0, r.mean - r.sd), r.mean + r.sd] : undefined,
                    tip: `${r.condition}\n${fmtNum(r.mean)} concepts/min${r.sd !== undefined ? ` ± ${fmtNum(r.sd)} SD` : ""} · n = ${fmtCount(r.n)}`,
                  },
                ],
              })),
              legend: concepts.rates.map((r) => ({ label: r.condition, colour: ctx.conditionColour(r.condition) })),
              yLabel: "concepts per minute",
            }),
            { columns: ["condition", "mean", "sd", "n"], rows: concepts.rates.map((r) => [r.condition, r.mean, r.sd ?? null, r.n]) },
            testLine(concepts.tests),
          ),
        );
      }
      if (concepts && concepts.firstMentions.length) {
        // Indexed by session once: scanning all mentions per session was quadratic (issue 11).
        // The colour is the session's condition; sessions of one condition differ in dash and marker.
        const nth = new Map<string, number>();
        const series = firstMentionSeries(concepts.firstMentions).map((s) => {
          const i = nth.get(s.condition) ?? 0;
          nth.set(s.condition, i + 1);
          return {
            label: `${s.session} · ${s.condition}`,
            colour: ctx.conditionColour(s.condition),
            ...lineLookAt(i),
            points: s.times.map((t, j) => [t, j + 1] as [number, number]),
          };
        });
        grid.append(
          chartCard(
            "first-mentions",
            "First mentions of concepts over time (cumulative)",
            linesChart({ title: "First mentions", series, xLabel: "seconds from session start", yLabel: "distinct concepts", curve: "step" }),
            () => ({ columns: ["session", "concept", "time"], rows: concepts.firstMentions.map((m) => [m.session, m.concept, m.time]) }),
          ),
        );
      }
      sections.push(grid);
      body.replaceChildren(...sections.filter((s): s is HTMLElement => s !== null));
    };
    main.append(body);
    draw();
  },
};
