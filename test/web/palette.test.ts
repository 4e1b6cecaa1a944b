import { describe, expect, it } from "vitest";
import { lab } from "d3";
import {
  CODE_COLOURS,
  CONDITION_COLOURS,
  GREY_STEP,
  MEASURE_COLOURS,
  NEUTRAL,
  SPEAKER_COLOURS,
  colourAt,
  coloursByName,
  greyscaleClashes,
} from "../../src/report/palette.js";
import { SOLID_SPEAKERS, speakerStyleAt } from "../../web/lib/palette.js";

/** CIE76 colour difference: about 2 is just noticeable, past 10 two colours read as different at a glance. */
const deltaE = (a: string, b: string) => {
  const x = lab(a);
  const y = lab(b);
  return Math.hypot(x.l - y.l, x.a - y.a, x.b - y.b);
};
const closest = (a: readonly string[], b: readonly string[]) => Math.min(...a.flatMap((x) => b.map((y) => deltaE(x, y))));
const within = (a: readonly string[]) => Math.min(...a.flatMap((x, i) => a.slice(i + 1).map((y) => deltaE(x, y))));
const MEANINGS = { conditions: CONDITION_COLOURS, codes: CODE_COLOURS, speakers: SPEAKER_COLOURS, measures: MEASURE_COLOURS };

describe("one palette per meaning", () => {
  it("no colour is in two palettes, nor is the neutral grey", () => {
    const all = [...Object.values(MEANINGS).flat(), NEUTRAL].map((c) => c.toLowerCase());
    expect(new Set(all).size).toBe(all.length);
  });

  it("every colour of one meaning is far from every colour of another (CIELAB ΔE ≥ 9), and within a palette ≥ 15", () => {
    const entries = Object.entries(MEANINGS);
    for (const [i, [a, pa]] of entries.entries()) for (const [b, pb] of entries.slice(i + 1)) expect(closest(pa, pb), `${a} vs ${b}`).toBeGreaterThanOrEqual(9);
    for (const [name, palette] of entries) expect(within(palette), name).toBeGreaterThanOrEqual(15);
  });

  it("the measures' greys differ in lightness, so they stay apart in greyscale", () => {
    const lightness = MEASURE_COLOURS.map((c) => lab(c).l);
    for (const [i, l] of lightness.entries()) for (const m of lightness.slice(i + 1)) expect(Math.abs(l - m)).toBeGreaterThan(15);
  });

  it("past a palette's end colours come round lighter, then darker: 3 rounds all differ", () => {
    for (const palette of [CONDITION_COLOURS, CODE_COLOURS]) {
      const colours = Array.from({ length: palette.length * 3 }, (_v, i) => colourAt(palette, i));
      expect(new Set(colours).size).toBe(colours.length);
      expect(colours.slice(0, palette.length)).toEqual(palette);
    }
    expect(colourAt(CODE_COLOURS, -1)).toBe(NEUTRAL);
  });

  it("an item's colour follows its name in the study-wide list, whatever order a chart lists it in", () => {
    const colour = coloursByName(["control", "facilitator", "debate"], CONDITION_COLOURS);
    const chartA = ["debate", "control"].map(colour);
    const chartB = ["control", "facilitator", "debate"].map(colour);
    expect(chartA).toEqual([CONDITION_COLOURS[2], CONDITION_COLOURS[0]]);
    expect(chartB[2]).toBe(chartA[0]);
    expect(colour("unknown")).toBe(NEUTRAL);
  });
});

describe("speaker palette", () => {
  it("gives 20 speakers 20 distinct colours, and those past the eighth a dash and a marker", () => {
    const styles = Array.from({ length: 20 }, (_v, i) => speakerStyleAt(i));
    expect(new Set(styles.map((s) => s.colour.toLowerCase())).size).toBe(20);
    expect(styles.slice(0, SOLID_SPEAKERS).every((s) => !s.dash && !s.marker)).toBe(true);
    expect(styles.slice(SOLID_SPEAKERS).every((s) => s.dash && s.marker)).toBe(true);
  });

  it("past 20 speakers no two of the first 60 look alike (colour, dash, marker)", () => {
    const looks = Array.from({ length: 60 }, (_v, i) => speakerStyleAt(i)).map((s) => `${s.colour} ${s.dash ?? ""} ${s.marker ?? ""}`);
    expect(new Set(looks).size).toBe(60);
    expect(SPEAKER_COLOURS.length).toBe(20);
  });
});

describe("palettes in greyscale (CIE L* apart by GREY_STEP)", () => {
  /** How many of a palette's first colours all differ in lightness. */
  const distinctPrefix = (palette: readonly string[]) => {
    let n = 0;
    while (n < palette.length && greyscaleClashes(palette.slice(0, n + 1)).length === 0) n++;
    return n;
  };

  it("finds the pairs that look alike: Okabe-Ito orange and sky blue (L* 71, 69), not blue and orange (45, 71)", () => {
    expect(GREY_STEP).toBe(15);
    expect(greyscaleClashes(["#E69F00", "#56B4E9"])).toEqual([["#E69F00", "#56B4E9"]]);
    expect(greyscaleClashes(["#0072B2", "#E69F00", "#0072b2"])).toEqual([]);
  });

  it("measures: every grey differs; conditions: the control and the next one differ, so a two-condition figure needs no texture", () => {
    expect(greyscaleClashes(MEASURE_COLOURS)).toEqual([]);
    expect(distinctPrefix(CONDITION_COLOURS)).toBeGreaterThanOrEqual(2);
  });

  it("no palette of seven or more keeps every pair apart (L* spans 100), so figures add textures or labels past the first few", () => {
    // Measured: conditions 11 of 21 pairs, codes 19 of 66, speakers 85 of 190 (9 of 28 among the first eight).
    for (const [name, palette] of Object.entries({ conditions: CONDITION_COLOURS, codes: CODE_COLOURS, speakers: SPEAKER_COLOURS })) {
      expect(greyscaleClashes(palette).length, name).toBeGreaterThan(0);
      expect(distinctPrefix(palette), name).toBeLessThan(palette.length);
    }
  });
});
