import { describe, expect, it } from "vitest";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConceptExtractor } from "../../../src/analysis/concepts/extract.js";
import { prettyElement, prettyJsonWithArray } from "../../../src/analysis/concepts/json-parts.js";
import { buildConceptsParts, buildConceptsReport, conceptsReportOf, writeConceptsParts, writeConceptsReport } from "../../../src/analysis/concepts/report.js";
import { gardenLines, makeSession } from "../topics/fixture.js";

const pretty = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

describe("pretty JSON from parts stringified earlier", () => {
  it("gives JSON.stringify(value, null, 2)'s bytes: nested values, strings with newlines and markers, NaN, undefined, empty arrays", () => {
    const elements = [
      { a: 1, text: 'line one\nline two "quoted" \\ \u0000parts\u0000', nested: { list: [1, [2, []], {}], nan: Number.NaN, gone: undefined } },
      { a: 2, inf: Number.POSITIVE_INFINITY, empty: [] },
      "a bare string",
      null,
    ];
    const object = { first: { x: [1, 2] }, items: elements, last: "end" };
    expect(prettyJsonWithArray(object, "items", elements.map(prettyElement)).toString("utf8")).toBe(pretty(object));
    // Elements as the memo keeps them (UTF-8 bytes), beyond Latin-1 too.
    const wide = { items: [{ said: "Grüße — 你好 👋" }, { n: 1 }], after: "é" };
    expect(
      prettyJsonWithArray(
        wide,
        "items",
        wide.items.map((e) => new TextEncoder().encode(prettyElement(e))),
      ).toString("utf8"),
    ).toBe(pretty(wide));
    expect(prettyJsonWithArray({ items: [], after: 1 }, "items", []).toString("utf8")).toBe(pretty({ items: [], after: 1 }));
    expect(() => prettyJsonWithArray({ other: 1 }, "items", [])).toThrow(/no "items" property/);
  });
});

describe("the concepts report in parts", () => {
  const sessions = [makeSession("g1", "A", gardenLines), makeSession("g2", "B", gardenLines.slice(0, 4)), makeSession("g3", "B", gardenLines.slice(2))];
  const options = { speakers: "human" as const, rateBasis: "session" as const };

  it("writes the same JSON and CSV bytes as the report built as one object", async () => {
    const whole = buildConceptsReport(sessions, createConceptExtractor(), options);
    const parts = buildConceptsParts(sessions, createConceptExtractor(), options);
    // The same creation time, so that the files can be compared byte for byte.
    parts.provenance = whole.provenance;
    const a = await writeConceptsReport(await mkdtemp(join(tmpdir(), "colloquy-parts-")), whole);
    const b = await writeConceptsParts(await mkdtemp(join(tmpdir(), "colloquy-parts-")), parts);
    expect(await readFile(b.json, "utf8")).toBe(await readFile(a.json, "utf8"));
    expect(await readFile(b.csv, "utf8")).toBe(await readFile(a.csv, "utf8"));
    // The object view parses each session's text back: the values the file holds.
    expect(conceptsReportOf(parts).sessions).toEqual(JSON.parse(JSON.stringify(whole.sessions)));
    expect(JSON.stringify(conceptsReportOf(parts))).toBe(JSON.stringify(whole));
  });
});
