import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rm } from "node:fs/promises";
import { analysedFixture } from "./analysed-fixture.js";
import { loadStudyData } from "../../src/report/load.js";
import { assembleReport } from "../../src/report/bundle.js";
import { buildPaper } from "../../src/report/paper/sections.js";
import type { Chart } from "../../src/report/paper/document.js";
import { chartSvg } from "../../src/report/paper/svg.js";
import { conditionColour } from "../../web/lib/palette.js";

// The dashboard reads what the real analysis commands write: run them on the fixture study
// (replacing its hand-written analysis files) and check every view's data comes through.
let dir: string;
beforeAll(async () => {
  dir = await analysedFixture("colloquy-report-int-", [
    ["agree", "--codebook", "bales-ipa", "--coders", "human:alice,rules"],
    ["compare", "--codebook", "bales-ipa", "--coder", "rules"],
    ["topics"],
    ["concepts"],
  ]);
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("bundle from the real analysis outputs", () => {
  it("maps agreement, compare, topics and concepts without warnings", async () => {
    const { bundle } = assembleReport(await loadStudyData(dir));
    expect(bundle.warnings).toEqual([]);
    expect(bundle.empty).toEqual({});
    const compare = bundle.compare.find((c) => c.coder === "rules")!;
    expect(compare.source).toBe("analysis");
    expect(compare.cells.find((c) => c.code === "gives-opinion")).toMatchObject({ count: 7, controlCount: 1, pctDiff: 600 });
    expect(compare.tests.length).toBeGreaterThan(0);
    const [agreement] = bundle.agreement;
    expect(agreement.pairs).toHaveLength(1);
    expect(agreement.pairs[0]).toMatchObject({ a: "human:alice", b: "rules", n: 11 });
    expect(agreement.pairs[0].percent).toBeCloseTo(10 / 11, 12);
    expect(agreement.confusion!.labels).toHaveLength(13);
    expect(agreement.disagreements.map((d) => d.text)).toEqual(["Honestly a mix seems best to me."]);
    expect(bundle.topics!.trees.length).toBeGreaterThan(0);
    expect(bundle.topics!.branching.map((b) => b.condition).sort()).toEqual(["control", "debate"]);
    expect(bundle.concepts!.rates.map((r) => r.condition).sort()).toEqual(["control", "debate"]);
    expect(bundle.concepts!.firstMentions.length).toBeGreaterThan(0);
  });

  it("the report's figures draw each condition in the dashboard's colour for it", async () => {
    const data = await loadStudyData(dir);
    const dashboard = conditionColour(assembleReport(data).bundle);
    const charts = buildPaper(data, { version: "test", date: "2026-01-01" }).sections.flatMap((s) =>
      s.blocks.flatMap((b) => (b.kind === "chart" ? [b.chart] : [])),
    );
    const drawn: [string, string | undefined][] = charts.flatMap((c: Chart) =>
      c.kind === "bars"
        ? c.series.map((s) => [s.name, s.colour] as [string, string | undefined])
        : c.rows.filter((r) => r.colour).map((r) => [r.label, r.colour] as [string, string | undefined]),
    );
    // The compare bars and the topics and concepts intervals: control and debate, each in one colour everywhere.
    expect(new Set(drawn.map(([name]) => name))).toEqual(new Set(["control", "debate"]));
    for (const [name, colour] of drawn) expect(colour, name).toBe(dashboard(name));
    expect(dashboard("control")).not.toBe(dashboard("debate"));
    const bars = charts.find((c) => c.kind === "bars")!;
    expect(chartSvg(bars)).toContain(`fill="${dashboard("debate")}"`);
  });
});
