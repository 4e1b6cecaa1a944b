import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseTextGrid, textgridImporter } from "../../src/ingest/formats/textgrid.js";
import { ImportError } from "../../src/ingest/types.js";

const path = new URL("../../fixtures/transcripts/textgrid/dyad.TextGrid", import.meta.url);

describe("Praat TextGrid importer", () => {
  it("reads each interval tier as a speaker, turns in time order, silence left out, point tiers in metadata", async () => {
    const text = await readFile(path, "utf8");
    expect(textgridImporter.detect("x.txt", text)).toBeGreaterThan(0.9);
    const result = parseTextGrid("dyad.TextGrid", text);
    const session = result.sessions[0];
    expect(session.turns.map((t) => [t.speaker, t.start, t.end, t.text])).toEqual([
      ["mia", 0.52, 2.81, "so the robot just stopped mid-sentence"],
      ["leo", 2.6, 5.95, "did it apologise or just carry on"],
      ["mia", 6.1, 9.4, "yeah and then it started über again"],
    ]);
    expect(session.metadata?.pointTiers).toEqual([{ tier: "events", points: [{ time: 3.2, mark: "laugh" }] }]);
    expect(result.warnings).toEqual([expect.stringMatching(/point tier\(s\) "events" hold events/)]);
  });

  it("reads the short text format, quotes doubled inside strings and strings over several lines", () => {
    const short =
      'File type = "ooTextFile"\nObject class = "TextGrid"\n\n0\n4\n<exists>\n1\n"IntervalTier"\n"Ann"\n0\n4\n2\n0\n2\n"she said ""no""\nand left"\n2\n4\n""\n';
    const session = parseTextGrid("short.TextGrid", short).sessions[0];
    expect(session.turns.map((t) => [t.speaker, t.start, t.end, t.text])).toEqual([["ann", 0, 2, 'she said "no"\nand left']]);
  });

  it("names the line of a broken file", () => {
    expect(() =>
      parseTextGrid(
        "bad.TextGrid",
        'File type = "ooTextFile"\nObject class = "TextGrid"\nxmin = 0\nxmax = 1\ntiers? <exists>\nsize = 1\nitem [1]:\n  class = "IntervalTier"\n  name = "A"\n  xmin = 0\n  xmax = 1\n  intervals: size = 1\n  intervals [1]:\n  xmin = 0\n  xmax = 1\n',
      ),
    ).toThrow(ImportError);
    expect(() =>
      parseTextGrid(
        "bad.TextGrid",
        'File type = "ooTextFile"\nObject class = "TextGrid"\nxmin = 0\nxmax = 1\ntiers? <exists>\nsize = 1\nitem [1]:\n  class = "IntervalTier"\n  name = "A\n',
      ),
    ).toThrow(/bad\.TextGrid:9: a string is not closed/);
  });
});
