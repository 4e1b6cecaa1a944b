import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgreementReport } from "../../src/analysis/agreement/agree.js";
import type { CompareReport } from "../../src/analysis/compare/compare.js";
import type { StatsReport } from "../../src/analysis/stats/report.js";
import { appendCodes, readCodes } from "../../src/coding/store.js";
import { runCli } from "../support/cli.js";
import { readState } from "../../src/pipeline/state.js";
import { artifacts, writeArtifact } from "../../src/study/artifacts.js";
import { CODEABLE_PER_SESSION, humanCodingStudy } from "./human-coding-study.js";

/** --sessions, --condition and --run on agree, compare and stats: computed on a part, named as such. */

let dir: string;
let study: string;
beforeEach(async () => {
  ({ dir, study } = await humanCodingStudy());
  expect((await runCli(["code", study, "--codebook", "bales-ipa"])).code).toBe(0);
  // human:alice coded the control sessions only, agreeing with the rules on all but every third turn.
  const rules = await readCodes(study, "bales-ipa", "rules");
  await appendCodes(
    study,
    rules
      .filter((r) => r.session.startsWith("control"))
      .map((r, i) => ({ ...r, coder: "human:alice", codes: i % 3 === 0 ? [r.codes![0] === "agrees" ? "disagrees" : "agrees"] : r.codes, provenance: {} })),
  );
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const read = async <T>(file: string): Promise<T> => JSON.parse(await readFile(join(study, "analysis", file), "utf8")) as T;

describe("session filters", () => {
  it("agree --condition / --sessions / --run: agreement on that part only, named in the provenance", async () => {
    const run = await runCli([
      "agree",
      study,
      "--codebook",
      "bales-ipa",
      "--coders",
      "rules,human:alice",
      "--condition",
      "control",
      "--run",
      "2",
      "--bootstrap",
      "0",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("computed on part of the study: condition control; run 2 (1 session(s))");
    const report = await read<AgreementReport>("agreement-bales-ipa.json");
    expect(report.provenance.selection).toEqual({ conditions: ["control"], runs: ["2"], selectedSessions: ["control-2"] });
    expect(report.coverage!.unitsCodedByAll).toBe(CODEABLE_PER_SESSION);
    expect(report.coverage!.unitsCodedByAny).toBe(CODEABLE_PER_SESSION);

    const both = await runCli([
      "agree",
      study,
      "--codebook",
      "bales-ipa",
      "--coders",
      "rules,human:alice",
      "--sessions",
      "control-1,control-2",
      "--bootstrap",
      "0",
      "--json",
    ]);
    expect(both.code).toBe(0);
    expect((JSON.parse(both.stdout) as AgreementReport).coverage!.unitsCodedByAll).toBe(2 * CODEABLE_PER_SESSION);

    // The whole study: rules coded the ai-led sessions too, alice did not.
    const whole = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "rules,human:alice", "--bootstrap", "0", "--json"]);
    const report2 = JSON.parse(whole.stdout) as AgreementReport;
    expect(report2.provenance.selection).toBeUndefined();
    expect(report2.coverage!.unitsCodedByAny).toBe(4 * CODEABLE_PER_SESSION);
  });

  it("a filtered run makes the pipeline forget that stage, so the next `colloquy study` writes the whole-study file again", async () => {
    const finished = { fingerprint: "x", finishedAt: "2026-11-01T00:00:00Z", seconds: 1, summary: "" };
    await writeArtifact(artifacts.state, study, { version: 1, stages: { agree: finished, compare: finished, stats: finished, build: finished }, imported: {} });
    expect(
      (await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "rules,human:alice", "--condition", "control", "--bootstrap", "0"])).code,
    ).toBe(0);
    const stats = await runCli(["stats", study, "--codebook", "bales-ipa", "--coder", "rules", "--sessions", "control-1"]);
    expect(stats.stderr).toBe("");
    expect(stats.code).toBe(0);
    const state = await readState(study);
    expect(Object.keys(state.stages).sort()).toEqual(["build", "compare"]);
  });

  it("an unknown name, an empty selection or a coder absent from the part is a clear error", async () => {
    const agree = (...flags: string[]) => runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "rules,human:alice", "--bootstrap", "0", ...flags]);
    const unknown = await agree("--condition", "contrl");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("--condition contrl: no session of the study has this (there are: ai-led, control)");
    const empty = await agree("--condition", "control", "--sessions", "ai-led-1");
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("no session is in session ai-led-1; condition control at once; the selection is empty");
    const absent = await agree("--condition", "ai-led");
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain('coder human:alice coded no turn of condition ai-led under codebook "bales-ipa"');
    const csv = await runCli(["agree", "--csv", "x.csv", "--raters", "a,b", "--sessions", "s1"]);
    expect(csv.code).toBe(1);
    expect(csv.stderr).toContain("--sessions, --condition and --run select sessions of a study");
  });

  it("compare --run and stats --sessions: computed on the part, provenance and notes say so", async () => {
    const compare = await runCli(["compare", study, "--coder", "rules", "--run", "1", "--control", "control"]);
    expect(compare.stderr).toBe("");
    expect(compare.code).toBe(0);
    expect(compare.stdout).toContain("note: computed on part of the study: run 1 (2 session(s))");
    const report = await read<CompareReport>("compare-bales-ipa.json");
    expect(report.provenance).toMatchObject({ sessions: 2, selection: { runs: ["1"], selectedSessions: ["ai-led-1", "control-1"] } });
    const all = await runCli(["compare", study, "--coder", "rules", "--control", "control", "--json"]);
    const whole = JSON.parse(all.stdout) as CompareReport;
    expect(whole.provenance.sessions).toBe(4);
    expect(whole.provenance.selection).toBeUndefined();
    // Counts on the part are the part's counts.
    const total = (r: CompareReport) => r.frequencies.byCondition.reduce((n, row) => n + row.total, 0);
    expect(total(report) * 2).toBe(total(whole));

    const stats = await runCli(["stats", study, "--coder", "rules", "--sessions", "control-1"]);
    expect(stats.stderr).toBe("");
    expect(stats.code).toBe(0);
    const s = await read<StatsReport>("stats.json");
    expect(s.sessions.map((x) => x.session)).toEqual(["control-1"]);
    expect(s.provenance).toMatchObject({ sessions: 1, selection: { sessions: ["control-1"], selectedSessions: ["control-1"] } });
    expect(s.notes[0]).toBe("computed on part of the study: session control-1 (1 session(s))");
    const none = await runCli(["compare", study, "--coder", "human:alice", "--condition", "ai-led"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("human:alice coded no turn of condition ai-led");
  });
});
