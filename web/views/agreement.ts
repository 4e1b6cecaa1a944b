import { el, emptyState, select } from "../lib/dom.js";
import { MEASURE_COLOURS } from "../../src/report/palette.js";
import { fmtCoef, fmtCount, fmtShare } from "../lib/format.js";
import { chartCard } from "../lib/frame.js";
import { coderLabel, pref } from "../lib/context.js";
import { labelMap } from "../lib/indexing.js";
import { groupedBarsChart } from "../charts/grouped-bars.js";
import { heatmapChart } from "../charts/heatmap.js";
import type { View } from "./types.js";

/** Agreement: kappa/alpha with CIs per coder pair, confusion matrix, per-category F1, disagreements. */
export const agreementView: View = {
  id: "agreement",
  title: "Agreement",
  render(ctx, main, empty) {
    const sets = ctx.bundle.agreement;
    if (sets.length === 0) return void main.append(emptyState(empty ?? "No agreement report yet."));
    const body = el("div");
    const draw = () => {
      const id = pref(
        ctx,
        "agreement.codebook",
        sets.map((s) => s.codebook),
      );
      const set = sets.find((s) => s.codebook === id)!;
      const cards: HTMLElement[] = [];
      // Show codebook labels ("Gives opinion") where the report has category ids.
      const labels = labelMap(ctx.codebook(set.codebook.split(" · ")[0])?.categories ?? []);
      const label = (id: string) => labels.get(id) ?? id;
      const short = (c: string) => c.replace(/^human:/, "");
      const pairLabel = (a: string, b: string) => `${short(a)} × ${short(b)}`;
      const all = set.overall && set.coders.length > 2 ? set.overall : undefined;
      const stats = groupedBarsChart(
        {
          title: "Agreement per coder pair",
          groups: set.pairs
            .map((p) => ({
              label: pairLabel(p.a, p.b),
              bars: [
                ...(p.kappa !== undefined
                  ? [
                      {
                        series: "kappa",
                        value: p.kappa,
                        colour: MEASURE_COLOURS[0],
                        err: p.kappaCI,
                        tip: `${pairLabel(p.a, p.b)}\nkappa ${fmtCoef(p.kappa)}${p.kappaCI ? ` [${fmtCoef(p.kappaCI[0])}, ${fmtCoef(p.kappaCI[1])}]` : ""} · n = ${fmtCount(p.n)}`,
                      },
                    ]
                  : []),
                ...(p.alpha !== undefined
                  ? [
                      {
                        series: "alpha",
                        value: p.alpha,
                        colour: MEASURE_COLOURS[1],
                        err: p.alphaCI,
                        tip: `${pairLabel(p.a, p.b)}\nalpha ${fmtCoef(p.alpha)}${p.alphaCI ? ` [${fmtCoef(p.alphaCI[0])}, ${fmtCoef(p.alphaCI[1])}]` : ""} · n = ${fmtCount(p.n)}`,
                      },
                    ]
                  : []),
                ...(p.percent !== undefined
                  ? [
                      {
                        series: "agreement",
                        value: p.percent,
                        colour: MEASURE_COLOURS[2],
                        tip: `${pairLabel(p.a, p.b)}\n${fmtShare(p.percent)} agreement · n = ${fmtCount(p.n)}`,
                      },
                    ]
                  : []),
              ],
            }))
            .concat(
              all
                ? [
                    {
                      label: `all ${set.coders.length} coders`,
                      bars: [
                        {
                          series: "alpha",
                          value: all.alpha,
                          colour: MEASURE_COLOURS[1],
                          err: all.alphaCI,
                          tip: `all coders\nKrippendorff's alpha (${all.level}) ${fmtCoef(all.alpha)}${all.alphaCI ? ` [${fmtCoef(all.alphaCI[0])}, ${fmtCoef(all.alphaCI[1])}]` : ""}${all.fleiss !== undefined ? `\nFleiss' kappa ${fmtCoef(all.fleiss)}` : ""}`,
                        },
                      ],
                    },
                  ]
                : [],
            ),
          legend: [
            { label: "Cohen's kappa (95% CI)", colour: MEASURE_COLOURS[0] },
            { label: "Krippendorff's alpha (95% CI)", colour: MEASURE_COLOURS[1] },
            { label: "percent agreement", colour: MEASURE_COLOURS[2] },
          ],
          yLabel: "value",
        },
        { yMax: 1, width: Math.max(420, 160 + set.pairs.length * 120) },
      );
      cards.push(
        chartCard("agreement-pairs", "Agreement per coder pair", stats, {
          columns: ["pair", "n", "% agreement", "kappa", "kappa CI", "alpha", "alpha CI", "AC1"],
          rows: [
            ...set.pairs.map((p) => [
              pairLabel(p.a, p.b),
              p.n,
              // A share, shown as the percentage its column names (the report's "agreed on 37.1%"), not 0.371.
              p.percent === undefined ? null : fmtShare(p.percent),
              p.kappa ?? null,
              p.kappaCI ? `${fmtCoef(p.kappaCI[0])}–${fmtCoef(p.kappaCI[1])}` : null,
              p.alpha ?? null,
              p.alphaCI ? `${fmtCoef(p.alphaCI[0])}–${fmtCoef(p.alphaCI[1])}` : null,
              p.ac1 ?? null,
            ]),
            ...(all
              ? [
                  [
                    `all ${set.coders.length} coders`,
                    null,
                    null,
                    null,
                    null,
                    all.alpha,
                    all.alphaCI ? `${fmtCoef(all.alphaCI[0])}–${fmtCoef(all.alphaCI[1])}` : null,
                    null,
                  ],
                ]
              : []),
          ],
        }),
      );
      if (set.confusion) {
        const c = set.confusion;
        const max = Math.max(1, ...c.matrix.flat());
        cards.push(
          chartCard(
            "confusion",
            `Confusion matrix (rows ${coderLabel(c.reference)}, columns ${coderLabel(c.other)})`,
            heatmapChart(
              {
                title: "Confusion matrix",
                rows: c.labels.map(label),
                columns: c.labels.map(label),
                // Zero cells stay blank so the diagonal and the confusions stand out.
                cells: c.matrix.flatMap((row, i) =>
                  row.map((n, j) => ({
                    row: i,
                    col: j,
                    value: n,
                    lines: n ? [String(n)] : [],
                    tip: `${coderLabel(c.reference)}: ${label(c.labels[i])}\n${coderLabel(c.other)}: ${label(c.labels[j])}\n${n} turns`,
                  })),
                ),
                scaleLabel: "turns",
              },
              { mode: "sequential", domain: max, cellWidth: 46, cellHeight: 28 },
            ),
            { columns: ["reference \\ other", ...c.labels.map(label)], rows: c.matrix.map((row, i) => [label(c.labels[i]), ...row]) },
          ),
        );
      }
      if (set.perCategory.length) {
        cards.push(
          chartCard(
            "per-category-f1",
            // Scores of one coder against another: say which (with three coders there are several pairs).
            `Per-category precision, recall, F1${set.perCategoryPair ? ` (${coderLabel(set.perCategoryPair.coder)} against ${coderLabel(set.perCategoryPair.reference)})` : ""}`,
            groupedBarsChart(
              {
                title: "Per-category F1",
                groups: set.perCategory.map((p) => ({
                  label: label(p.code),
                  bars: [
                    { series: "precision", value: p.precision ?? 0, colour: MEASURE_COLOURS[2], tip: `${p.code}\nprecision ${fmtCoef(p.precision)}` },
                    { series: "recall", value: p.recall ?? 0, colour: MEASURE_COLOURS[1], tip: `${p.code}\nrecall ${fmtCoef(p.recall)}` },
                    {
                      series: "F1",
                      value: p.f1 ?? 0,
                      colour: MEASURE_COLOURS[0],
                      tip: `${p.code}\nF1 ${fmtCoef(p.f1)}${p.support !== undefined ? ` · support ${fmtCount(p.support)}` : ""}`,
                    },
                  ],
                })),
                legend: [
                  { label: "precision", colour: MEASURE_COLOURS[2] },
                  { label: "recall", colour: MEASURE_COLOURS[1] },
                  { label: "F1", colour: MEASURE_COLOURS[0] },
                ],
                yLabel: "score",
              },
              { yMax: 1 },
            ),
            {
              columns: ["code", "precision", "recall", "F1", "support"],
              rows: set.perCategory.map((p) => [p.code, p.precision, p.recall, p.f1, p.support ?? null]),
            },
          ),
        );
      }
      const list = el("table", { class: "data-table disagreements", "data-table": "disagreements" });
      const coders = set.coders;
      list.append(el("thead", {}, el("tr", {}, ...["session", "turn", "speaker", "text", ...coders.map(coderLabel)].map((h) => el("th", {}, h)))));
      const tbody = el("tbody");
      for (const d of set.disagreements.slice(0, 500)) {
        tbody.append(
          el(
            "tr",
            {},
            el("td", {}, d.session),
            el("td", {}, d.turn),
            el("td", {}, d.speaker ?? ""),
            el("td", { class: "text" }, d.text),
            ...coders.map((c) => el("td", {}, d.codes[c] === undefined ? "–" : d.codes[c].split("+").map(label).join(" + "))),
          ),
        );
      }
      list.append(tbody);
      body.replaceChildren(
        el(
          "div",
          { class: "controls" },
          select(
            "Codebook",
            sets.map((s) => ({ value: s.codebook, label: s.codebook })),
            id,
            (v) => (ctx.prefs.set("agreement.codebook", v), draw()),
            "codebook",
          ),
        ),
        el("p", { class: "note" }, `From analysis/${set.file}.`),
        el("div", { class: "grid two" }, ...cards),
        el(
          "section",
          { class: "card wide" },
          el("h2", {}, `Disagreements (${set.disagreements.length}${set.disagreements.length > 500 ? ", first 500 shown" : ""})`),
          list,
        ),
      );
    };
    main.append(body);
    draw();
  },
};
