import { el, emptyState, select } from "../lib/dom.js";
import { chartCard } from "../lib/frame.js";
import { coderLabel, pref, type ViewContext } from "../lib/context.js";
import { timelineChart } from "../charts/timeline.js";
import { positions } from "../lib/indexing.js";
import type { SessionChunk } from "../../src/report/types.js";
import type { View } from "./types.js";
import { ownEntry } from "../../src/util/named-entries.js";

const BATCH = 400;
const clock = (s: number | undefined) => (s === undefined ? "" : `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`);

/** x extent of each turn: its times when the session has them, else its index (one unit wide). */
function extents(chunk: SessionChunk): { axis: "seconds" | "turn"; x: [number, number][] } {
  const timed = chunk.turns.length > 0 && chunk.turns.every((t) => t.start !== undefined);
  if (!timed) return { axis: "turn", x: chunk.turns.map((_t, i) => [i + 1, i + 1.9]) };
  return {
    axis: "seconds",
    x: chunk.turns.map((t, i) => {
      const next = chunk.turns[i + 1]?.start;
      const end = t.end ?? (next !== undefined && next > t.start! ? Math.min(next, t.start! + 30) : t.start! + 2);
      return [t.start!, Math.max(end, t.start! + 0.3)];
    }),
  };
}

async function drawSession(ctx: ViewContext, body: HTMLElement, sessionId: string): Promise<void> {
  const chunk = await ctx.loadChunk(sessionId);
  const speakerFilter = ctx.prefs.get("timeline.speaker") ?? "";
  const codeFilter = ctx.prefs.get("timeline.code") ?? "";
  const nominal = new Set(ctx.bundle.codebooks.filter((c) => c.kind === "nominal").map((c) => c.id));
  const codeOptions = new Map<string, string>();
  for (const list of Object.values(chunk.badges)) {
    for (const [cb, coder, label] of list) if (nominal.has(cb)) codeOptions.set(`${cb}\t${coder}\t${label}`, `${label} (${cb} · ${coderLabel(coder)})`);
  }
  const matches = (t: SessionChunk["turns"][number]) =>
    (!speakerFilter || chunk.speakers[t.s] === speakerFilter) && (!codeFilter || (ownEntry(chunk.badges, t.id) ?? []).some((b) => b.join("\t") === codeFilter));
  const { axis, x } = extents(chunk);
  // Turn position by id, indexed once (marks, clicks and the transcript look turns up by id).
  const indexOf = positions(chunk.turns.map((t) => t.id));
  const svg = timelineChart(
    {
      title: `Timeline · ${chunk.id}`,
      lanes: chunk.speakers.map((key) => ({ key, colour: ctx.speakerColour(key) })),
      turns: chunk.turns.map((t, i) => ({
        id: t.id,
        lane: t.s,
        x0: x[i][0],
        x1: x[i][1],
        type: t.type,
        tip: `${chunk.speakers[t.s]} · ${t.id}${t.start !== undefined ? ` · ${clock(t.start)}` : ""}${t.type !== "message" ? ` · ${t.type}` : ""}\n${t.text.length > 200 ? t.text.slice(0, 199) + "…" : t.text}`,
      })),
      axis,
    },
    { width: Math.min(20000, Math.max(980, chunk.turns.length * 7)) },
  );
  for (const g of svg.querySelectorAll<SVGGElement>("g.turn")) {
    const i = indexOf(g.getAttribute("data-turn") ?? "");
    if (i >= 0 && !matches(chunk.turns[i])) g.classList.add("dimmed");
  }
  const scroller = el("div", { class: "timeline-scroll" });
  const transcript = el("div", { class: "transcript", "data-transcript": chunk.id, tabindex: "0" });
  let rendered = 0;
  const more = el("button", { type: "button", class: "btn more" }, "Show more turns");
  const renderUpTo = (n: number) => {
    const stop = Math.min(chunk.turns.length, n);
    for (; rendered < stop; rendered++) {
      const t = chunk.turns[rendered];
      const row = el(
        "div",
        { class: `turn-row type-${t.type}`, "data-turn": t.id, hidden: !matches(t) },
        el("span", { class: "when" }, t.start !== undefined ? clock(t.start) : `#${rendered + 1}`),
        el("span", { class: "who", "data-speaker": chunk.speakers[t.s] }, chunk.speakers[t.s]),
        el("span", { class: "text" }, t.text),
        el(
          "span",
          { class: "badges" },
          ...(ownEntry(chunk.badges, t.id) ?? []).map(([cb, coder, label]) =>
            el("span", { class: "badge", "data-tip": `${cb} · ${coderLabel(coder)}` }, `${coderLabel(coder)}: ${label}`),
          ),
        ),
      );
      (row.querySelector(".who") as HTMLElement).style.color = ctx.speakerColour(chunk.speakers[t.s]);
      transcript.insertBefore(row, more);
    }
    more.hidden = rendered >= chunk.turns.length;
  };
  transcript.append(more);
  more.addEventListener("click", () => renderUpTo(rendered + BATCH));
  renderUpTo(BATCH);
  const highlight = (id: string, from: "timeline" | "transcript") => {
    const index = indexOf(id);
    if (index < 0) return;
    if (index >= rendered) renderUpTo(index + BATCH);
    svg.querySelectorAll(".highlight").forEach((n) => n.classList.remove("highlight"));
    transcript.querySelectorAll(".active").forEach((n) => n.classList.remove("active"));
    const mark = svg.querySelector(`g.turn[data-turn="${CSS.escape(id)}"]`);
    const row = transcript.querySelector<HTMLElement>(`.turn-row[data-turn="${CSS.escape(id)}"]`);
    mark?.classList.add("highlight");
    row?.classList.add("active");
    if (from === "timeline" && row) {
      row.hidden = false;
      // Centre the row in the transcript box. Measured from both boxes on screen: the
      // transcript is positioned, so row.offsetTop is already relative to it (subtracting
      // transcript.offsetTop as well scrolled to the wrong place).
      const boxTop = transcript.getBoundingClientRect().top + transcript.clientTop;
      const rowTop = row.getBoundingClientRect().top;
      transcript.scrollTop += rowTop - boxTop - (transcript.clientHeight - row.offsetHeight) / 2;
      // And bring the transcript itself into the window if it is below the fold.
      transcript.scrollIntoView({ block: "nearest" });
    }
    if (from === "transcript" && mark) {
      const box = (mark as SVGGElement).getBBox();
      scroller.scrollLeft = Math.max(0, box.x - scroller.clientWidth / 2);
    }
  };
  svg.addEventListener("click", (event) => {
    const id = (event.target as Element).closest("g.turn")?.getAttribute("data-turn");
    if (id) highlight(id, "timeline");
  });
  transcript.addEventListener("click", (event) => {
    const id = (event.target as Element).closest(".turn-row")?.getAttribute("data-turn");
    if (id) highlight(id, "transcript");
  });
  const card = chartCard("timeline", `Timeline · ${chunk.id} (${chunk.condition})`, svg, () => ({
    columns: ["turn", "speaker", "type", "start", "end"],
    rows: chunk.turns.map((t) => [t.id, chunk.speakers[t.s], t.type, t.start ?? null, t.end ?? null]),
  }));
  card.querySelector(".chart-box")!.replaceChildren(scroller);
  scroller.append(svg);
  const controls = el(
    "div",
    { class: "controls" },
    select(
      "Speaker",
      [{ value: "", label: "all" }, ...chunk.speakers.map((s) => ({ value: s, label: s }))],
      speakerFilter,
      (v) => (ctx.prefs.set("timeline.speaker", v), void drawSession(ctx, body, sessionId)),
      "speaker",
    ),
    select(
      "Code",
      [{ value: "", label: "all" }, ...[...codeOptions].sort((a, b) => a[1].localeCompare(b[1])).map(([value, label]) => ({ value, label }))],
      codeFilter,
      (v) => (ctx.prefs.set("timeline.code", v), void drawSession(ctx, body, sessionId)),
      "code",
    ),
  );
  body.replaceChildren(controls, card, el("h2", {}, "Transcript"), transcript);
}

/** Timeline and transcript of one session, synced: clicking either highlights and scrolls the other. */
export const timelineView: View = {
  id: "timeline",
  title: "Timeline & transcript",
  async render(ctx, main, empty) {
    const sessions = ctx.bundle.sessions;
    if (sessions.length === 0) return void main.append(emptyState(empty ?? "No sessions yet."));
    const top = el("div", { class: "controls" });
    const body = el("div");
    main.append(top, body);
    const drawTop = async () => {
      const conditions = ctx.bundle.conditions;
      const condition = ctx.prefs.get("timeline.condition") ?? "";
      const shown = sessions.filter((s) => !condition || s.condition === condition);
      const session = pref(
        ctx,
        "timeline.session",
        shown.map((s) => s.id),
      );
      top.replaceChildren(
        select(
          "Condition",
          [{ value: "", label: "all" }, ...conditions.map((c) => ({ value: c, label: c }))],
          condition,
          (v) => (ctx.prefs.set("timeline.condition", v), void drawTop()),
          "condition",
        ),
        select(
          "Session",
          shown.map((s) => ({ value: s.id, label: `${s.id} (${s.condition}, ${s.turns} turns)` })),
          session,
          (v) => (ctx.prefs.set("timeline.session", v), void drawTop()),
          "session",
        ),
      );
      if (session) await drawSession(ctx, body, session);
      else body.replaceChildren(emptyState("No session in this condition."));
    };
    await drawTop();
  },
};
