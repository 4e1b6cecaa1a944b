import { el, emptyState, select } from "../lib/dom.js";
import { MEASURE_COLOURS } from "../../src/report/palette.js";
import { chartCard } from "../lib/frame.js";
import { groupedBarsChart } from "../charts/grouped-bars.js";
import { linesChart } from "../charts/lines.js";
import { heatmapChart } from "../charts/heatmap.js";
import { stackedBarsChart } from "../charts/stacked-bars.js";
import { pref, type ViewContext } from "../lib/context.js";
import { sortByOrder } from "../lib/indexing.js";
import { fmtCoef, fmtCount, fmtNum, fmtShare, plural } from "../lib/format.js";
import type { ParticipationSession } from "../../src/report/types.js";
import type { View } from "./types.js";

const ALL = "(all sessions)";

interface Totals {
  turns: number;
  words: number;
  seconds: number;
}

/** Turns, words and spoken seconds per speaker over the picked sessions; `timed` = sessions that had seconds. */
function totalsOf(picked: readonly ParticipationSession[]): { totals: Map<string, Totals>; timed: number } {
  const totals = new Map<string, Totals>();
  let timed = 0;
  for (const s of picked) {
    if (s.speakers.some((sp) => sp.seconds !== null)) timed++;
    for (const sp of s.speakers) {
      const t = totals.get(sp.key) ?? { turns: 0, words: 0, seconds: 0 };
      t.turns += sp.turns;
      t.words += sp.words;
      t.seconds += sp.seconds ?? 0;
      totals.set(sp.key, t);
    }
  }
  return { totals, timed };
}

/** Who follows whom over the picked sessions, rows and columns in `keys` order. */
function followsOf(picked: readonly ParticipationSession[], keys: string[]): number[][] {
  const at = new Map(keys.map((k, i) => [k, i]));
  const counts = keys.map(() => keys.map(() => 0));
  for (const s of picked) {
    const index = s.speakers.map((sp) => at.get(sp.key) ?? -1);
    s.follows.forEach((row, i) =>
      row.forEach((n, j) => {
        if (index[i] >= 0 && index[j] >= 0) counts[index[i]][index[j]] += n;
      }),
    );
  }
  return counts;
}

/**
 * The speaking-time share chart (as DialogLab's verification dashboard has): one 100% bar of
 * spoken seconds when the picked sessions have times, and one of words, split by speaker.
 */
function speakingShare(ctx: ViewContext, keys: string[], totals: Map<string, Totals>, timed: number, sessions: number): HTMLElement {
  const rows = [
    ...(timed > 0 ? [{ label: "speaking time", unit: "seconds", value: (t: Totals) => t.seconds }] : []),
    { label: "words", unit: "words", value: (t: Totals) => t.words },
  ].map((r) => {
    const segments = keys.map((k) => ({ key: k, label: k, value: r.value(totals.get(k)!), colour: ctx.speakerColour(k), marker: ctx.speakerStyle(k).marker }));
    return { label: r.label, unit: r.unit, total: segments.reduce((a, s) => a + s.value, 0), segments };
  });
  const chart = stackedBarsChart(
    { title: "Speaking-time share", rows, legend: keys.map((k) => ({ label: k, ...ctx.speakerStyle(k) })), format: (v) => fmtNum(v, 1) },
    { width: 640 },
  );
  const note =
    timed === 0
      ? "No turn in these sessions has start and end times, so the share is of words only."
      : `Speaking time = the sum of end − start of each speaker's turns with both times (${plural(timed, "session")} of ${fmtCount(sessions)} timed).`;
  return chartCard(
    "speaking-share",
    "Speaking-time share per speaker",
    chart,
    {
      columns: ["speaker", "seconds", "seconds share", "words", "word share"],
      rows: keys.map((k) => [
        k,
        timed ? totals.get(k)!.seconds : null,
        timed ? totals.get(k)!.seconds / (rows[0].total || 1) : null,
        totals.get(k)!.words,
        totals.get(k)!.words / (rows[rows.length - 1].total || 1),
      ]),
    },
    note,
  );
}

/** Participation: shares of turns, words and speaking time, cumulative words, balance, who follows whom; every chart follows the session picker. */
export const participationView: View = {
  id: "participation",
  title: "Participation",
  render(ctx, main, empty) {
    const p = ctx.bundle.participation;
    if (empty || p.sessions.length === 0) return void main.append(emptyState(empty ?? "No sessions yet."));
    const body = el("div");
    const order = ctx.bundle.speakers.map((s) => s.key);
    const draw = () => {
      const choice = pref(ctx, "participation.session", [ALL, ...p.sessions.map((s) => s.session)], ALL);
      const picked = choice === ALL ? p.sessions : p.sessions.filter((s) => s.session === choice);
      const scope = choice === ALL ? "all sessions" : choice;
      const { totals, timed } = totalsOf(picked);
      const allTurns = [...totals.values()].reduce((a, t) => a + t.turns, 0) || 1;
      const allWords = [...totals.values()].reduce((a, t) => a + t.words, 0) || 1;
      const keys = sortByOrder([...totals.keys()], order, (k) => k);
      const shares = groupedBarsChart(
        {
          title: "Share of turns and words",
          groups: keys.map((k) => {
            const t = totals.get(k)!;
            return {
              label: k,
              bars: [
                {
                  series: k,
                  value: t.turns / allTurns,
                  colour: ctx.speakerColour(k),
                  marker: ctx.speakerStyle(k).marker,
                  tip: `${k}\n${plural(t.turns, "turn")} (${fmtShare(t.turns / allTurns)})`,
                },
                {
                  series: "words",
                  value: t.words / allWords,
                  colour: MEASURE_COLOURS[1],
                  tip: `${k}\n${plural(t.words, "word")} (${fmtShare(t.words / allWords)})`,
                },
              ],
            };
          }),
          legend: [
            { label: "turns (speaker colour)", colour: MEASURE_COLOURS[0] },
            { label: "words", colour: MEASURE_COLOURS[1] },
          ],
          yLabel: "share",
        },
        { yFormat: (v) => `${Math.round(v * 100)}%` },
      );
      const cards: HTMLElement[] = [
        chartCard(`participation-shares`, `Share of turns and words (${scope})`, shares, {
          columns: ["speaker", "turns", "turn share", "words", "word share"],
          rows: keys.map((k) => [k, totals.get(k)!.turns, totals.get(k)!.turns / allTurns, totals.get(k)!.words, totals.get(k)!.words / allWords]),
        }),
        speakingShare(ctx, keys, totals, timed, picked.length),
      ];
      if (choice !== ALL) {
        const s = picked[0];
        cards.push(
          chartCard(
            "cumulative-words",
            `Cumulative words (${scope})`,
            linesChart({
              title: "Cumulative words",
              series: s.cumulative.map((c) => ({ label: c.key, ...ctx.speakerStyle(c.key), points: c.points })),
              xLabel: s.timeAxis === "seconds" ? "seconds from session start" : "turn number",
              yLabel: "words",
            }),
            () => ({ columns: ["speaker", "x", "cumulative words"], rows: s.cumulative.flatMap((c) => c.points.map((pt) => [c.key, pt[0], pt[1]])) }),
          ),
        );
      }
      // Every session stays on the balance chart (it compares sessions); a picked one is marked
      // and the others are drawn pale.
      const balance = groupedBarsChart(
        {
          title: "Participation balance per session",
          groups: p.sessions.map((s) => ({
            label: s.session,
            bars: [
              {
                series: s.condition,
                value: s.balance ?? 0,
                colour: ctx.conditionColour(s.condition),
                tip: `${s.session} (${s.condition})\nbalance ${s.balance === null ? "n/a" : fmtCoef(s.balance)}`,
              },
            ],
          })),
          legend: ctx.bundle.conditions.map((c) => ({ label: c, colour: ctx.conditionColour(c) })),
          yLabel: "balance (0–1)",
        },
        { yMax: 1, width: Math.min(1100, 120 + p.sessions.length * 30) },
      );
      if (choice !== ALL) {
        // Groups are drawn in the order of p.sessions.
        balance.querySelectorAll<SVGGElement>("g.group").forEach((g, i) => {
          if (p.sessions[i]?.session === choice) g.classList.add("picked");
          else g.setAttribute("opacity", "0.25");
        });
      }
      cards.push(
        chartCard("balance", `Participation balance (normalised entropy of word shares: 1 = even)${choice === ALL ? "" : `, ${choice} marked`}`, balance, {
          columns: ["session", "condition", "balance"],
          rows: p.sessions.map((s) => [s.session, s.condition, s.balance]),
        }),
      );
      const followKeys = choice === ALL ? p.follows.keys : keys;
      const follows = choice === ALL ? p.follows.counts : followsOf(picked, followKeys);
      const max = Math.max(1, ...follows.flat());
      const heat = heatmapChart(
        {
          title: "Who follows whom",
          rows: followKeys,
          columns: followKeys.map((k) => `→ ${k}`),
          cells: follows.flatMap((row, i) =>
            row.map((n, j) => ({ row: i, col: j, value: n, lines: [fmtCount(n)], tip: `${followKeys[j]} after ${followKeys[i]}\n${plural(n, "time")}` })),
          ),
          scaleLabel: "turns (row = previous speaker, column = next)",
        },
        { mode: "sequential", domain: max, cellWidth: 70, cellHeight: 32 },
      );
      cards.push(
        chartCard("follows", `Who follows whom (${scope})`, heat, {
          columns: ["previous \\ next", ...followKeys],
          rows: follows.map((row, i) => [followKeys[i], ...row]),
        }),
      );
      body.replaceChildren(
        el(
          "div",
          { class: "controls" },
          select(
            "Session",
            [{ value: ALL, label: ALL }, ...p.sessions.map((s) => ({ value: s.session, label: `${s.session} (${s.condition})` }))],
            choice,
            (v) => (ctx.prefs.set("participation.session", v), draw()),
            "session",
          ),
        ),
        el("div", { class: "grid two" }, ...cards),
      );
    };
    main.append(body);
    draw();
  },
};
