import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, writeFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDashboardFixture, KNOWN } from "../../fixtures/dashboard/generate.js";
import { loadStudyData } from "../../src/report/load.js";
import { assembleReport } from "../../src/report/bundle.js";
import { agreementFromReport, readConcepts, readTopics, attachCompareTests } from "../../src/report/shape/analysis.js";
import { buildSite } from "../../src/report/build.js";
import { initStudy, saveSession } from "../../src/study/study.js";
import { sessionSchema } from "../../src/transcript/schema.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-report-"));
  await writeDashboardFixture(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("assembleReport on the fixture study", () => {
  it("has the known numbers, every view's data, and provenance", async () => {
    const { bundle, chunks } = assembleReport(await loadStudyData(dir));
    expect(bundle.provenance.tool).toBe("colloquy");
    expect(bundle.overview.sessions).toBe(KNOWN.sessions);
    expect(bundle.overview.turns).toBe(KNOWN.turns);
    expect(bundle.conditions).toEqual(KNOWN.conditions);
    expect(bundle.overview.participants).toEqual({ human: 2, ai: 2, system: 1 });
    expect(bundle.overview.coders).toEqual({ "bales-ipa": ["human:alice", "rules"], "pragmatic-style": ["rules"] });
    expect(bundle.overview.models).toEqual(["fixture-model"]);
    expect(bundle.codebooks.find((c) => c.id === "bales-ipa")!.categories).toHaveLength(13);
    const compare = bundle.compare.find((c) => c.coder === "rules")!;
    const opinion = compare.cells.find((c) => c.code === "gives-opinion")!;
    expect([opinion.count, opinion.controlCount, opinion.pctDiff]).toEqual([7, 1, 600]);
    expect(bundle.agreement).toHaveLength(1);
    expect(bundle.topics!.trees).toHaveLength(2);
    // From the report's branchingRatio comparison; CI = mean ± t(0.975, 1) · sd / sqrt(2).
    const control = bundle.topics!.branching.find((b) => b.condition === "control")!;
    expect(control).toMatchObject({ mean: 1, sd: 0.2, n: 2 });
    expect(control.ci![1]).toBeCloseTo(1 + (12.706204736174694 * 0.2) / Math.SQRT2, 5);
    expect(bundle.topics!.test).toMatchObject({ test: "welchTTest, debate vs control", p: 0.12, n: 4 });
    expect(bundle.topics!.trees[0].root.children.map((c) => c.children.length)).toEqual([3, 1]);
    expect(bundle.concepts!.rates.map((r) => [r.condition, r.mean])).toEqual([["control", 1.5], ["debate", 3.2]]);
    expect(bundle.concepts!.test).toMatchObject({ p: 0.14, n: 4 });
    expect(bundle.empty).toEqual({});
    expect(bundle.warnings).toEqual([]);
    expect(chunks.map((c) => c.id).sort()).toEqual(["c1", "c2", "d1", "d2", "xss"]);
  });

  it("a study with sessions but no codes or analysis gets empty states naming the commands", async () => {
    const bare = await mkdtemp(join(tmpdir(), "colloquy-bare-"));
    try {
      await initStudy(bare);
      const first = assembleReport(await loadStudyData(bare)).bundle;
      expect(first.empty.who).toMatch(/colloquy import .* <files>/);
      expect(first.empty.style).toMatch(/colloquy import/);
      await saveSession(bare, sessionSchema.parse({ id: "s1", participants: [{ id: "a", name: "A", kind: "human" }], turns: [{ id: "t0", index: 0, speaker: "a", text: "hi" }] }));
      const { bundle } = assembleReport(await loadStudyData(bare));
      expect(bundle.empty.who).toMatch(/colloquy code .* --codebook bales-ipa --coder rules/);
      expect(bundle.empty.agreement).toMatch(/colloquy agree .* --codebook bales-ipa --coders rules,human:/);
      expect(bundle.empty.topics).toMatch(/colloquy topics/);
      expect(bundle.empty.style).toMatch(/colloquy code .* --codebook pragmatic-style/);
      expect(bundle.empty.bales).toMatch(/colloquy code .* --codebook bales-ipa/);
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });
});

describe("reading analysis files defensively", () => {
  it("maps an AgreementReport: pairs with CIs, confusion, F1, disagreement texts", async () => {
    const report = JSON.parse(await readFile(join(dir, "analysis", "agreement-bales-ipa.json"), "utf8"));
    const [set] = agreementFromReport("agreement-bales-ipa.json", report);
    expect(set.pairs).toEqual([{ a: "human:alice", b: "rules", n: 10, percent: 0.9, kappa: 0.8667, kappaCI: [0.6, 1], alpha: 0.87, alphaCI: [0.62, 1], ac1: 0.89 }]);
    expect(set.confusion!.matrix[3][4]).toBe(1);
    expect(set.perCategory[0]).toEqual({ code: "gives-suggestion", precision: 1, recall: 0.6667, f1: 0.8, support: 3 });
    expect(set.disagreements[0]).toMatchObject({ session: "d1", speaker: "Builder", text: "Honestly a mix seems best to me." });
    // Undefined statistics are null in the file: they stay absent, never become 0.
    report.variables[0].pairs[0].kappa = null;
    expect(agreementFromReport("x.json", report)[0].pairs[0].kappa).toBeUndefined();
  });

  it("reads bare topic trees (no merged block) and summarises branching from them", () => {
    const warnings: string[] = [];
    const topics = readTopics(new Map([["topics.json", { trees: [
      { scope: "session", session: "a", mainTopics: [{ id: "m", label: "M", turns: [], subtopics: [{ id: "s", label: "S", turns: [] }, { id: "t", label: "T", turns: [] }] }] },
      { scope: "session", session: "b", mainTopics: [{ id: "m", label: "M", turns: [], subtopics: [] }, { id: "n", label: "N", turns: [], subtopics: [{ id: "s", label: "S", turns: [] }] }] },
      { scope: "session", session: "c", mainTopics: [] },
    ] }]]), warnings);
    expect(warnings).toEqual([]);
    // a: 2/1, b: 1/2 (both condition "(none)"); c has no main topics, so no ratio.
    expect(topics!.branching).toHaveLength(1);
    expect(topics!.branching[0]).toMatchObject({ condition: "(none)", mean: 1.25, n: 2 });
    expect(topics!.trees).toHaveLength(3);
  });

  it("broken, old or foreign files become warnings, not crashes", () => {
    const warnings: string[] = [];
    const analysis = new Map<string, unknown>([
      ["topics.json", { trees: "nope" }],
      ["concepts.json", [1, 2]],
    ]);
    expect(readTopics(analysis, warnings)).toBeNull();
    expect(readConcepts(analysis, warnings)).toBeNull();
    expect(() => agreementFromReport("agreement-x.json", { kind: "something" })).toThrow(/not an agreement report/);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/analysis\/topics.json: .*colloquy topics/);
  });

  it("takes colloquy compare's differences and tests for its coder when present", () => {
    const set = {
      codebook: "bales-ipa", coder: "rules", control: "control", conditions: ["debate"], codes: [{ id: "gives-opinion", label: "Gives opinion" }],
      runs: { control: 3, debate: 2 }, normalised: false, counts: {}, cells: [], collapse: {}, dropped: [], tests: [], source: "codes" as const,
    };
    const report = {
      coder: "rules",
      labels: ["gives-opinion"],
      conditions: [{ name: "control", runs: 3 }, { name: "debate", runs: 2 }],
      frequencies: { byCondition: [{ key: "control", counts: { "gives-opinion": 1 } }, { key: "debate", counts: { "gives-opinion": 7 } }] },
      differences: { control: "control", basis: "count", rows: [{ condition: "debate", code: "gives-opinion", count: 7, controlCount: 1, percentDifference: 600 }] },
      tests: [{ test: "Wilcoxon signed-rank", condition: "debate", reference: "control", code: "gives-opinion", n: 6, statistic: 2, p: 0.03, pHolm: 0.06 }],
      options: { collapse: {}, drop: [] },
    };
    const warnings: string[] = [];
    const merged = attachCompareTests(set, new Map([["compare-bales-ipa.json", report]]), warnings);
    expect(merged.source).toBe("analysis");
    expect(merged.cells).toEqual([{ condition: "debate", code: "gives-opinion", count: 7, controlCount: 1, pctDiff: 600 }]);
    expect(merged.tests).toEqual([{ label: "debate vs control · gives-opinion", test: "Wilcoxon signed-rank", n: 6, statistic: 2, p: 0.03, pAdjusted: 0.06 }]);
    expect(attachCompareTests({ ...set, coder: "llm" }, new Map([["compare-bales-ipa.json", report]]), warnings).source).toBe("codes");
    expect(attachCompareTests(set, new Map([["compare-bales-ipa.json", { junk: true }]]), warnings).source).toBe("codes");
    expect(warnings[0]).toMatch(/compare-bales-ipa.json: no differences table/);
  });

  it("a corrupt analysis JSON file does not stop the build", async () => {
    const copy = await mkdtemp(join(tmpdir(), "colloquy-corrupt-"));
    try {
      await writeDashboardFixture(copy);
      await writeFile(join(copy, "analysis", "topics.json"), "{ not json");
      const result = await buildSite(copy);
      expect(result.warnings.join("\n")).toMatch(/analysis\/topics.json: not readable JSON/);
      const index = await readFile(join(copy, "site", "index.html"), "utf8");
      expect(index).toMatch(/src="app\.[0-9a-f]{12}\.js"/);
      expect(await readdir(join(copy, "site"))).toContain(result.files.data);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
