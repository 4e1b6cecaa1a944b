import { checkbox, el, emptyState } from "../lib/dom.js";
import { chartCard } from "../lib/frame.js";
import { chooseCodeSet } from "../lib/context.js";
import { labelMap, sortByOrder } from "../lib/indexing.js";
import { groupedBarsChart } from "../charts/grouped-bars.js";
import { linesChart } from "../charts/lines.js";
import { MEASURE_COLOURS } from "../../src/report/palette.js";
import { lineLookAt } from "../lib/palette.js";
import type { View } from "./types.js";
import { fmtCount, fmtShare } from "../lib/format.js";

/** Bales profile: each member's percent per category grouped by area, and phase movement across thirds. */
export const balesView: View = {
  id: "bales",
  title: "Bales profile",
  render(ctx, main, empty) {
    const sets = ctx.bundle.bales;
    if (empty || sets.length === 0) return void main.append(emptyState(empty ?? "No Bales codes yet."));
    const body = el("div");
    const draw = () => {
      const { cb, set, controls } = chooseCodeSet(ctx, sets, draw);
      const info = ctx.codebook(cb)!;
      const labels = labelMap(info.categories);
      const label = (id: string) => labels.get(id) ?? id;
      const members = sortByOrder(
        set.members,
        ctx.bundle.speakers.map((s) => s.key),
        (m) => m.key,
      );
      // Small multiples on one y scale on request, so bar heights compare across panels too.
      const shared = ctx.prefs.get("shared-scales") === "true";
      let sharedMax = 0;
      for (const area of set.areas)
        for (const c of area.categories) for (const m of members) if (m.total) sharedMax = Math.max(sharedMax, (m.counts[c] ?? 0) / m.total);
      controls.push(checkbox("Same y scale in every panel", shared, (on) => (ctx.prefs.set("shared-scales", String(on)), draw()), "shared-scales"));
      const cards: HTMLElement[] = [];
      for (const area of set.areas) {
        const chart = groupedBarsChart(
          {
            title: area.label,
            groups: area.categories.map((c) => ({
              label: label(c),
              bars: members.map((m) => ({
                series: m.key,
                value: m.total ? (m.counts[c] ?? 0) / m.total : 0,
                colour: ctx.speakerColour(m.key),
                marker: ctx.speakerStyle(m.key).marker,
                tip: `${m.key} · ${label(c)}\n${fmtCount(m.counts[c] ?? 0)} of ${fmtCount(m.total)} acts (${fmtShare(m.total ? (m.counts[c] ?? 0) / m.total : null)})`,
              })),
            })),
            legend: members.map((m) => ({ label: m.key, ...ctx.speakerStyle(m.key) })),
            yLabel: "% of member's acts",
          },
          { yFormat: (v) => `${Math.round(v * 100)}%`, width: 520, height: 200, yMax: shared ? sharedMax || 1 : undefined },
        );
        cards.push(
          chartCard(`bales-${area.id}`, area.label, chart, {
            columns: ["member", ...area.categories.map(label)],
            rows: members.map((m) => [m.key, ...area.categories.map((c) => (m.total ? (m.counts[c] ?? 0) / m.total : 0))]),
          }),
        );
      }
      const phaseNames = ["early", "middle", "late"];
      const groups = set.problems.length ? set.problems : set.areas;
      const series = groups.map((g, i) => ({
        label: g.label,
        // Groups of codes are no single code: greys, told apart by dash and marker (and in greyscale).
        colour: MEASURE_COLOURS[i % MEASURE_COLOURS.length],
        ...lineLookAt(i),
        points: set.phases.map((ph, j) => [j, ph.total ? g.categories.reduce((a, c) => a + (ph.counts[c] ?? 0), 0) / ph.total : 0] as [number, number]),
      }));
      cards.push(
        chartCard(
          "bales-phases",
          "Phase movement across session thirds",
          linesChart(
            { title: "Phase movement", series, xLabel: "session third", yLabel: "% of acts", xCategories: phaseNames },
            { yFormat: (v) => `${Math.round(v * 100)}%` },
          ),
          { columns: ["group", ...phaseNames], rows: series.map((s) => [s.label, ...s.points.map((p) => p[1])]) },
        ),
      );
      body.replaceChildren(el("div", { class: "controls" }, ...controls), el("div", { class: "grid two" }, ...cards));
    };
    main.append(body);
    draw();
  },
};
