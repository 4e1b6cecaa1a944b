import { el, emptyState, select } from "../lib/dom.js";
import { chartCard } from "../lib/frame.js";
import { chooseCodeSet, pref } from "../lib/context.js";
import { sortByOrder } from "../lib/indexing.js";
import { donutChart } from "../charts/donut.js";
import { stackedBarsChart } from "../charts/stacked-bars.js";
import type { View } from "./types.js";
import { fmtShare } from "../lib/format.js";
import { addToCount, ownEntry } from "../../src/util/named-entries.js";

/** Who does what: a donut of codes per speaker and 100% bars per condition, for one codebook and coder. */
export const whoView: View = {
  id: "who",
  title: "Who does what",
  render(ctx, main, empty) {
    const dists = ctx.bundle.distributions;
    if (empty || dists.length === 0) return void main.append(emptyState(empty ?? "No nominal codes yet."));
    const body = el("div");
    const draw = () => {
      const { cb, set: dist, controls: codeSetControls } = chooseCodeSet(ctx, dists, draw);
      const info = ctx.codebook(cb)!;
      const colour = ctx.codeColour(cb);
      const by = pref(ctx, "who.by", ["speaker", "role"]);
      const controls = el(
        "div",
        { class: "controls" },
        select(
          "Group by",
          [
            { value: "speaker", label: "speaker" },
            { value: "role", label: "role" },
          ],
          by,
          (v) => (ctx.prefs.set("who.by", v), draw()),
          "by",
        ),
        ...codeSetControls,
      );
      const donuts = el("div", { class: "donuts" });
      const sorted = sortByOrder(
        dist.bySpeaker,
        ctx.bundle.speakers.map((s) => s.key),
        (s) => s.key,
      );
      // By role: members with the same role (or, without one, the same kind) are summed.
      const speakers =
        by === "speaker"
          ? sorted
          : [
              ...sorted
                .reduce((acc, s) => {
                  const role = s.role ?? s.kind;
                  const g = acc.get(role) ?? { key: role, kind: s.kind, role: undefined as string | undefined, total: 0, counts: {} as Record<string, number> };
                  g.total += s.total;
                  for (const [code, n] of Object.entries(s.counts)) addToCount(g.counts, code, n);
                  acc.set(role, g);
                  return acc;
                }, new Map<string, (typeof sorted)[number]>())
                .values(),
            ];
      speakers.forEach((s) => {
        const slices = info.categories.map((c) => ({ key: c.id, label: c.label, value: ownEntry(s.counts, c.id) ?? 0, colour: colour(c.id) }));
        const svg = donutChart({ title: `${s.key}${s.role ? ` (${s.role})` : ""}`, slices }, { size: 230, legend: true });
        donuts.append(
          chartCard(`donut-${s.key}`, `${s.key} · ${s.kind}`, svg, {
            columns: ["code", "turns", "percent"],
            rows: slices.map((sl) => [sl.label, sl.value, fmtShare(s.total ? sl.value / s.total : null)]),
          }),
        );
      });
      const rows = sortByOrder(dist.byCondition, ctx.bundle.conditions, (c) => c.condition).map((c) => ({
        label: c.condition,
        total: c.total,
        segments: info.categories.map((k) => ({ key: k.id, label: k.label, value: ownEntry(c.counts, k.id) ?? 0, colour: colour(k.id) })),
      }));
      const stacked = stackedBarsChart({ title: "Codes per condition", rows, legend: info.categories.map((c) => ({ label: c.label, colour: colour(c.id) })) });
      body.replaceChildren(
        controls,
        el("h2", {}, by === "role" ? "Per role" : "Per speaker"),
        donuts,
        chartCard("codes-per-condition", "Codes per condition (share of coded turns)", stacked, {
          columns: ["condition", ...info.categories.map((c) => c.label), "total"],
          rows: rows.map((r) => [r.label, ...r.segments.map((s) => s.value), r.total]),
        }),
      );
    };
    main.append(body);
    draw();
  },
};
