import { el, emptyState, select } from "../lib/dom.js";
import { chartCard } from "../lib/frame.js";
import { groupedBarsChart } from "../charts/grouped-bars.js";
import { linesChart } from "../charts/lines.js";
import { heatmapChart } from "../charts/heatmap.js";
import { pref } from "../lib/context.js";
import { sortByOrder } from "../lib/indexing.js";
import type { View } from "./types.js";

const ALL = "(all sessions)";

/** Participation: shares of turns and words, cumulative words, balance, who follows whom. */
export const participationView: View = {
  id: "participation",
  title: "Participation",
  render(ctx, main, empty) {
    const p = ctx.bundle.participation;
    if (empty || p.sessions.length === 0) return void main.append(emptyState(empty ?? "No sessions yet."));
    const body = el("div");
    const draw = () => {
      const choice = pref(ctx, "participation.session", [ALL, ...p.sessions.map((s) => s.session)], ALL);
      const picked = choice === ALL ? p.sessions : p.sessions.filter((s) => s.session === choice);
      const totals = new Map<string, { turns: number; words: number }>();
      for (const s of picked) for (const sp of s.speakers) {
        const t = totals.get(sp.key) ?? { turns: 0, words: 0 };
        t.turns += sp.turns;
        t.words += sp.words;
        totals.set(sp.key, t);
      }
      const allTurns = [...totals.values()].reduce((a, t) => a + t.turns, 0) || 1;
      const allWords = [...totals.values()].reduce((a, t) => a + t.words, 0) || 1;
      const keys = sortByOrder([...totals.keys()], ctx.bundle.speakers.map((s) => s.key), (k) => k);
      const shares = groupedBarsChart(
        {
          title: "Share of turns and words",
          groups: keys.map((k) => ({
            label: k,
            bars: [
              { series: "turns", value: totals.get(k)!.turns / allTurns, colour: ctx.speakerColour(k), tip: `${k}\n${totals.get(k)!.turns} turns (${((totals.get(k)!.turns / allTurns) * 100).toFixed(1)}%)` },
              { series: "words", value: totals.get(k)!.words / allWords, colour: "#555", tip: `${k}\n${totals.get(k)!.words} words (${((totals.get(k)!.words / allWords) * 100).toFixed(1)}%)` },
            ],
          })),
          legend: [{ label: "turns (speaker colour)", colour: "#0072B2" }, { label: "words", colour: "#555" }],
          yLabel: "share",
        },
        { yFormat: (v) => `${Math.round(v * 100)}%` },
      );
      const cards: HTMLElement[] = [
        chartCard("participation-shares", "Share of turns and words", shares, { columns: ["speaker", "turns", "turn share", "words", "word share"], rows: keys.map((k) => [k, totals.get(k)!.turns, totals.get(k)!.turns / allTurns, totals.get(k)!.words, totals.get(k)!.words / allWords]) }),
      ];
      if (choice !== ALL) {
        const s = picked[0];
        cards.push(
          chartCard(
            "cumulative-words",
            "Cumulative words",
            linesChart({ title: "Cumulative words", series: s.cumulative.map((c) => ({ label: c.key, colour: ctx.speakerColour(c.key), points: c.points })), xLabel: s.timeAxis === "seconds" ? "seconds from session start" : "turn number", yLabel: "words" }),
            () => ({ columns: ["speaker", "x", "cumulative words"], rows: s.cumulative.flatMap((c) => c.points.map((pt) => [c.key, pt[0], pt[1]])) }),
          ),
        );
      }
      const balance = groupedBarsChart(
        {
          title: "Participation balance per session",
          groups: p.sessions.map((s) => ({ label: s.session, bars: [{ series: s.condition, value: s.balance ?? 0, colour: ctx.conditionColour(s.condition), tip: `${s.session} (${s.condition})\nbalance ${s.balance === null ? "n/a" : s.balance.toFixed(3)}` }] })),
          legend: ctx.bundle.conditions.map((c) => ({ label: c, colour: ctx.conditionColour(c) })),
          yLabel: "balance (0–1)",
        },
        { yMax: 1, width: Math.min(1100, 120 + p.sessions.length * 30) },
      );
      cards.push(chartCard("balance", "Participation balance (normalised entropy of word shares: 1 = even)", balance, { columns: ["session", "condition", "balance"], rows: p.sessions.map((s) => [s.session, s.condition, s.balance]) }));
      const f = p.follows;
      const max = Math.max(1, ...f.counts.flat());
      const heat = heatmapChart(
        {
          title: "Who follows whom",
          rows: f.keys,
          columns: f.keys.map((k) => `→ ${k}`),
          cells: f.counts.flatMap((row, i) => row.map((n, j) => ({ row: i, col: j, value: n, lines: [String(n)], tip: `${f.keys[j]} after ${f.keys[i]}\n${n} times` }))),
          scaleLabel: "turns (row = previous speaker, column = next)",
        },
        { mode: "sequential", domain: max, cellWidth: 70, cellHeight: 32 },
      );
      cards.push(chartCard("follows", "Who follows whom (all sessions)", heat, { columns: ["previous \\ next", ...f.keys], rows: f.counts.map((row, i) => [f.keys[i], ...row]) }));
      body.replaceChildren(
        el("div", { class: "controls" }, select("Session", [{ value: ALL, label: ALL }, ...p.sessions.map((s) => ({ value: s.session, label: `${s.session} (${s.condition})` }))], choice, (v) => (ctx.prefs.set("participation.session", v), draw()), "session")),
        el("div", { class: "grid two" }, ...cards),
      );
    };
    main.append(body);
    draw();
  },
};
