// The report's figures: round ticks (d3's nice/ticks), the axis title in words under the plot,
// and long labels wrapped onto lines rather than cut, in a figure 85 mm wide whose unit is the
// point. test/web/report-figures.test.ts measures the drawn figures in Chromium.
import { describe, expect, it } from "vitest";
import { FIGURE_PT, FONT_PT, chartSvg, shareScales, textWidth, wrapLabel } from "../../src/report/paper/svg.js";
import type { Chart, PaperReport } from "../../src/report/paper/document.js";

const tickLabels = (svg: string) => [...svg.matchAll(/<text class="tick"[^>]*>([^<]+)<\/text>/g)].map((m) => Number(m[1]));
/** The lines of the axis title, joined. */
const axisTitle = (svg: string) =>
  [.../<text [^>]*class="axis-title"[^>]*>(.*?)<\/text>/.exec(svg)![1].matchAll(/<tspan[^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1]).join(" ");

describe("report figures", () => {
  const label = "a session label long enough to need three lines of text at this width";
  const intervals: Chart = {
    kind: "intervals",
    id: "t",
    caption: "branching ratio by condition",
    rows: [
      { label, value: 0.41, lower: 0.13, upper: 0.82 },
      { label: "control", value: 1.23, lower: 0.9, upper: 1.63 },
    ],
    valueLabel: "branching ratio (sub-topics per main topic)",
  };

  /** Ticks are round: evenly spaced by 1, 2 or 5 times a power of ten, each a multiple of that step. */
  const expectRound = (ticks: number[], lo: number, hi: number) => {
    const step = ticks[1] - ticks[0];
    const mantissa = step / 10 ** Math.floor(Math.log10(step));
    expect(
      [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-9),
      `step ${step}`,
    ).toBe(true);
    for (const t of ticks) expect(Math.abs(t / step - Math.round(t / step))).toBeLessThan(1e-9);
    expect(ticks[0]).toBeLessThanOrEqual(lo);
    expect(ticks.at(-1)).toBeGreaterThanOrEqual(hi);
  };

  it("ticks at round values covering the data (not 0.41 / 0.82 / 1.23)", () => {
    const ticks = tickLabels(chartSvg(intervals));
    expect(ticks).toEqual([0, 0.5, 1, 1.5, 2]);
    expectRound(ticks, 0.13, 1.63);
    const bars: Chart = { kind: "bars", id: "b", caption: "c", categories: ["x"], series: [{ name: "s", values: [0.137] }], valueLabel: "share of acts" };
    expectRound(tickLabels(chartSvg(bars)), 0, 0.137);
  });

  it("writes the whole axis title and wraps labels instead of cutting them", () => {
    const svg = chartSvg(intervals);
    expect(axisTitle(svg)).toBe("branching ratio (sub-topics per main topic)");
    const lines = wrapLabel(label, 90);
    expect(lines.join(" ")).toBe(label);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((l) => textWidth(l) <= 90)).toBe(true);
    for (const line of wrapLabel(label, FIGURE_PT * 0.4)) expect(svg).toContain(`>${line}</tspan>`);
    expect(svg).not.toMatch(/…|\.\.\./);
  });

  it("breaks a word wider than the room inside it, after a hyphen when it can, and loses no character", () => {
    const word = "participant-identifier_with_no_spaces_at_all_0123456789";
    const lines = wrapLabel(`a ${word} b`, 60);
    expect(lines.join(" ").replace(/ /g, "")).toBe(`a${word}b`);
    expect(lines.every((l) => textWidth(l) <= 60)).toBe(true);
    expect(lines.some((l) => l.endsWith("-") || l.endsWith("_"))).toBe(true);
    // Full-width scripts are measured as such: twelve CJK characters do not fit in 60 points.
    expect(wrapLabel("问题与回答的长标签问题与回答", 60).length).toBeGreaterThan(1);
  });

  it("is 85 mm wide, its unit the point, and its text 8 pt", () => {
    const svg = chartSvg(intervals);
    expect(svg).toMatch(/^<svg [^>]*width="85mm"/);
    expect(svg).toContain(`viewBox="0 0 ${FIGURE_PT} `);
    expect(FIGURE_PT).toBeCloseTo((85 / 25.4) * 72, 1);
    expect(svg).toContain(`font-size="${FONT_PT}"`);
    // The height in millimetres matches the viewBox's in points, so nothing is stretched.
    const [, h] = /viewBox="0 0 [\d.]+ ([\d.]+)"/.exec(svg)!;
    const [, mm] = /height="([\d.]+)mm"/.exec(svg)!;
    expect(Number(mm)).toBeCloseTo((Number(h) / 72) * 25.4, 1);
  });

  it("--shared-scales: figures of the same quantity get one axis; others and fixed ranges keep theirs", () => {
    const share = (id: string, max: number): Chart => ({
      kind: "bars",
      id,
      caption: id,
      categories: ["x"],
      series: [{ name: "s", values: [max] }],
      valueLabel: "share",
    });
    const kappa: Chart = {
      kind: "intervals",
      id: "k",
      caption: "k",
      rows: [{ label: "a vs b", value: 0.3, lower: 0.1, upper: 0.5 }],
      valueLabel: "κ",
      domain: [0, 1],
    };
    const report: PaperReport = {
      title: "t",
      byline: "b",
      sections: [
        { title: "Results", level: 2, blocks: [share("bales", 0.12), share("style", 0.61), kappa, intervals].map((chart) => ({ kind: "chart", chart })) },
      ],
    };
    const charts = (r: PaperReport) => r.sections[0].blocks.map((b) => (b.kind === "chart" ? b.chart : undefined)!);
    // Each on its own scale: the two shares end at different ticks.
    const own = charts(report).map((c) => tickLabels(chartSvg(c)));
    expect(own[0].at(-1)).not.toBe(own[1].at(-1));
    const shared = charts(shareScales(report)).map((c) => tickLabels(chartSvg(c)));
    expect(shared[0]).toEqual(shared[1]);
    expect(shared[0].at(-1)).toBeGreaterThanOrEqual(0.61);
    expectRound(shared[0], 0, 0.61);
    expect(shared[2]).toEqual(own[2]);
    expect(shared[3]).toEqual(own[3]);
  });
});
