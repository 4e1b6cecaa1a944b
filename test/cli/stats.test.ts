import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import type { StatsReport } from "../../src/analysis/stats/report.js";
import { pairedStudyOnDisk } from "./compare-study.js";

describe("colloquy stats", () => {
  it("writes stats.json and the two CSVs, and prints per-condition tables", async () => {
    const dir = await pairedStudyOnDisk();
    const run = await runCli(["stats", dir]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Sessions per condition");
    expect(run.stdout).toContain("Bales ratios per condition");
    expect(run.stdout).toContain("Phase movement");
    const report = JSON.parse(await readFile(join(dir, "analysis", "stats.json"), "utf8")) as StatsReport;
    expect(report.provenance).toMatchObject({ tool: "colloquy", command: "stats", sessions: 10, coder: "rules", codebook: { id: "bales-ipa" } });
    expect(report.sessions).toHaveLength(10);
    // ai-r1: Alice 3 opinions + 1 agrees, Bob 2 opinions = 6 turns.
    expect(report.sessions.find((s) => s.session === "ai-r1")).toMatchObject({ turns: 6, members: 2, durationSeconds: null });
    expect(report.conditions.map((c) => [c.condition, c.sessions])).toEqual([
      ["ai", 5],
      ["control", 5],
    ]);
    expect(report.codes!.profiles.conditions.find((c) => c.condition === "ai")!.profile.counts["gives-opinion"]).toBe(41);
    expect(report.codes!.sequences).toHaveLength(10);
    expect(report.definitions.words).toMatch(/Han/);
    const sessionsCsv = await readFile(join(dir, "analysis", "stats-sessions.csv"), "utf8");
    expect(sessionsCsv.split("\n")[0]).toMatch(/^session,condition,run,members,turns,words/);
    expect(sessionsCsv.trim().split("\n")).toHaveLength(11);
    const participantsCsv = await readFile(join(dir, "analysis", "stats-participants.csv"), "utf8");
    expect(participantsCsv.trim().split("\n")).toHaveLength(21);
  });

  it("takes the codebook and coder colloquy.json names once a second coder exists, as compare does", async () => {
    const dir = await pairedStudyOnDisk({}, ["rules", "human:alice"]);
    for (const command of ["stats", "compare"]) {
      const run = await runCli([command, dir, "--json"]);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).provenance).toMatchObject({ codebook: { id: "bales-ipa" }, coder: "rules" });
    }
  });

  it("works without codes (metrics only, with a note) and prints JSON with --json", async () => {
    const dir = await pairedStudyOnDisk({}, []);
    const run = await runCli(["stats", dir, "--json"]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as StatsReport;
    expect(report.codes).toBeNull();
    expect(report.notes.join(" ")).toMatch(/no Bales or sequence analyses: the study has no codes of a nominal codebook yet \(run `colloquy code /);
    expect(report.sessions).toHaveLength(10);
  });

  it("fails clearly for an explicit codebook without codes, a scales codebook or a missing study", async () => {
    const dir = await pairedStudyOnDisk({}, []);
    const none = await runCli(["stats", dir, "--codebook", "bales-ipa"]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("no codes for codebook");
    const scales = await runCli(["stats", dir, "--codebook", "pragmatic-style"]);
    expect(scales.stderr).toContain("rates scales");
    const missing = await runCli(["stats", join(dir, "nope")]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("no such study folder");
  });
});
