import { afterEach, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Papa from "papaparse";
import { runCli } from "../support/cli.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { gardenLines, makeSession, makeStudy } from "../analysis/topics/fixture.js";
import type { TopicsReport } from "../../src/analysis/topics/report.js";
import { readCodes } from "../../src/coding/store.js";

const readReport = async (study: string) => JSON.parse(await readFile(join(study, "analysis", "topics.json"), "utf8")) as TopicsReport;

describe("colloquy topics (rules, offline)", () => {
  it("writes analysis/topics.json with per-tree, per-session and per-condition results", async () => {
    const study = await makeStudy([makeSession("a1", "A", gardenLines), makeSession("b1", "B", gardenLines.slice(0, 4))], { compare: { design: "within" } });
    const run = await runCli(["topics", study]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("rules, deterministic baseline; scope session");
    expect(run.stdout).toMatch(/a1\tA\t4\t6\t1\.50\t–\t1\.50-1\.50/);
    const report = await readReport(study);
    expect(report.provenance).toMatchObject({ tool: "colloquy", coder: "rules", scope: "session", speakers: "human", runs: 1 });
    expect(report.sessions.map((s) => [s.session, s.branchingRatio])).toEqual([
      ["a1", 1.5],
      ["b1", report.trees[1].branching.mean],
    ]);
    const br = report.conditions.find((c) => c.measure === "branchingRatio")!;
    // A session's tree is one observation of that session, even in a declared within design: it is
    // not copied to alice and bob to make two "pairs" of two sessions. 1 vs 1 session: too few.
    expect(br).toMatchObject({ level: "session", unit: "session", design: "between", designSource: "colloquy.json" });
    expect(br.tests).toHaveLength(1);
    expect(br.tests[0]).toMatchObject({ a: "B", b: "A", test: "permutation", n: 2, nA: 1, nB: 1, p: null });
    expect(br.tests[0].skipped).toMatch(/1 vs 1 sessions: too few to test/);

    const json = await runCli(["topics", study, "--scope", "participant", "--json"]);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as TopicsReport;
    // One tree per person: the declared design pairs alice and bob across the conditions.
    const perPerson = parsed.conditions.find((c) => c.measure === "branchingRatio")!;
    expect(perPerson).toMatchObject({ level: "participant", unit: "participant", design: "within" });
    expect(perPerson.tests[0]).toMatchObject({ a: "B", b: "A", test: "paired-permutation", n: 2 });
    expect(parsed.participants.map((p) => p.name)).toEqual(["Alice", "Bob", "Alice", "Bob"]);
    expect(parsed.participants[0].branchingRatio).toBeCloseTo(4 / 3, 12);
  });

  it("exports a review sheet and imports reviewers' judgements (agreement-ready code records)", async () => {
    const study = await makeStudy([makeSession("a1", "A", gardenLines)]);
    expect((await runCli(["topics", study])).code).toBe(0);
    const sheet = join(study, "review.csv");
    const exported = await runCli(["topics", "export", study, "--out", sheet]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("Wrote 6 sub-topic row(s)");
    const rows = Papa.parse<Record<string, string>>(await readFile(sheet, "utf8"), { header: true, skipEmptyLines: true }).data;
    expect(rows.map((r) => [r.main_topic, r.subtopic_id, r.subtopic, r.turns])).toEqual([
      ["community garden", "m1.s1", "garden", "t0001"],
      ["community garden", "m1.s2", "compost bin", "t0001"],
      ["community garden", "m1.s3", "kitchen scrap", "t0001"],
      ["bed", "m2.s1", "child", "t0003"],
      ["bed", "m2.s2", "herb", "t0003"],
      ["rain barrel", "m4.s1", "pump", "t0005"],
    ]);
    const fill = (reviewer: string, judgements: string[][]) =>
      Papa.unparse(
        rows.map((r, i) => ({ ...r, judgement: judgements[i][0], merge_into: judgements[i][1] ?? "", new_label: judgements[i][2] ?? "", reviewer })),
        { newline: "\n" },
      );
    const a = join(study, "ann.csv");
    const b = join(study, "ben.csv");
    await writeFile(a, fill("ann", [["merge", "m1"], ["keep"], ["keep"], ["rename", "", "children"], ["reject"], ["keep"]]));
    await writeFile(b, fill("ben", [["merge", "m1"], ["keep"], ["reject"], ["keep"], ["reject"], [""]]));
    const imported = await runCli(["topics", "import", study, a, b]);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain("Imported 11 judgement(s) from 2 file(s) (1 row(s) left blank)");
    // Majority per sub-topic (ties toward keep): s1 merge, s2 keep, s3 keep (keep vs reject tie),
    // m2.s1 keep (rename vs keep tie: keep), m2.s2 reject, m4.s1 keep: 6 - 2 = 4 sub-topics / 4.
    const report = await readReport(study);
    expect(report.trees[0].reviewed).toMatchObject({ reviewers: ["human:ann", "human:ben"], subtopics: 4, mainTopics: 4, branchingRatio: 1 });
    expect(report.trees[0].reviewed!.decisions["m1.s1"]).toMatchObject({ judgement: "merge", mergeInto: "m1", votes: 2 });
    expect(report.sessions[0].reviewedBranchingRatio).toBe(1);
    expect(report.conditions.map((c) => c.measure)).toContain("reviewedBranchingRatio");
    const ann = await readCodes(study, "topic-review", "human:ann");
    expect(ann.find((r) => r.turn === "m2.s1")).toMatchObject({ session: "a1", codes: ["rename"], provenance: { newLabel: "children", line: 5 } });

    const agree = await runCli(["agree", study, "--codebook", "topic-review", "--coders", "human:ann,human:ben", "--json", "--bootstrap", "0"]);
    expect(agree.code).toBe(0);
    expect(agree.stdout).toContain("topic-review");
  });

  it("reports bad judgements by file and line and imports nothing", async () => {
    const study = await makeStudy([makeSession("a1", "A", gardenLines)]);
    await runCli(["topics", study]);
    const sheet = join(study, "review.csv");
    await runCli(["topics", "export", study, "--out", sheet]);
    const lines = (await readFile(sheet, "utf8")).trim().split("\n");
    lines[2] = lines[2].replace(/,,,,$/, ",kepp,,,cat");
    lines[3] = lines[3].replace(/,,,,$/, ",merge,,,cat");
    lines[4] = lines[4].replace(/,,,,$/, ",keep,,,");
    await writeFile(sheet, lines.join("\n") + "\n");
    const run = await runCli(["topics", "import", study, sheet]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${sheet}:3: judgement "kepp" is not one of keep, merge, rename, reject`);
    expect(run.stderr).toContain(`${sheet}:4: judgement "merge" needs merge_into`);
    expect(run.stderr).toContain(`${sheet}:5: reviewer is empty`);
    expect(await readCodes(study, "topic-review", "human:cat")).toEqual([]);
    expect((await runCli(["topics", "export", join(study, "nope")])).stderr).toMatch(/no such study folder|no topic trees yet/);
  });
});

describe("colloquy topics --coder llm", () => {
  let server: OpenAiServer;
  afterEach(async () => server?.close());

  it("extracts through an OpenAI-compatible endpoint and exits non-zero when a run failed", async () => {
    server = await startOpenAiServer();
    const good = JSON.stringify({
      mainTopics: [
        {
          label: "Garden",
          turns: ["t0000"],
          subtopics: [
            { label: "Beds", turns: ["t0000"] },
            { label: "Compost", turns: ["t0001"] },
          ],
        },
      ],
    });
    server.setHandler((req) => ({ content: req.body.seed === 1 ? "no" : good }));
    const study = await makeStudy([makeSession("a1", "A", gardenLines)]);
    const run = await runCli(["topics", study, "--coder", "llm", "--runs", "2", "--base-url", server.url, "--model", "test-model"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/1 topic run\(s\) failed and were left out/);
    expect(run.stdout).toMatch(/failed: a1 run 2: invalid reply after one re-ask: not valid JSON/);
    const report = await readReport(study);
    expect(report.trees[0].branching).toMatchObject({ mean: 2, n: 1, failedRuns: 1 });
    expect(report.provenance).toMatchObject({ coder: "llm", runs: 2, model: { model: "test-model" } });
    expect(JSON.stringify(report)).not.toMatch(/sk-/);

    server.setHandler(() => ({ content: good }));
    const rerun = await runCli(["topics", study, "--coder", "llm", "--runs", "2", "--base-url", server.url, "--model", "test-model"]);
    expect(rerun.code).toBe(0);
    expect((await readReport(study)).trees[0].branching).toMatchObject({ mean: 2, sd: 0, n: 2, failedRuns: 0 });
  });

  it("--via batch submits the topic runs' requests; collect writes the report, re-asking an invalid reply online", async () => {
    server = await startOpenAiServer();
    const good = JSON.stringify({
      mainTopics: [
        {
          label: "Garden",
          turns: ["t0000"],
          subtopics: [
            { label: "Beds", turns: ["t0000"] },
            { label: "Compost", turns: ["t0001"] },
          ],
        },
      ],
    });
    let invalid = 0;
    server.setHandler((req) => ({ content: req.body.seed === 1 && invalid++ === 0 ? "no" : good }));
    const study = await makeStudy([makeSession("a1", "A", gardenLines)]);
    const endpoint = ["--base-url", server.url, "--model", "test-model"];
    const dry = await runCli(["topics", study, "--coder", "llm", "--runs", "2", ...endpoint, "--via", "batch", "--dry-run"]);
    expect(dry.stdout).toContain("2 request(s) would go to the batch");
    expect(server.requests.filter((r) => r.path !== "/v1/models")).toHaveLength(0);
    const submit = await runCli(["topics", study, "--coder", "llm", "--runs", "2", ...endpoint, "--via", "batch"]);
    expect(submit.code, submit.stderr).toBe(0);
    expect(submit.stdout).toContain("2 request(s) went to the batch");
    expect(server.chatCount).toBe(0);
    await runCli(["batch", "status", study, "--base-url", server.url]);
    const collect = await runCli(["batch", "collect", study, "--base-url", server.url]);
    expect(collect.code, collect.stderr).toBe(0);
    expect(collect.stdout).toMatch(/topics: 1 tree\(s\), 0 failed run\(s\)/);
    expect(server.batchCount).toBe(2);
    expect(server.chatRequests()).toHaveLength(1); // the re-ask of the invalid batch reply
    const report = await readReport(study);
    expect(report.trees[0].branching).toMatchObject({ mean: 2, n: 2, failedRuns: 0 });
  });
});
