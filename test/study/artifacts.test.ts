import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { writeDashboardFixture } from "../../fixtures/dashboard/generate.js";
import { artifacts, identifyArtifact, loadArtifact, readArtifact, validateArtifact, writeArtifact } from "../../src/study/artifacts.js";
import type { Artifact } from "../../src/util/artifact.js";
import { loadSessions, sessionPath, studyPaths } from "../../src/study/study.js";
import { codesPath, failuresPath } from "../../src/coding/store.js";
import { agreeStudy } from "../../src/stages/agree.js";
import { loadCodedStudy } from "../../src/stages/coded.js";
import { diskReader } from "../../src/study/reader.js";
import { compareConditions } from "../../src/analysis/compare/compare.js";
import { buildStats } from "../../src/analysis/stats/report.js";
import { buildTopicsReport } from "../../src/analysis/topics/report.js";
import { buildConceptsReport } from "../../src/analysis/concepts/report.js";
import {
  readTopicsReport,
  writeAgreement,
  writeCompareReport,
  writeConceptsReport,
  writeStatsReport,
  writeTopicsReport,
} from "../../src/stages/analysis-files.js";
import { createConceptExtractor } from "../../src/analysis/concepts/extract.js";
import { provenance } from "../../src/util/provenance.js";
import { analyses } from "../../src/analysis/analyses.js";
import { reportFiles } from "../../src/report/files.js";
import { agreementFiles } from "../../src/analysis/agreement/descriptor.js";
import { compareFiles } from "../../src/analysis/compare/descriptor.js";
import { statsFiles } from "../../src/analysis/stats/descriptor.js";
import { topicsFiles } from "../../src/analysis/topics/descriptor.js";
import { conceptsFiles } from "../../src/analysis/concepts/descriptor.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-artifacts-"));
  await writeDashboardFixture(dir);
  // Replace the fixture's hand-written analysis files with what the real writers write.
  const sessions = await loadSessions(dir);
  await writeAgreement(dir, await agreeStudy({ study: dir, codebook: "bales-ipa", coders: ["human:alice", "rules"], bootstrap: 50 }));
  const coded = await loadCodedStudy(dir, "bales-ipa", "rules", diskReader(dir));
  const compared = compareConditions(coded.data, { control: "control" });
  const codebook = { id: coded.codebook.id, version: coded.codebook.version };
  await writeCompareReport(dir, { provenance: provenance({ command: "compare" }), codebook, coder: "rules", ...compared });
  await writeStatsReport(dir, {
    provenance: provenance({ command: "stats" }),
    ...buildStats(sessions, { data: coded.data, codebook: coded.codebook, coder: "rules" }),
  });
  const extractor = createConceptExtractor();
  await writeTopicsReport(dir, await buildTopicsReport(sessions, { coder: "rules", scope: "session", speakers: "all", runs: 1, extractor }));
  await writeConceptsReport(dir, buildConceptsReport(sessions, extractor, { speakers: "all", rateBasis: "session" }));
  await writeArtifact(artifacts.state, dir, {
    version: 1,
    stages: { code: { fingerprint: "abc", finishedAt: "2026-01-01T00:00:00Z", seconds: 1.5, summary: "coded" } },
    imported: { "inbox/a.csv": "f00" },
  });
  await writeArtifact(artifacts.importMap, dir, { ...provenance({ note: "fixture" }), sessions: { "a.csv#1": "d1" } });
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The study's own files, the analyses' and the report's. */
const everyKind: Artifact[] = [...(Object.values(artifacts) as Artifact[]), ...analyses.flatMap((a) => a.artifacts), ...Object.values(reportFiles)];

describe("the registry names every file once", () => {
  it("builds paths and reads names back", () => {
    expect(statsFiles.stats.relative()).toBe("analysis/stats.json");
    expect(agreementFiles.agreement.path(dir, "bales-ipa")).toBe(join(dir, "analysis", "agreement-bales-ipa.json"));
    expect(artifacts.codes.relative("bales-ipa", "human:alice")).toBe("codes/bales-ipa/human%3Aalice.jsonl");
    expect(artifacts.config.path(dir)).toBe(studyPaths(dir).config);
    expect(artifacts.state.path(dir)).toBe(studyPaths(dir).state);
    expect(sessionPath(dir, "d1")).toBe(artifacts.session.path(dir, "d1"));
    expect(codesPath(dir, "bales-ipa", "human:alice")).toBe(artifacts.codes.path(dir, "bales-ipa", "human:alice"));
    expect(failuresPath(dir, "bales-ipa", "llm")).toBe(artifacts.codeFailures.path(dir, "bales-ipa", "llm"));
    // Every kind reads its own names back: fixed names, one codebook id, or codebook and coder.
    const samples = [[], ["bales-ipa"], ["bales-ipa", "human:a b"]];
    const special: Record<string, string[]> = {
      tornBytes: ["bales-ipa/human%3Aa%20b.jsonl", "2024-05-01T12-00-00-000Z"],
      sessionBackup: ["d1.x", "replaced", "2024-05-01T12-00-00-000Z-2"],
      paperReport: ["html"],
      paperReportTable: ["compare-bales-ipa-tests"],
    };
    for (const artifact of everyKind) {
      const params = special[artifact.name] ?? samples[artifact.file.length];
      expect(artifact.match(artifact.file(...params))).toEqual(params);
    }
  });

  it("tells the kinds apart by name", () => {
    const kind = (folder: Artifact["folder"], file: string) => {
      const found = identifyArtifact(folder, file, everyKind);
      return found && [found.artifact.name, ...found.params];
    };
    expect(kind("analysis", "compare-bales-ipa.json")).toEqual(["compare", "bales-ipa"]);
    expect(kind("analysis", "compare-bales-ipa-tests.csv")).toEqual(["compareTests", "bales-ipa"]);
    expect(kind("analysis", "agreement-pragmatic-style.json")).toEqual(["agreement", "pragmatic-style"]);
    expect(kind("analysis", "agreement-bales-ipa-disagreements.csv")).toEqual(["agreementDisagreements", "bales-ipa"]);
    expect(kind("analysis", "stats.json")).toEqual(["stats"]);
    expect(kind("analysis", "notes.json")).toBeNull();
    expect(kind("codes", "bales-ipa/human%3Aalice.jsonl")).toEqual(["codes", "bales-ipa", "human:alice"]);
    expect(kind("codes", "bales-ipa/llm.failures.jsonl")).toEqual(["codeFailures", "bales-ipa", "llm"]);
    expect(kind("codes", "bales-ipa/llm.jsonl.torn-2024-05-01T12-00-00-000Z")).toEqual(["tornBytes", "bales-ipa/llm.jsonl", "2024-05-01T12-00-00-000Z"]);
    expect(kind("codes", "bales-ipa/llm.failures.jsonl.torn-2024-05-01T12-00-00-000Z")).toEqual([
      "tornBytes",
      "bales-ipa/llm.failures.jsonl",
      "2024-05-01T12-00-00-000Z",
    ]);
    expect(kind("backups", "d1.failed-2024-05-01T12-00-00-000Z.json")).toEqual(["sessionBackup", "d1", "failed", "2024-05-01T12-00-00-000Z"]);
    expect(kind("sessions", "d1.json")).toEqual(["session", "d1"]);
    expect(kind("sessions", ".d1.json.tmp")).toBeNull();
    expect(kind("", ".colloquy-imports.json")).toEqual(["importMap"]);
  });

  it("is the only place in src/ that spells a study file's name", async () => {
    const names =
      /stats\.json|topics\.json|concepts\.json|concepts\.csv|stats-(sessions|participants)\.csv|topics-review\.csv|agreement-\$\{|compare-\$\{|\.colloquy-(state|imports)\.json/;
    const root = fileURLToPath(new URL("../../src", import.meta.url));
    const offenders: string[] = [];
    for (const entry of await readdir(root, { recursive: true })) {
      const file = String(entry);
      // The registry: the study's files, each analysis's (its descriptor) and the report's.
      if (
        !file.endsWith(".ts") ||
        file === join("study", "artifacts.ts") ||
        file === join("report", "files.ts") ||
        /^analysis\/\w+\/descriptor\.ts$/.test(file)
      )
        continue;
      // Comments may name files (documentation); code may not.
      const code = (await readFile(join(root, file), "utf8")).replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
      if (names.test(code)) offenders.push(relative(root, join(root, file)));
    }
    expect(offenders).toEqual([]);
  });
});

describe("schemas accept what the real writers write", () => {
  it.each(analyses.map((d) => [d.result.name, d.result as Artifact] as const))("%s", async (_name, artifact) => {
    const analysis = await readdir(studyPaths(dir).analysis);
    const files = analysis.filter((f) => artifact.match(f) !== null);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const read = await loadArtifact(artifact as Artifact<string[], unknown>, dir, ...artifact.match(file)!);
      expect(read.status === "ok" ? "ok" : read).toBe("ok");
    }
  });

  it("study files: sessions, code records, config, pipeline state, import map", async () => {
    for (const id of ["c1", "d1", "xss"]) expect((await loadArtifact(artifacts.session, dir, id)).status).toBe("ok");
    const lines = (await readFile(artifacts.codes.path(dir, "bales-ipa", "human:alice"), "utf8")).trim().split("\n");
    for (const line of lines) expect(artifacts.codes.schema!.safeParse(JSON.parse(line)).success).toBe(true);
    for (const artifact of [artifacts.config, artifacts.state, artifacts.importMap] as Artifact<[], unknown>[]) {
      expect((await loadArtifact(artifact, dir)).status).toBe("ok");
    }
    expect((await readTopicsReport(dir)).trees.length).toBeGreaterThan(0);
  });
});

describe("schemas reject wrong or old files, naming the first invalid field", () => {
  const mangled = async <T>(artifact: Artifact<string[], T>, params: string[], mangle: (value: any) => void) => {
    const value = JSON.parse(await readFile(artifact.path(dir, ...params), "utf8"));
    mangle(value);
    const read = validateArtifact(artifact, value);
    return read.status === "invalid" ? read.problem : read.status;
  };

  it("stats.json", async () => {
    expect(await mangled(statsFiles.stats, [], (v) => (v.sessions[0].words = "many"))).toMatch(/^sessions\[0\]\.words: .*expected number, received string/);
    expect(await mangled(statsFiles.stats, [], (v) => delete v.codes.phases.overall[0].categories)).toMatch(/^codes\.phases\.overall\[0\]\.categories: /);
  });

  it("compare-<codebook>.json", async () => {
    expect(await mangled(compareFiles.compare, ["bales-ipa"], (v) => delete v.differences)).toMatch(/^differences: .*expected object/);
    expect(await mangled(compareFiles.compare, ["bales-ipa"], (v) => (v.options.design = "crossover"))).toMatch(/^options\.design: /);
  });

  it("agreement-<codebook>.json", async () => {
    expect(await mangled(agreementFiles.agreement, ["bales-ipa"], (v) => delete v.variables[0].pairs[0].n)).toMatch(/^variables\[0\]\.pairs\[0\]\.n: /);
    expect(await mangled(agreementFiles.agreement, ["bales-ipa"], (v) => (v.kind = "compare"))).toMatch(/^kind: /);
  });

  it("topics.json", async () => {
    expect(await mangled(topicsFiles.topics, [], (v) => (v.trees[0].merged.mainTopics[0].label = 3))).toMatch(/^trees\[0\]\.merged\.mainTopics\[0\]\.label: /);
    expect(await mangled(topicsFiles.topics, [], (v) => (v.conditions[0].byCondition.control.n = null))).toMatch(/^conditions\[0\]\.byCondition\.control\.n: /);
  });

  it("concepts.json", async () => {
    expect(await mangled(conceptsFiles.concepts, [], (v) => (v.provenance.rateBasis = "weekly"))).toMatch(/^provenance\.rateBasis: /);
    expect(await mangled(conceptsFiles.concepts, [], (v) => delete v.sessions[0].participants[0].mtld)).toMatch(/^sessions\[0\]\.participants\[0\]\.mtld: /);
  });

  it("pipeline state and import map", async () => {
    expect(await mangled(artifacts.state, [], (v) => (v.version = 2))).toMatch(/^version: /);
    expect(await mangled(artifacts.importMap, [], (v) => (v.sessions = ["d1"]))).toMatch(/^sessions: /);
  });

  it("a JSON artifact's per-session arrays (lineArrays) are written one compact entry per line, the rest as JSON.stringify indents it, and read back as written", async () => {
    const lined = [...Object.values(artifacts), ...analyses.flatMap((a) => a.artifacts)].filter((a) => a.lineArrays);
    expect(lined.map((a) => `${a.name}: ${a.lineArrays!.join(", ")}`).sort()).toEqual([
      "agreement: disagreements.rows",
      "compare: units",
      "concepts: sessions",
      "stats: sessions, codes.profiles.members, codes.phases.sessions, codes.segments.sessions, codes.sequences",
      "topics: trees",
    ]);
    for (const artifact of lined as Artifact<string[], unknown>[]) {
      // As its analysis wrote it (concepts through its own writer) ...
      const name = (await readdir(join(dir, "analysis"))).sort().find((f) => artifact.match(f))!;
      const text = await readFile(join(dir, "analysis", name), "utf8");
      const value = JSON.parse(text) as Record<string, unknown>;
      const lines = text.split("\n");
      const entryLines = new Set<string>();
      for (const path of artifact.lineArrays!) {
        const entries = path.split(".").reduce<any>((v, key) => v[key], value) as unknown[];
        expect(entries.length, `${artifact.name} ${path}`).toBeGreaterThan(0);
        // Each entry on its own line, one after the other, under its member's key.
        const indent = "  ".repeat(path.split(".").length);
        const key = lines.findIndex(
          (l, i) =>
            l === `${indent}${JSON.stringify(path.split(".").at(-1))}: [` &&
            lines[i + 1] === `${indent}  ${JSON.stringify(entries[0])}${entries.length > 1 ? "," : ""}`,
        );
        expect(key, `${artifact.name} ${path}`).toBeGreaterThan(0);
        entries.forEach((e, i) => {
          expect(lines[key + 1 + i]).toBe(`${indent}  ${JSON.stringify(e)}${i < entries.length - 1 ? "," : ""}`);
          entryLines.add(lines[key + 1 + i]);
        });
      }
      // ... every other line as JSON.stringify(value, null, 2) writes it ...
      const pretty = new Set(JSON.stringify(value, null, 2).split("\n"));
      const closers = new Set(["", ...["]", "],"].flatMap((c) => [1, 2, 3, 4].map((n) => "  ".repeat(n) + c))]);
      expect(lines.filter((l) => !entryLines.has(l) && !pretty.has(l) && !closers.has(l))).toEqual([]);
      // ... and as writeArtifact writes it: the same bytes, read back as the same value.
      const copy = await mkdtemp(join(tmpdir(), "colloquy-artifacts-lines-"));
      const params = artifact.match(name)!;
      await writeArtifact(artifact, copy, value, ...params);
      expect(await readFile(artifact.path(copy, ...params), "utf8")).toBe(text);
      expect(await readArtifact(artifact, copy, ...params)).toEqual(await readArtifact(artifact, dir, ...params));
    }
  });

  it("readArtifact names the file, the field and the command that rewrites it", async () => {
    const copy = await mkdtemp(join(tmpdir(), "colloquy-artifacts-bad-"));
    try {
      await writeFile(join(copy, "colloquy.json"), "{}");
      await expect(readArtifact(topicsFiles.topics, copy)).rejects.toThrow(/topics\.json: not there yet; run `colloquy topics /);
      await writeArtifact(topicsFiles.topics, copy, { trees: "none" } as never);
      await expect(readArtifact(topicsFiles.topics, copy)).rejects.toThrow(/topics\.json: provenance: .*re-run `colloquy topics /);
      await writeFile(statsFiles.stats.path(copy), "{ half");
      expect(await loadArtifact(statsFiles.stats, copy)).toMatchObject({ status: "invalid", problem: expect.stringMatching(/^not readable JSON/) });
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
