import { el, emptyState } from "../lib/dom.js";
import { chartCard } from "../lib/frame.js";
import { chooseCodeSet, coderLabel } from "../lib/context.js";
import { positions } from "../lib/indexing.js";
import { heatmapChart } from "../charts/heatmap.js";
import { groupedBarsChart } from "../charts/grouped-bars.js";
import type { View } from "./types.js";
import { fmtCount, fmtNum, fmtP, plural } from "../lib/format.js";

const pct = (v: number | null) => (v === null ? "n/a" : `${v > 0 ? "+" : ""}${Math.round(v)}%`);

/** Conditions vs control: % difference heatmap (counts in every cell) beside grouped raw counts. */
export const compareView: View = {
  id: "compare",
  title: "Conditions vs control",
  render(ctx, main, empty) {
    const sets = ctx.bundle.compare;
    if (empty || sets.length === 0) return void main.append(emptyState(empty ?? "Nothing to compare yet."));
    const body = el("div");
    const draw = () => {
      const { set, controls } = chooseCodeSet(ctx, sets, draw);
      // Sessions and runs are different counts (a run can hold several sessions): say both.
      const holds = (condition: string) => `${plural(set.sessions[condition] ?? 0, "session")} in ${plural(set.runs[condition] ?? 0, "run")}`;
      const notes: string[] = [`Control: ${set.control} (${holds(set.control)}).`];
      if (set.design) notes.push(`Design: ${set.design}.`);
      if (set.normalised) notes.push("Counts divided by the number of runs per condition before comparing.");
      const collapsed = Object.entries(set.collapse);
      if (collapsed.length) notes.push(`Collapsed: ${collapsed.map(([k, v]) => `${k} = ${v.join(" + ")}`).join("; ")}.`);
      if (set.dropped.length) notes.push(`Dropped: ${set.dropped.join(", ")}.`);
      notes.push('Cell: % difference from control, then "count vs control count". n/a = the control has none.');
      // Counts of acts are nested in sessions: the colours are no test (the report says so too).
      notes.push("These differences are descriptive; the tests are per session, below.");
      const rows = set.conditions;
      const cols = set.codes.map((c) => c.label);
      // Row and column of each cell, indexed once (first match wins, as indexOf/find did).
      const rowOf = positions(rows);
      const colOf = positions(set.codes.map((k) => k.id));
      const codeLabel = (id: string) => set.codes[colOf(id)]?.label;
      // The colour scale saturates at ±100%: a +600% cell is as red as +100%, its label says how much.
      const maxAbs = 100;
      const heat = heatmapChart(
        {
          title: `% difference from ${set.control}`,
          rows,
          columns: cols,
          cells: set.cells.map((c) => ({
            row: rowOf(c.condition),
            col: colOf(c.code),
            value: c.pctDiff,
            lines: [pct(c.pctDiff), `${c.count} vs ${c.controlCount}`],
            tip: `${c.condition} · ${codeLabel(c.code)}\n${pct(c.pctDiff)} vs ${set.control}\n${plural(c.count, "turn")} (${holds(c.condition)}) vs ${fmtCount(c.controlCount)} (${holds(set.control)})`,
          })),
          scaleLabel: `% difference from ${set.control} (clamped at ±${maxAbs}%)`,
        },
        { mode: "diverging", domain: maxAbs, tickFormat: (v) => `${v > 0 ? "+" : ""}${v}%` },
      );
      const all = [set.control, ...set.conditions];
      const bars = groupedBarsChart({
        title: "Raw counts per code and condition",
        groups: set.codes.map((c) => ({
          label: c.label,
          bars: all.map((cond) => ({
            series: cond,
            value: set.counts[cond][c.id],
            colour: ctx.conditionColour(cond),
            tip: `${c.label} · ${cond}\n${set.counts[cond][c.id]} turns`,
          })),
        })),
        legend: all.map((c) => ({ label: c === set.control ? `${c} (control)` : c, colour: ctx.conditionColour(c) })),
        yLabel: "turns",
      });
      // Tests that could not run (too few units) have no p; the CSV/JSON from colloquy compare says why.
      const ran = set.tests.filter((t) => t.p !== undefined);
      // Tests are in analysis/compare-<codebook>.json for the coder `colloquy compare` was run with
      // only: another coder's view says so instead of dropping the section without a word.
      const tested = sets.find((s) => s.codebook === set.codebook && s.source === "analysis");
      // The command names the study (as the empty views' hints do): `colloquy compare` without one stops.
      const study = /^[\w./-]+$/.test(ctx.bundle.study.name) ? ctx.bundle.study.name : JSON.stringify(ctx.bundle.study.name);
      const untested =
        set.source === "analysis"
          ? null
          : el(
              "section",
              { class: "card", "data-tests": "none" },
              el("h2", {}, "Tests"),
              el(
                "p",
                { class: "note" },
                `No tests of the codes of ${coderLabel(set.coder)}: ${
                  tested
                    ? `analysis/compare-${set.codebook}.json tests those of ${coderLabel(tested.coder)}`
                    : `analysis/compare-${set.codebook}.json has none to show (it is not made yet, or names no control condition)`
                }. To test them, run `,
                // A command as typed: the study's folder name verbatim.
                el("code", {}, `colloquy compare ${study} --codebook ${set.codebook} --coder ${set.coder}`),
                tested ? " (it replaces that file)." : ".",
              ),
            );
      const tests = set.tests.length
        ? el(
            "section",
            { class: "card" },
            el("h2", {}, `Tests (from colloquy compare): ${ran.length} of ${set.tests.length} could run`),
            el(
              "table",
              { class: "data-table" },
              el(
                "thead",
                {},
                el("tr", {}, ...["comparison", "test", "n", "statistic", "p", "p (Holm)", "APA (with effect size)", "caveat"].map((h) => el("th", {}, h))),
              ),
              el(
                "tbody",
                {},
                ...ran.map((t) =>
                  el(
                    "tr",
                    {},
                    ...[t.label, t.test, fmtCount(t.n), fmtNum(t.statistic), fmtP(t.p), fmtP(t.pAdjusted), t.apa ?? "–", t.note ?? ""].map((v) =>
                      el("td", {}, String(v)),
                    ),
                  ),
                ),
              ),
            ),
          )
        : null;
      body.replaceChildren(
        el("div", { class: "controls" }, ...controls),
        el("p", { class: "note" }, notes.join(" ")),
        el(
          "div",
          { class: "grid" },
          chartCard("compare-heatmap", `% difference from control (${set.control})`, heat, {
            columns: ["condition", "code", "count", "control count", "% difference"],
            rows: set.cells.map((c) => [
              c.condition,
              codeLabel(c.code) ?? c.code,
              c.count,
              c.controlCount,
              c.pctDiff === null ? null : Math.round(c.pctDiff * 10) / 10,
            ]),
          }),
          chartCard("compare-counts", "Raw counts", bars, {
            columns: ["code", ...all],
            rows: set.codes.map((c) => [c.label, ...all.map((cond) => set.counts[cond][c.id])]),
          }),
        ),
        ...(tests ? [tests] : untested ? [untested] : []),
      );
    };
    main.append(body);
    draw();
  },
};
