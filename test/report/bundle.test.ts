import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, writeFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDashboardFixture, KNOWN } from "../../fixtures/dashboard/generate.js";
import { loadStudyData } from "../../src/report/load.js";
import { assembleReport } from "../../src/report/bundle.js";
import { agreementFromReport } from "../../src/report/shape/analysis.js";
import { buildCompareSet } from "../../src/report/shape/compare.js";
import { validateArtifact } from "../../src/study/artifacts.js";
import { loadCodedStudy } from "../../src/stages/coded.js";
import { diskReader } from "../../src/study/reader.js";
import { compareConditions, type CompareReport } from "../../src/analysis/compare/compare.js";
import { provenance } from "../../src/util/provenance.js";
import { buildStats } from "../../src/analysis/stats/report.js";
import { buildSite } from "../../src/report/build.js";
import { initStudy, saveSession } from "../../src/study/study.js";
import { sessionSchema } from "../../src/transcript/schema.js";
import { agreementFiles } from "../../src/analysis/agreement/descriptor.js";
import { compareFiles } from "../../src/analysis/compare/descriptor.js";

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
    expect(bundle.overview.participants).toEqual({ human: 2, ai: 2, simulated: 0, system: 1 });
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
    expect(bundle.topics!.tests).toMatchObject([{ comparison: "debate vs control", test: "Welch's t-test (two-sided)" }]);
    expect(bundle.topics!.trees[0].root.children.map((c) => c.children.length)).toEqual([3, 1]);
    expect(bundle.concepts!.rates.map((r) => [r.condition, r.mean])).toEqual([
      ["control", 1.5],
      ["debate", 3.2],
    ]);
    expect(bundle.concepts!.tests).toMatchObject([{ comparison: "debate vs control" }]);
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
      await saveSession(
        bare,
        sessionSchema.parse({ id: "s1", participants: [{ id: "a", name: "A", kind: "human" }], turns: [{ id: "t0", index: 0, speaker: "a", text: "hi" }] }),
      );
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

describe("dashboard numbers are the analysis numbers", () => {
  it("participation and Bales profiles equal what colloquy stats writes for the same sessions and codes", async () => {
    const data = await loadStudyData(dir);
    const { bundle } = assembleReport(data);
    const coded = await loadCodedStudy(dir, "bales-ipa", "rules", { ...diskReader(dir), sessions: async () => data.sessions });
    const stats = buildStats(data.sessions, { data: coded.data, codebook: coded.codebook, coder: "rules" });
    bundle.participation.sessions.forEach((p, i) => {
      const metrics = stats.sessions[i];
      expect(p.session).toBe(metrics.session);
      expect(p.speakers.map((s) => [s.turns, s.words])).toEqual(metrics.participants.map((m) => [m.turns, m.words]));
      expect(p.balance).toBe(metrics.balance.entropyWords);
    });
    const shares = bundle.participation.speakers.map((s) => s.wordShare);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const bales = bundle.bales.find((b) => b.coder === "rules")!;
    const alice = bales.members.find((m) => m.key === "Alice")!;
    const aliceProfiles = stats.codes!.profiles.members.filter((m) => m.name === "Alice");
    expect(alice.total).toBe(aliceProfiles.reduce((n, m) => n + m.profile.acts, 0));
    expect(bales.phases.map((p) => p.total)).toEqual(stats.codes!.phases!.overall.map((t) => t.acts));
    expect(bales.phases.map((p) => p.shares)).toEqual(stats.codes!.phases!.overall.map((t) => t.shares));
  });
});

describe("reading analysis files through the registry", () => {
  it("maps an AgreementReport: pairs with CIs, confusion, F1, disagreement texts", async () => {
    const text = await readFile(join(dir, "analysis", "agreement-bales-ipa.json"), "utf8");
    const read = validateArtifact(agreementFiles.agreement, JSON.parse(text));
    if (read.status !== "ok") throw new Error(JSON.stringify(read));
    const [set] = agreementFromReport("agreement-bales-ipa.json", read.value);
    expect(set.pairs).toEqual([
      { a: "human:alice", b: "rules", n: 10, percent: 0.9, kappa: 0.8667, kappaCI: [0.6, 1], alpha: 0.87, alphaCI: [0.62, 1], ac1: 0.89 },
    ]);
    expect(set.confusion!.matrix[3][4]).toBe(1);
    expect(set.perCategory[0]).toEqual({ code: "gives-suggestion", precision: 1, recall: 0.6667, f1: 0.8, support: 3 });
    expect(set.disagreements[0]).toMatchObject({ session: "d1", speaker: "Builder", text: "Honestly a mix seems best to me." });
    // Undefined statistics are null in the file (NaN once read): they stay absent, never become 0.
    const undefinedKappa = JSON.parse(text);
    undefinedKappa.variables[0].pairs[0].kappa = null;
    const again = validateArtifact(agreementFiles.agreement, undefinedKappa);
    if (again.status !== "ok") throw new Error(JSON.stringify(again));
    expect(again.value.variables[0].pairs[0].kappa).toBeNaN();
    expect(agreementFromReport("agreement-bales-ipa.json", again.value)[0].pairs[0].kappa).toBeUndefined();
  });

  it("missing, old, broken or foreign files become warnings naming the file and field, and the view's empty state", async () => {
    const copy = await mkdtemp(join(tmpdir(), "colloquy-old-"));
    try {
      await writeDashboardFixture(copy);
      const topics = JSON.parse(await readFile(join(copy, "analysis", "topics.json"), "utf8"));
      // An old topics file: bare trees, no merged block, no provenance details.
      await writeFile(join(copy, "analysis", "topics.json"), JSON.stringify({ ...topics, trees: [{ scope: "session", session: "d1", mainTopics: [] }] }));
      await writeFile(join(copy, "analysis", "concepts.json"), JSON.stringify([1, 2]));
      await writeFile(join(copy, "analysis", "agreement-bales-ipa.json"), JSON.stringify({ kind: "something" }));
      await writeFile(join(copy, "analysis", "notes.json"), JSON.stringify({ mine: true }));
      const data = await loadStudyData(copy);
      expect(data.warnings).toEqual([
        expect.stringMatching(/^analysis\/agreement-bales-ipa\.json: kind: .*re-run `colloquy agree` to refresh it$/),
        expect.stringMatching(/^analysis\/concepts\.json: \(root\): .*expected object.*re-run `colloquy concepts`/),
        expect.stringMatching(/^analysis\/topics\.json: trees\[0\]\.key: .*re-run `colloquy topics`/),
      ]);
      const { bundle } = assembleReport(data);
      expect(bundle.topics).toBeNull();
      expect(bundle.concepts).toBeNull();
      expect(bundle.agreement).toEqual([]);
      expect(bundle.empty.agreement).toMatch(/colloquy agree/);
      expect(bundle.empty.topics).toMatch(/colloquy topics/);
      expect(bundle.overview.analysisFiles).toEqual([]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it("takes colloquy compare's numbers and tests for its coder; other coders get the same analysis without tests", async () => {
    const loaded = await loadCodedStudy(dir, "bales-ipa", "rules", diskReader(dir));
    const result = compareConditions(loaded.data, { control: "control" });
    const report: CompareReport = { provenance: provenance(), codebook: { id: "bales-ipa", version: loaded.codebook.version }, coder: "rules", ...result };
    const read = validateArtifact(compareFiles.compare, JSON.parse(JSON.stringify(report)));
    if (read.status !== "ok") throw new Error(JSON.stringify(read));
    const data = await loadStudyData(dir);
    const { bundle } = assembleReport(data);
    const info = bundle.codebooks.find((c) => c.id === "bales-ipa")!;
    const rules = data.codeSets.find((s) => s.coder === "rules" && s.codebook === "bales-ipa")!;
    const computed = buildCompareSet(data.sessions, rules, info, data.config.compare, bundle.conditions);
    if ("empty" in computed) throw new Error(computed.empty);
    const file = { file: "compare-bales-ipa.json", params: ["bales-ipa"], value: read.value };
    const merged = buildCompareSet(data.sessions, rules, info, data.config.compare, bundle.conditions, undefined, file);
    if ("empty" in merged) throw new Error(merged.empty);
    expect(merged.source).toBe("analysis");
    // The file and the computation are the same analysis function: the same cells.
    expect(merged.cells).toEqual(computed.cells);
    expect(merged.cells.find((c) => c.code === "gives-opinion")).toEqual({
      condition: "debate",
      code: "gives-opinion",
      count: 7,
      controlCount: 1,
      pctDiff: 600,
    });
    expect(merged.tests.length).toBe(result.tests.length);
    expect(merged.tests[0]).toMatchObject({ label: expect.stringMatching(/debate vs control · /), test: result.tests[0].test, n: result.tests[0].n });
    // The file's numbers, whatever the records now hold ...
    const noRecords = buildCompareSet(data.sessions, { ...rules, records: [] }, info, data.config.compare, bundle.conditions, undefined, file);
    expect(noRecords).toMatchObject({ source: "analysis", cells: merged.cells });
    // ... but not under settings counting them would refuse: those are said.
    const refused = buildCompareSet(data.sessions, rules, info, { ...data.config.compare, drop: ["no-such-code"] }, bundle.conditions, undefined, file);
    expect(refused).toEqual({ empty: expect.stringMatching(/^Cannot compare conditions with the settings in colloquy\.json: .*no-such-code/) });
    const alice = data.codeSets.find((s) => s.coder === "human:alice" && s.codebook === "bales-ipa")!;
    expect(buildCompareSet(data.sessions, alice, info, data.config.compare, bundle.conditions, undefined, file)).toMatchObject({
      source: "codes",
      coder: "human:alice",
    });
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
