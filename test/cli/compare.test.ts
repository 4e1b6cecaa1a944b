import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import type { CompareReport } from "../../src/analysis/compare/compare.js";
import { pairedStudyOnDisk } from "./compare-study.js";

describe("colloquy compare", () => {
  it("writes compare-<codebook>.json with provenance and CSVs, and prints a summary", async () => {
    const dir = await pairedStudyOnDisk();
    const run = await runCli(["compare", dir, "--codebook", "bales-ipa", "--control", "control", "--holm", "--drop", "none"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Difference from control "control"');
    expect(run.stdout).toContain("+116% (41 vs 19)");
    expect(run.stdout).toContain("p (Holm)");
    const report = JSON.parse(await readFile(join(dir, "analysis", "compare-bales-ipa.json"), "utf8")) as CompareReport;
    expect(report.provenance).toMatchObject({ tool: "colloquy", command: "compare", codebook: { id: "bales-ipa" }, coder: "rules", sessions: 10 });
    expect(report.options).toMatchObject({ control: "control", holm: true, design: "within", unit: "participant", drop: ["none"] });
    expect(report.labels).not.toContain("none");
    const w = report.tests.find((t) => t.family === "wilcoxon" && t.code === "gives-opinion")!;
    expect(w.p).toBeCloseTo(0.001953125, 12);
    expect(w.pHolm).toBeCloseTo(0.00390625, 12);
    const differences = await readFile(join(dir, "analysis", "compare-bales-ipa-differences.csv"), "utf8");
    expect(differences).toContain("ai,control,gives-opinion,41,19,");
    const frequencies = await readFile(join(dir, "analysis", "compare-bales-ipa-frequencies.csv"), "utf8");
    expect(frequencies).toContain("condition,control,agrees,8,");
    expect(await readFile(join(dir, "analysis", "compare-bales-ipa-tests.csv"), "utf8")).toContain(
      'wilcoxon,"Wilcoxon signed-rank (paired, two-sided)",gives-opinion,ai,control,,participant,count,10,W,0,,0.001953125,0.00390625',
    );
  });

  it("--json prints the report; config settings apply and flags override them", async () => {
    const dir = await pairedStudyOnDisk({ compare: { control: "ai", design: "between" } });
    const fromConfig = JSON.parse((await runCli(["compare", dir, "--json"])).stdout) as CompareReport;
    expect(fromConfig.options).toMatchObject({ control: "ai", design: "between" });
    expect(fromConfig.tests.some((t) => t.family === "mann-whitney")).toBe(true);
    const flagged = JSON.parse(
      (await runCli(["compare", dir, "--json", "--control", "control", "--design", "within", "--normalise-runs", "--unit", "session"])).stdout,
    ) as CompareReport;
    expect(flagged.options).toMatchObject({ control: "control", design: "within", normaliseByRuns: true, unit: "session" });
    expect(flagged.differences.basis).toBe("per-run");
    expect(flagged.differences.rows.find((d) => d.code === "gives-opinion")).toMatchObject({ value: 41 / 5, controlValue: 19 / 5 });
  });

  it("boolean settings: colloquy.json turns them on, --no-<flag> turns them off", async () => {
    const dir = await pairedStudyOnDisk({ compare: { control: "control", normaliseByRuns: true, holm: true } });
    const on = JSON.parse((await runCli(["compare", dir, "--json"])).stdout) as CompareReport;
    expect(on.options).toMatchObject({ normaliseByRuns: true, holm: true });
    const off = JSON.parse((await runCli(["compare", dir, "--json", "--no-holm", "--no-normalise-runs"])).stdout) as CompareReport;
    expect(off.options).toMatchObject({ normaliseByRuns: false, holm: false });
    expect(off.tests.every((t) => t.pHolm === undefined)).toBe(true);
  });

  it("fails clearly on an unknown control, condition group, flag value or codebook", async () => {
    const dir = await pairedStudyOnDisk();
    const bad = await runCli(["compare", dir, "--control", "placebo"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--control: "placebo" is not a condition of this study; the conditions are: ai, control');
    const group = await runCli(["compare", dir, "--group", "AI=ai+robot"]);
    expect(group.stderr).toContain('--group: group "AI" names unknown condition "robot"');
    expect((await runCli(["compare", dir, "--design", "sideways"])).stderr).toContain("--design sideways: expected one of within, between");
    expect((await runCli(["compare", dir, "--codebook", "pragmatic-style"])).stderr).toMatch(/no codes for codebook "pragmatic-style"|rates scales/);
  });

  it("asks for --coder when several coders coded the codebook, and says how to code when none did", async () => {
    const dir = await pairedStudyOnDisk({}, ["rules", "human:alice"]);
    const run = await runCli(["compare", dir, "--control", "control"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('codebook "bales-ipa" has codes from several coders (human:alice, rules); choose one with --coder');
    const ok = await runCli(["compare", dir, "--control", "control", "--coder", "human:alice", "--json"]);
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as CompareReport).coder).toBe("human:alice");
    const empty = await pairedStudyOnDisk({}, []);
    expect((await runCli(["compare", empty])).stderr).toMatch(/no codes for codebook "bales-ipa" yet; code the turns first with `colloquy code/);
  });
});
