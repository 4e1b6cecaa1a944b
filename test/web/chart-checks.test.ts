// The checks the Chromium tests run on every chart, on cases with a known answer: they must fail
// on what the issue found (ticks at 0.41 / 0.82 / 1.23; one orange for a person, a condition and a code).
import { describe, expect, it } from "vitest";
import { CODE_COLOURS, CONDITION_COLOURS, SPEAKER_COLOURS } from "../../src/report/palette.js";
import { greyscaleProblems, paletteProblems, unroundTicks } from "./chart-checks.js";

describe("tick check", () => {
  it("passes d3's round ticks and fails uneven or unround ones", () => {
    for (const ok of [
      [0, 0.5, 1, 1.5, 2],
      [0, 0.2, 0.4, 0.6000000000000001, 0.8, 1],
      [-20, 0, 20, 40],
      [1000, 2000, 3000],
      [2, 3, 4, 5, 6, 7],
    ])
      expect(unroundTicks(ok), ok.join()).toBeUndefined();
    expect(unroundTicks([0.41, 0.82, 1.23, 1.63])).toMatch(/step/);
    expect(unroundTicks([0.13, 1.48])).toMatch(/step/);
    expect(unroundTicks([0.1, 0.6, 1.1])).toMatch(/multiple/);
    expect(unroundTicks([0, 1, 2, 4])).toMatch(/uneven/);
  });
});

describe("palette check", () => {
  const chart = (name: string, items: [string, string][]) => items.map(([item, colour]) => ({ chart: name, item, colour }));

  it("fails when one colour stands for a speaker, a condition and a code", () => {
    const orange = CONDITION_COLOURS[0];
    const problems = paletteProblems([
      ...chart("who", [["Disagrees", orange]]),
      ...chart("overview", [["facilitator", orange]]),
      ...chart("participation", [["Alice", orange]]),
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('"Disagrees" (who) and "facilitator" (overview) and "Alice" (participation)');
  });

  it("fails when an item changes colour between charts, and passes one colour per item", () => {
    expect(paletteProblems([...chart("a", [["control", CONDITION_COLOURS[0]]]), ...chart("b", [["control", CONDITION_COLOURS[1]]])])).toEqual([
      `"control" is drawn in ${CONDITION_COLOURS[0]} in a, ${CONDITION_COLOURS[1]} in b`,
    ]);
    expect(
      paletteProblems([
        ...chart("a", [
          ["control", CONDITION_COLOURS[0]],
          ["Alice", SPEAKER_COLOURS[0]],
          ["Agrees", CODE_COLOURS[0]],
          ["words", "#6E6E6E"],
        ]),
        ...chart("b", [
          ["control", CONDITION_COLOURS[0]],
          ["Agrees", CODE_COLOURS[0]],
          ["kappa", "#6E6E6E"],
        ]),
      ]),
    ).toEqual([]);
  });
});

describe("greyscale check", () => {
  const swatch = (chart: string, item: string, colour: string, texture = "", labelled = false) => ({ chart, item, colour, texture, labelled });

  it("fails on two series of one chart that differ in hue only, and passes lightness, textures or labels", () => {
    // Okabe-Ito orange and sky blue: CIE L* 71 and 69.
    expect(greyscaleProblems([swatch("a", "control", "#E69F00"), swatch("a", "debate", "#56B4E9")])).toEqual([
      expect.stringContaining('a: "control" (#E69F00) and "debate" (#56B4E9) differ by 1.9 in L*'),
    ]);
    // Blue (L* 45) and orange (71) differ in lightness.
    expect(greyscaleProblems([swatch("a", "control", "#0072B2"), swatch("a", "debate", "#E69F00")])).toEqual([]);
    // A texture on one of them, or a label beside each.
    expect(greyscaleProblems([swatch("a", "control", "#E69F00"), swatch("a", "debate", "#56B4E9", "M0,1.5H3")])).toEqual([]);
    expect(greyscaleProblems([swatch("a", "control", "#E69F00", "", true), swatch("a", "debate", "#56B4E9", "", true)])).toEqual([]);
    // A label beside one only is not enough; and series of different charts are never compared.
    expect(greyscaleProblems([swatch("a", "control", "#E69F00", "", true), swatch("a", "debate", "#56B4E9")])).toHaveLength(1);
    expect(greyscaleProblems([swatch("a", "control", "#E69F00"), swatch("b", "debate", "#56B4E9")])).toEqual([]);
  });
});
