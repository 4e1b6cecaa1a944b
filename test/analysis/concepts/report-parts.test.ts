import { describe, expect, it } from "vitest";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConceptExtractor } from "../../../src/analysis/concepts/extract.js";
import { buildConceptsParts, buildConceptsReport, conceptsReportOf, writeConceptsParts, writeConceptsReport } from "../../../src/analysis/concepts/report.js";
import { gardenLines, makeSession } from "../topics/fixture.js";

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
