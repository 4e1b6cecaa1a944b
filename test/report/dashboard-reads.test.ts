import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDashboardFixture } from "../../fixtures/dashboard/generate.js";
import { agreementAnalysis, compareAnalysis, conceptsAnalysis, statsAnalysis, topicsAnalysis, type AnalysisDescriptor } from "../../src/analysis/analyses.js";
import { buildStats } from "../../src/analysis/stats/report.js";
import type { ConceptsReport } from "../../src/analysis/concepts/report.js";
import { readConcepts } from "../../src/report/shape/analysis.js";
import { dashboardSchema } from "../../src/report/dashboard-reads.js";
import { loadStudyData } from "../../src/report/load.js";
import { loadCodedStudy } from "../../src/stages/coded.js";
import { diskReader } from "../../src/study/reader.js";
import { provenance } from "../../src/util/provenance.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-dashboard-reads-"));
  await writeDashboardFixture(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const asRead = <T>(analysis: AnalysisDescriptor<T>) => analysis as AnalysisDescriptor<unknown>;

describe("what the build validates of an analysis file", () => {
  it("concepts.json: the dashboard's concepts equal those read with the whole file's schema; a bad first mention is still refused", async () => {
    const json = JSON.parse(await readFile(join(dir, "analysis", "concepts.json"), "utf8"));
    const whole = conceptsAnalysis.result.schema!.safeParse(structuredClone(json));
    const part = dashboardSchema(asRead(conceptsAnalysis))!.safeParse(structuredClone(json));
    if (!whole.success || !part.success) throw new Error("the fixture's concepts.json does not validate");
    const read = (value: unknown) => readConcepts({ file: "concepts.json", params: [], value: value as ConceptsReport }, []);
    expect(read(part.data)).toEqual(read(whole.data));
    expect(read(part.data)?.firstMentions.length).toBeGreaterThan(0);

    const badMention = structuredClone(json);
    badMention.sessions[0].firstMentions[0].start = "soon";
    expect(dashboardSchema(asRead(conceptsAnalysis))!.safeParse(badMention).success).toBe(false);
    // A field the dashboard never reads (a turn's concepts) is left to `colloquy concepts` and its readers.
    const badTurn = structuredClone(json);
    badTurn.sessions[0].turns = "not turns";
    expect(conceptsAnalysis.result.schema!.safeParse(structuredClone(badTurn)).success).toBe(false);
    expect(dashboardSchema(asRead(conceptsAnalysis))!.safeParse(badTurn).success).toBe(true);
  });

  it("concepts.json: every comparison's test is shown in the report's words, its adjusted p named as such", async () => {
    const json = JSON.parse(await readFile(join(dir, "analysis", "concepts.json"), "utf8")) as ConceptsReport;
    // A second comparison whose Holm-adjusted p differs from its own (the view showed the first comparison only, its adjusted p as "p").
    for (const c of json.conditions) c.tests = [...c.tests, { ...c.tests[0], a: "other", p: 0.03, pAdjusted: 0.06 }];
    const tests = readConcepts({ file: "concepts.json", params: [], value: json }, [])!.tests!;
    expect(tests.map((t) => t.comparison)).toEqual(["debate vs control", "other vs control"]);
    expect(tests[1].apa).toContain("Holm-adjusted p = .060 (unadjusted p = .030)");
  });

  it("concepts.json: a test's note (what qualifies its p) is shown, as the report's line shows it", async () => {
    const json = JSON.parse(await readFile(join(dir, "analysis", "concepts.json"), "utf8")) as ConceptsReport;
    const note = "the same people took part in sessions of both conditions, so the sessions are not fully independent: read p with that in mind";
    for (const c of json.conditions) c.tests = c.tests.map((t) => ({ ...t, note }));
    const tests = readConcepts({ file: "concepts.json", params: [], value: json }, [])!.tests!;
    expect(tests[0].apa).toContain(`(${note})`);
  });

  it("stats.json: its provenance is validated (the file list shows it), its rows are not read", async () => {
    const data = await loadStudyData(dir);
    const coded = await loadCodedStudy(dir, "bales-ipa", "rules", { ...diskReader(dir), sessions: async () => data.sessions });
    const json = JSON.parse(
      JSON.stringify({
        provenance: provenance({ command: "stats" }),
        ...buildStats(data.sessions, { data: coded.data, codebook: coded.codebook, coder: "rules" }),
      }),
    );
    const schema = dashboardSchema(asRead(statsAnalysis))!;
    const read = schema.safeParse(structuredClone(json));
    if (!read.success) throw new Error(read.error.message);
    expect((read.data as { provenance: unknown }).provenance).toEqual(json.provenance);
    expect(schema.safeParse({ ...json, provenance: { tool: 3 } }).success).toBe(false);
    expect(schema.safeParse({ ...json, sessions: "not rows" }).success).toBe(true);
  });

  it("other analyses are validated whole, with their own schema", () => {
    for (const analysis of [asRead(agreementAnalysis), asRead(compareAnalysis), asRead(topicsAnalysis)])
      expect(dashboardSchema(analysis)).toBe(analysis.result.schema);
  });
});
