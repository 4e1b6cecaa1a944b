import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConceptExtractor } from "../../../src/analysis/concepts/extract.js";
import {
  buildConceptsParts,
  buildConceptsReport,
  conceptsReportOf,
  writeConceptsParts,
  writeConceptsReport,
  type SessionConceptsPart,
} from "../../../src/analysis/concepts/report.js";
import { openSessionMemo } from "../../../src/study/session-memo.js";
import { gardenLines, makeSession } from "../topics/fixture.js";

describe("the concepts report in parts", () => {
  const sessions = [makeSession("g1", "A", gardenLines), makeSession("g2", "B", gardenLines.slice(0, 4)), makeSession("g3", "B", gardenLines.slice(2))];
  const options = { speakers: "human" as const, rateBasis: "session" as const };

  it("writes the same JSON and CSV bytes as the report built as one object", async () => {
    const whole = buildConceptsReport(sessions, createConceptExtractor(), options);
    const parts = buildConceptsParts(sessions, createConceptExtractor(), options);
    // The same creation time, so that the files can be compared byte for byte.
    parts.provenance.createdAt = whole.provenance.createdAt;
    const a = await writeConceptsReport(await mkdtemp(join(tmpdir(), "colloquy-parts-")), whole);
    const b = await writeConceptsParts(await mkdtemp(join(tmpdir(), "colloquy-parts-")), parts);
    expect(await readFile(b.json, "utf8")).toBe(await readFile(a.json, "utf8"));
    expect(await readFile(b.csv, "utf8")).toBe(await readFile(a.csv, "utf8"));
    // The object view parses each session's text back: the values the file holds.
    expect(conceptsReportOf(parts).sessions).toEqual(JSON.parse(JSON.stringify(whole.sessions)));
    expect(JSON.stringify(conceptsReportOf(parts))).toBe(JSON.stringify(whole));
  });

  it("writes the same CSV from parts kept in a memo, with a session without participants between others, and with none at all", async () => {
    const study = await mkdtemp(join(tmpdir(), "colloquy-parts-memo-"));
    // g2's only speaker is the agent: no human participant, no row.
    const agentOnly = makeSession("g2", "B", gardenLines.filter(([speaker]) => speaker === "agent").slice(0, 2));
    for (const list of [[sessions[0], agentOnly, sessions[2]], [agentOnly]]) {
      const whole = buildConceptsReport(list, createConceptExtractor(), options);
      const a = await writeConceptsReport(await mkdtemp(join(tmpdir(), "colloquy-parts-")), whole);
      for (const round of ["computed", "reused"]) {
        const memo = await openSessionMemo<SessionConceptsPart>(study, "concepts", options);
        const parts = buildConceptsParts(list, createConceptExtractor(), options, memo);
        await memo.save();
        expect(memo.stats.reused, round).toBe(round === "reused" ? list.length : 0);
        const b = await writeConceptsParts(await mkdtemp(join(tmpdir(), "colloquy-parts-")), parts);
        expect(await readFile(b.csv, "utf8"), round).toBe(await readFile(a.csv, "utf8"));
      }
      await rm(join(study, ".cache"), { recursive: true, force: true });
    }
    // With no participant at all: the header alone.
    const empty = await readFile(
      (await writeConceptsReport(await mkdtemp(join(tmpdir(), "colloquy-parts-")), buildConceptsReport([agentOnly], createConceptExtractor(), options))).csv,
      "utf8",
    );
    expect(empty.split("\n")).toEqual([expect.stringMatching(/^session,condition,participant,/), "", ""]);
  });
});
