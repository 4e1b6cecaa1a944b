import { el, emptyState, select } from "../lib/dom.js";
import { chartCard } from "../lib/frame.js";
import { coderLabel, coderStatus, pref } from "../lib/context.js";
import { sortByOrder } from "../lib/indexing.js";
import { boxplotChart } from "../charts/boxplot.js";
import { radarChart } from "../charts/radar.js";
import type { View } from "./types.js";

/** Pragmatic style: rating distributions per scale (box + strip) and a radar of the means. */
export const styleView: View = {
  id: "style",
  title: "Pragmatic style",
  render(ctx, main, empty) {
    const sets = ctx.bundle.styles;
    if (empty || sets.length === 0) return void main.append(emptyState(empty ?? "No scale codes yet."));
    const body = el("div");
    const draw = () => {
      const codebooks = [...new Set(sets.map((s) => s.codebook))];
      const cb = pref(ctx, "style.codebook", codebooks, "pragmatic-style");
      const coders = sets.filter((s) => s.codebook === cb).map((s) => s.coder);
      const coder = pref(ctx, "style.coder", coders, coders.find((c) => c.startsWith("llm")) ?? "rules");
      const by = pref(ctx, "style.by", ["speaker", "condition"]);
      const set = sets.find((s) => s.codebook === cb && s.coder === coder)!;
      const groups =
        by === "speaker"
          ? set.bySpeaker.map((s) => ({ label: s.key, ...ctx.speakerStyle(s.key), summaries: s.summaries }))
          : sortByOrder(set.byCondition, ctx.bundle.conditions, (c) => c.condition).map((c) => ({
              label: c.condition,
              colour: ctx.conditionColour(c.condition),
              dash: undefined,
              marker: undefined,
              summaries: c.summaries,
            }));
      const cards = set.scales.map((scale) => {
        const rows = groups.filter((g) => g.summaries[scale.id]).map((g) => ({ label: g.label, colour: g.colour, summary: g.summaries[scale.id] }));
        return chartCard(`style-${scale.id}`, `${scale.label} (1–${scale.points})`, boxplotChart({ title: scale.label, points: scale.points, groups: rows }), {
          columns: [by, "n", "mean", "min", "Q1", "median", "Q3", "max"],
          rows: rows.map((r) => [r.label, r.summary.n, r.summary.mean, r.summary.min, r.summary.q1, r.summary.median, r.summary.q3, r.summary.max]),
        });
      });
      const radar = radarChart({
        title: `Mean ratings by ${by}`,
        axes: set.scales.map((s) => ({ id: s.id, label: s.label, min: 1, max: s.points })),
        series: groups.map((g) => ({
          label: g.label,
          colour: g.colour,
          dash: g.dash,
          marker: g.marker,
          values: Object.fromEntries(set.scales.map((s) => [s.id, g.summaries[s.id]?.mean])),
        })),
      });
      body.replaceChildren(
        el(
          "div",
          { class: "controls" },
          select(
            "Codebook",
            codebooks.map((c) => ({ value: c, label: ctx.codebook(c)?.title ?? c })),
            cb,
            (v) => (ctx.prefs.set("style.codebook", v), draw()),
            "codebook",
          ),
          select(
            "Coder",
            coders.map((c) => ({ value: c, label: coderLabel(c) })),
            coder,
            (v) => (ctx.prefs.set("style.coder", v), draw()),
            "coder",
          ),
          coderStatus(ctx, cb, coder),
          select(
            "Group by",
            [
              { value: "speaker", label: "participant" },
              { value: "condition", label: "condition" },
            ],
            by,
            (v) => (ctx.prefs.set("style.by", v), draw()),
            "by",
          ),
        ),
        el(
          "div",
          { class: "grid two" },
          chartCard("style-radar", `Mean rating per scale by ${by}`, radar, {
            columns: [by, ...set.scales.map((s) => s.label)],
            rows: groups.map((g) => [g.label, ...set.scales.map((s) => g.summaries[s.id]?.mean ?? null)]),
          }),
          ...cards,
        ),
      );
    };
    main.append(body);
    draw();
  },
};
