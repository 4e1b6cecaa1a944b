import { el, emptyState } from "../lib/dom.js";
import { chartCard } from "../lib/frame.js";
import { chooseCodeSet, coderLabel } from "../lib/context.js";
import { setTipProvider } from "../lib/tooltip.js";
import { sortByOrder } from "../lib/indexing.js";
import { cellIndexAt, sequenceCellText, sequenceChart, type SequenceData } from "../charts/sequence.js";
import type { View } from "./types.js";

/** Interaction sequences: one row per session (grouped by condition), one cell per turn coloured by code. */
export const sequencesView: View = {
  id: "sequences",
  title: "Interaction sequences",
  render(ctx, main, empty) {
    const sets = ctx.bundle.sequences;
    if (empty || sets.length === 0) return void main.append(emptyState(empty ?? "No codes yet."));
    const body = el("div");
    // What the chart last drew, for the hover text of the cell under the pointer.
    let drawn: { rows: Map<string, SequenceData["rows"][number]>; categories: SequenceData["categories"] } | undefined;
    const draw = () => {
      const { cb, coder, set, controls } = chooseCodeSet(ctx, sets, draw);
      const info = ctx.codebook(cb)!;
      const colour = ctx.codeColour(cb);
      const sessions = ctx.bundle.sequenceSessions;
      const rows = sortByOrder(
        sessions.map((s, i) => ({
          id: s.id,
          group: s.condition,
          cells: set.cells[i],
          binSize: s.binSize,
          speakers: s.speakers.map((k) => ctx.bundle.speakers[k]?.key ?? "?"),
        })),
        ctx.bundle.conditions,
        (r) => r.group,
      );
      const categories = info.categories.map((c) => ({ label: c.label, colour: colour(c.id) }));
      drawn = { rows: new Map(rows.map((r) => [r.id, r])), categories };
      const svg = sequenceChart({
        title: `Sequences · ${info.title} · ${coderLabel(coder)}`,
        rows,
        categories,
        speakerColour: ctx.speakerColour,
        legend: [
          ...info.categories.map((c) => ({ label: c.label, colour: colour(c.id) })),
          { label: "not coded", colour: "#eee" },
          // The strip under each cell: who spoke (speakers that appear in these rows, in study order).
          ...sortByOrder(
            [...new Set(rows.flatMap((r) => r.speakers))],
            ctx.bundle.speakers.map((s) => s.key),
            (k) => k,
          ).map((k) => ({ label: `speaker: ${k}`, ...ctx.speakerStyle(k) })),
        ],
      });
      const binned = sessions.some((s) => s.binSize > 1);
      body.replaceChildren(
        el("div", { class: "controls" }, ...controls),
        ...(binned ? [el("p", { class: "note" }, "Long sessions are binned: each cell shows the most frequent code of its turns.")] : []),
        chartCard("sequences", "One row per session, one cell per turn (code), with a strip in the speaker's colour under it", svg, () => ({
          columns: ["session", "condition", "codes in order"],
          rows: rows.map((r) => [r.id, r.group, r.cells.map((c) => (c < 0 ? "-" : info.categories[c].id)).join(" ")]),
        })),
      );
    };
    // Hover shows the cell's code and its turn's text: loaded with the session's chunk on first
    // hover, then cached.
    setTipProvider((target, event) => {
      if (!target.classList.contains("seq-cells") || !drawn) return null;
      const session = target.getAttribute("data-session")!;
      const row = drawn.rows.get(session);
      const index = cellIndexAt(target, event.clientX);
      if (!row || index < 0) return null;
      const base = sequenceCellText(row, index, drawn.categories);
      const chunk = ctx.chunkIfLoaded(session);
      if (!chunk) {
        void ctx.loadChunk(session).catch(() => undefined);
        return `${base}\n(loading text…)`;
      }
      const turn = chunk.turns[index * row.binSize];
      return turn ? `${base}\n“${turn.text.length > 280 ? turn.text.slice(0, 279) + "…" : turn.text}”` : base;
    });
    main.append(body);
    draw();
  },
};
