import { describe, expect, it } from "vitest";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConceptExtractor } from "../../../src/analysis/concepts/extract.js";
import { openSessionMemo } from "../../../src/study/session-memo.js";
import {
  buildRulesTopicsParts,
  buildTopicsReport,
  topicsReportOf,
  writeTopicsParts,
  writeTopicsReport,
  type TreePart,
} from "../../../src/analysis/topics/report.js";
import { gardenLines, makeSession } from "./fixture.js";

describe("the rules topics report in parts", () => {
  const sessions = [makeSession("g1", "A", gardenLines), makeSession("g2", "B", gardenLines.slice(0, 4)), makeSession("g3", "B", gardenLines.slice(2))];
  const options = { scope: "participant" as const, speakers: "human" as const };

  it("writes the same bytes as the report built whole, the first time and from the memo's stored trees", async () => {
    const extractor = createConceptExtractor();
    const whole = await buildTopicsReport(sessions, { ...options, coder: "rules", runs: 1, extractor });
    const study = await mkdtemp(join(tmpdir(), "colloquy-topics-parts-"));
    const a = await writeTopicsReport(await mkdtemp(join(tmpdir(), "colloquy-topics-whole-")), whole);
    const expected = await readFile(a, "utf8");
    for (const round of ["computed", "reused"]) {
      const memo = await openSessionMemo<TreePart[]>(study, "topics-rules", options);
      const parts = buildRulesTopicsParts(sessions, { ...options, extractor }, memo);
      await memo.save();
      expect(memo.stats, round).toEqual(round === "computed" ? { computed: 3, reused: 0 } : { computed: 0, reused: 3 });
      // The same creation time, so that the files can be compared byte for byte.
      parts.provenance.createdAt = whole.provenance.createdAt;
      expect(await readFile(await writeTopicsParts(study, parts), "utf8"), round).toBe(expected);
      // The object view parses each tree's line back: the values the file holds.
      expect(JSON.stringify(topicsReportOf(parts)), round).toBe(JSON.stringify(whole));
      expect(topicsReportOf(parts).trees[0].merged?.mainTopics.length, round).toBeGreaterThan(0);
    }
  });
});
