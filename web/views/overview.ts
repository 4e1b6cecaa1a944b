import { el } from "../lib/dom.js";
import { chartCard } from "../lib/frame.js";
import { groupedBarsChart } from "../charts/grouped-bars.js";
import { coderLabel } from "../lib/context.js";
import type { View } from "./types.js";
import { fmtCount, fmtShare } from "../lib/format.js";

const stat = (label: string, value: string | number, id: string) =>
  el("div", { class: "stat", "data-stat": id }, el("div", { class: "stat-value" }, String(value)), el("div", { class: "stat-label" }, label));

function table(columns: string[], rows: (string | number)[][], attrs: Record<string, string> = {}): HTMLTableElement {
  const t = el("table", { class: "data-table", ...attrs });
  t.append(el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", {}, c)))));
  const body = el("tbody");
  for (const r of rows) body.append(el("tr", {}, ...r.map((c) => el("td", {}, String(c)))));
  t.append(body);
  return t;
}

const duration = (s: number | null) => (s === null ? "–" : `${Math.floor(s / 60)}m ${Math.round(s % 60)}s`);

/** Overview: what is in the study and how it was made. */
export const overviewView: View = {
  id: "overview",
  title: "Overview",
  render(ctx, main) {
    const o = ctx.bundle.overview;
    const b = ctx.bundle;
    if (b.study.description) main.append(el("p", { class: "lead" }, b.study.description));
    main.append(
      el(
        "div",
        { class: "stats" },
        stat("sessions", o.sessions, "sessions"),
        stat("conditions", o.conditions.length, "conditions"),
        stat("humans", o.participants.human, "humans"),
        stat("AI agents", o.participants.ai, "ai"),
        // People played by a model are counted apart, never as humans (older bundles lack the count).
        ...(o.participants.simulated ? [stat("simulated people", o.participants.simulated, "simulated")] : []),
        stat("turns", fmtCount(o.turns), "turns"),
        stat("words", fmtCount(o.words), "words"),
        stat("codebooks", Object.keys(o.coders).length, "codebooks"),
      ),
    );
    if (b.warnings.length > 0)
      main.append(el("div", { class: "warnings" }, el("strong", {}, "Warnings"), el("ul", {}, ...b.warnings.map((w) => el("li", {}, w)))));
    if (o.sessions === 0) {
      main.append(el("div", { class: "empty" }, b.empty.who ?? "No sessions yet."));
      return;
    }
    const grid = el("div", { class: "grid" });
    main.append(grid);
    const bars = groupedBarsChart(
      {
        title: "Turns per condition",
        groups: o.conditions.map((c) => ({
          label: c.id,
          bars: [{ series: c.id, value: c.turns, colour: ctx.conditionColour(c.id), tip: `${c.id}\n${c.turns} turns in ${c.sessions} sessions` }],
        })),
        legend: [],
        yLabel: "turns",
      },
      { width: 420, height: 180 },
    );
    grid.append(
      chartCard("turns-per-condition", "Turns per condition", bars, {
        columns: ["condition", "sessions", "turns"],
        rows: o.conditions.map((c) => [c.id, c.sessions, c.turns]),
      }),
    );
    // Codes from a coder never checked against the study's people (or under the floor) are marked.
    const coded = o.coded.map((c) => [c.codebook, coderLabel(c.coder), fmtCount(c.turns), fmtShare(o.turns ? c.turns / o.turns : null), c.label]);
    grid.append(
      el(
        "section",
        { class: "card" },
        el("h2", {}, "Codes"),
        coded.length
          ? table(["codebook", "coder", "turns coded", "of all turns", "checked against people"], coded, { "data-table": "coded" })
          : el("p", { class: "empty" }, b.empty.who ?? "No codes yet."),
      ),
    );
    grid.append(
      el(
        "section",
        { class: "card" },
        el("h2", {}, "Participants"),
        table(
          ["speaker", "kind", "role", "sessions", "turns", "words"],
          b.speakers.map((s) => [s.key, s.kind, s.role ?? "", s.sessions, s.turns, s.words]),
          { "data-table": "speakers" },
        ),
      ),
    );
    grid.append(
      el(
        "section",
        { class: "card" },
        el("h2", {}, "Provenance"),
        el(
          "dl",
          { class: "provenance" },
          el("dt", {}, "built by"),
          el("dd", {}, `${b.provenance.tool} ${b.provenance.version}, ${b.provenance.createdAt}`),
          el("dt", {}, "models"),
          el("dd", {}, o.models.length ? o.models.join(", ") : "none recorded"),
          el("dt", {}, "dates"),
          el("dd", {}, o.dates.first ? `${o.dates.first} – ${o.dates.last}` : "none recorded"),
          el("dt", {}, "turn types"),
          el(
            "dd",
            {},
            Object.entries(o.turnTypes)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ") || "–",
          ),
          el("dt", {}, "analysis files"),
          el("dd", {}, o.analysisFiles.length ? o.analysisFiles.map((f) => `${f.file}${f.createdAt ? ` (${f.createdAt})` : ""}`).join(", ") : "none yet"),
        ),
      ),
    );
    // Long studies: list the first sessions only; the table stays quick at 10,000 sessions.
    const shown = b.sessions.slice(0, 500);
    main.append(
      el(
        "section",
        { class: "card wide" },
        el("h2", {}, `Sessions${b.sessions.length > shown.length ? ` (first ${shown.length} of ${b.sessions.length})` : ""}`),
        table(
          ["session", "condition", "run", "participants", "turns", "words", "duration"],
          shown.map((s) => [
            s.id + (s.incomplete ? " (incomplete)" : ""),
            s.condition,
            s.run ?? "",
            s.participants.map((p) => p.key).join(", "),
            s.turns,
            s.words,
            duration(s.duration),
          ]),
          { "data-table": "sessions" },
        ),
      ),
    );
  },
};
