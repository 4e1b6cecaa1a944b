import { describe, expect, it } from "vitest";
import { SOLID_SPEAKERS, SPEAKER_COLOURS, speakerStyleAt } from "../../web/lib/palette.js";

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
