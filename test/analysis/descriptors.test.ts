// The analysis descriptors (src/analysis/<analysis>/descriptor.ts, listed in src/analysis/analyses.ts)
// against what they describe: the artifact registry, the pipeline's stages and the dashboard's views.
import { describe, expect, it } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { analyses, agreementAnalysis, compareAnalysis, type StudyFacts } from "../../src/analysis/analyses.js";
import { artifacts } from "../../src/study/artifacts.js";
import { STUDY_FOLDERS, type Artifact } from "../../src/util/artifact.js";
import { studyConfigSchema } from "../../src/study/config.js";
import { studyStages } from "../../src/pipeline/stages.js";
import { NO_CONDITION } from "../../src/analysis/shared/table.js";
import { topicsFiles } from "../../src/analysis/topics/descriptor.js";
import { reportFiles } from "../../src/report/files.js";

/** Files in analysis/ that no analysis stage writes: the study report and the topics review sheet, written on request. */
const EXPORTS: Artifact[] = [reportFiles.paperReport, reportFiles.paperReportTable, topicsFiles.topicsReview];

describe("analysis descriptors", () => {
  it("own the files of analysis/ (the study registry holds none), each once, each written by the descriptor's stage", () => {
    expect((Object.values(artifacts) as Artifact[]).filter((a) => a.folder === STUDY_FOLDERS.analysis)).toEqual([]);
    const described = analyses.flatMap((d) => d.artifacts.map((artifact) => ({ d, artifact })));
    expect(new Set(described.map((x) => x.artifact.name)).size).toBe(described.length);
    for (const { d, artifact } of described) {
      expect(artifact.folder, artifact.name).toBe(STUDY_FOLDERS.analysis);
      expect(artifact.writtenBy, artifact.name).toBe(`colloquy ${d.stage}`);
    }
    // A file name belongs to one kind of file only (analysis files and exports alike).
    const all = [...described.map((x) => x.artifact), ...EXPORTS];
    for (const artifact of all) {
      const name = artifact.file(...(artifact.file.length === 0 ? [] : artifact.name === "paperReport" ? ["md"] : ["bales-ipa"]));
      expect(
        all.filter((other) => other.match(name)).map((a) => a.name),
        name,
      ).toEqual([artifact.name]);
    }
  });

  it("each result is a JSON artifact with a schema, among the descriptor's own artifacts", () => {
    for (const d of analyses) {
      expect(d.artifacts, d.id).toContain(d.result);
      expect(d.result.format, d.id).toBe("json");
      expect(d.result.schema, d.id).not.toBeNull();
    }
  });

  it("have distinct ids and results; each stage is a stage of colloquy study that runs before build", () => {
    expect(new Set(analyses.map((d) => d.id)).size).toBe(analyses.length);
    expect(new Set(analyses.map((d) => d.result)).size).toBe(analyses.length);
    const order = studyStages.map((s) => s.name);
    for (const d of analyses) {
      expect(order, d.id).toContain(d.stage);
      expect(order.indexOf(d.stage), d.id).toBeLessThan(order.indexOf("build"));
    }
  });

  it("name views the dashboard has (web/views/)", async () => {
    const dir = join(import.meta.dirname, "../../web/views");
    const titles: string[] = [];
    for (const file of await readdir(dir)) {
      for (const m of (await readFile(join(dir, file), "utf8")).matchAll(/^\s*title: "([^"]+)",$/gm)) titles.push(m[1]);
    }
    expect(titles).toContain("Agreement");
    for (const d of analyses) {
      expect(d.views.length, d.id).toBeGreaterThan(0);
      for (const view of d.views) expect(titles, `${d.id}: ${view}`).toContain(view);
    }
  });
});

describe("emptyWhen: when a view will be empty, and how to fill it", () => {
  const facts = (conditions: string[], config: Record<string, unknown> = {}): StudyFacts => ({
    sessions: [],
    conditions,
    config: studyConfigSchema.parse({ version: 1, ...config }),
    configFile: "study/colloquy.json",
  });

  it("comparisons: one condition, no control, a control that is no condition; nothing when the control is there", () => {
    expect(compareAnalysis.emptyWhen!(facts([NO_CONDITION]))).toMatch(/^every session is in no condition, .*--condition on `colloquy import`/);
    expect(compareAnalysis.emptyWhen!(facts(["a"]))).toMatch(/^every session is in condition "a"/);
    expect(compareAnalysis.emptyWhen!(facts(["a", "b"]))).toMatch(
      /^no control condition\. Set "compare": \{"control": "a"\} in study\/colloquy\.json \(conditions: a, b\)/,
    );
    // A condition named control is the one suggested, not the first in alphabetical order.
    expect(compareAnalysis.emptyWhen!(facts(["asks_opinion", "control", "shows_solidarity"]))).toMatch(
      /^no control condition\. Set "compare": \{"control": "control"\}/,
    );
    expect(compareAnalysis.emptyWhen!(facts(["a", "b"], { compare: { control: "c" } }))).toMatch(
      /^the control "c" .* is not a condition of the study \(a, b\)/,
    );
    expect(compareAnalysis.emptyWhen!(facts(["a", "b"], { compare: { control: "ab", conditionGroups: { ab: ["a", "b"] } } }))).toBeUndefined();
    expect(compareAnalysis.emptyWhen!(facts(["a", "b"], { compare: { control: "a" } }))).toBeUndefined();
  });

  it("agreement: only one coder per codebook; nothing with human coders or two machine coders", () => {
    const one = { codebooks: [{ codebook: "bales-ipa", coders: ["rules"] }] };
    expect(agreementAnalysis.emptyWhen!(facts(["a"], one))).toMatch(/^only one coder per codebook\. .*"humanCoders" in study\/colloquy\.json/);
    expect(agreementAnalysis.emptyWhen!(facts(["a"], { ...one, humanCoders: ["human:alice"] }))).toBeUndefined();
    expect(agreementAnalysis.emptyWhen!(facts(["a"], { codebooks: [{ codebook: "bales-ipa", coders: ["rules", "llm"] }] }))).toBeUndefined();
  });
});
