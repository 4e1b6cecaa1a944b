import { describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import type { CompareReport } from "../../src/analysis/compare/compare.js";
import { pairedStudyOnDisk } from "./compare-study.js";

describe("colloquy compare", () => {
  it("writes compare-<codebook>.json with provenance and CSVs, and prints a summary", async () => {
    const dir = await pairedStudyOnDisk();
    const run = await runCli(["compare", dir, "--codebook", "bales-ipa", "--control", "control", "--drop", "none"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Difference from control "control"');
    expect(run.stdout).toContain("+116% (41 vs 19)");
    expect(run.stdout).toContain("p (holm)");
    expect(run.stdout).toContain("ai vs control: 5 vs 5 sessions");
    const report = JSON.parse(await readFile(join(dir, "analysis", "compare-bales-ipa.json"), "utf8")) as CompareReport;
    expect(report.provenance).toMatchObject({ tool: "colloquy", command: "compare", codebook: { id: "bales-ipa" }, coder: "rules", sessions: 10 });
    expect(report.options).toMatchObject({ control: "control", adjust: "holm", design: "between", unit: "session", test: "permutation", drop: ["none"] });
    expect(report.labels).not.toContain("none");
    // One test per comparison and code, on sessions: python stats.permutation_test(([5,9,11,9,7],[2,3,4,5,5]), ...) -> p 0.023809523809523808
    const lines = report.tests.filter((t) => t.code === "gives-opinion");
    expect(lines).toHaveLength(1);
    expect(lines[0].p).toBeCloseTo(0.023809523809523808, 12);
    expect(lines[0].pAdjusted).toBeCloseTo(0.047619047619047616, 12);
    const differences = await readFile(join(dir, "analysis", "compare-bales-ipa-differences.csv"), "utf8");
    expect(differences).toContain("ai,control,gives-opinion,41,19,");
    const frequencies = await readFile(join(dir, "analysis", "compare-bales-ipa-frequencies.csv"), "utf8");
    expect(frequencies).toContain("condition,control,agrees,8,");
    expect(await readFile(join(dir, "analysis", "compare-bales-ipa-tests.csv"), "utf8")).toContain(
      "permutation,permutation test of the difference in means (two-sided),gives-opinion,ai,control,,session,count,10,mean difference,4.3999999999999995,,0.023809523809523808,0.047619047619047616,holm,2",
    );
  });

  it("--json prints the report; config settings apply and flags override them", async () => {
    const dir = await pairedStudyOnDisk({ compare: { control: "ai", test: "mann-whitney", adjust: "bh" } });
    const fromConfig = JSON.parse((await runCli(["compare", dir, "--json"])).stdout) as CompareReport;
    expect(fromConfig.options).toMatchObject({ control: "ai", design: "between", test: "mann-whitney", adjust: "bh" });
    expect(fromConfig.tests.filter((t) => t.family !== "chi-square").every((t) => t.family === "mann-whitney")).toBe(true);
    const flagged = JSON.parse(
      (await runCli(["compare", dir, "--json", "--control", "control", "--design", "within", "--normalise-runs", "--test", "wilcoxon", "--adjust", "holm"]))
        .stdout,
    ) as CompareReport;
    expect(flagged.options).toMatchObject({
      control: "control",
      design: "within",
      normaliseByRuns: true,
      unit: "participant",
      test: "wilcoxon",
      adjust: "holm",
    });
    expect(flagged.comparisons[0].paired).toEqual(["alice", "bob"]);
    expect(flagged.differences.basis).toBe("per-run");
    expect(flagged.differences.rows.find((d) => d.code === "gives-opinion")).toMatchObject({ value: 41 / 5, controlValue: 19 / 5 });
    // A test of the other design is refused with the tests that fit.
    const wrong = await runCli(["compare", dir, "--test", "wilcoxon"]);
    expect(wrong.stderr).toContain(
      "the wilcoxon test is for a within-subject design, but the design is between-subject; choose one of permutation, mann-whitney, welch",
    );
  });

  it("boolean settings: colloquy.json turns them on, --no-<flag> turns them off; holm: false in older files means no adjustment", async () => {
    const dir = await pairedStudyOnDisk({ compare: { control: "control", normaliseByRuns: true, holm: false } });
    const on = JSON.parse((await runCli(["compare", dir, "--json"])).stdout) as CompareReport;
    expect(on.options).toMatchObject({ normaliseByRuns: true, adjust: "none" });
    const off = JSON.parse((await runCli(["compare", dir, "--json", "--adjust", "holm", "--no-normalise-runs"])).stdout) as CompareReport;
    expect(off.options).toMatchObject({ normaliseByRuns: false, adjust: "holm" });
  });

  it("fails clearly on an unknown control, condition group, flag value or codebook", async () => {
    const dir = await pairedStudyOnDisk();
    const bad = await runCli(["compare", dir, "--control", "placebo"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--control: "placebo" is not a condition of this study; the conditions are: ai, control');
    const group = await runCli(["compare", dir, "--group", "AI=ai+robot"]);
    expect(group.stderr).toContain('--group: group "AI" names unknown condition "robot"');
    expect((await runCli(["compare", dir, "--design", "sideways"])).stderr).toContain('--design "sideways": expected within, between');
    expect((await runCli(["compare", dir, "--codebook", "pragmatic-style"])).stderr).toMatch(/no codes for codebook "pragmatic-style"|rates scales/);
  });

  it("a design the sessions cannot hold fails with fixes in colloquy.json, and each fix it names works", async () => {
    const dir = await pairedStudyOnDisk({ compare: { design: "within", unit: "session" } } as never);
    const failed = await runCli(["compare", dir, "--json"]);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain(
      'set "unit": "participant" under "compare" in colloquy.json to pair people by id, or "design": "between" to compare sessions as independent units',
    );
    const path = join(dir, "colloquy.json");
    const config = JSON.parse(await readFile(path, "utf8"));
    for (const fix of [
      { design: "within", unit: "participant" },
      { design: "between", unit: "session" },
    ]) {
      await writeFile(path, JSON.stringify({ ...config, compare: fix }));
      const run = await runCli(["compare", dir, "--json"]);
      expect(run.code, run.stderr).toBe(0);
      expect((JSON.parse(run.stdout) as CompareReport).options).toMatchObject(fix);
    }
  });

  it("takes the coder colloquy.json names when several coded the codebook, asks for --coder when it names none of them, and says how to code when none did", async () => {
    const configured = await pairedStudyOnDisk({}, ["rules", "human:alice"]);
    const fromConfig = await runCli(["compare", configured, "--control", "control", "--json"]);
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    expect((JSON.parse(fromConfig.stdout) as CompareReport).coder).toBe("rules");
    const dir = await pairedStudyOnDisk({ codebooks: [{ codebook: "bales-ipa", coders: ["llm"] }] } as never, ["rules", "human:alice"]);
    const run = await runCli(["compare", dir, "--control", "control"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('codebook "bales-ipa" has codes from several coders (human:alice, rules); choose one with --coder');
    const ok = await runCli(["compare", dir, "--control", "control", "--coder", "human:alice", "--json"]);
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as CompareReport).coder).toBe("human:alice");
    const empty = await pairedStudyOnDisk({}, []);
    expect((await runCli(["compare", empty])).stderr).toMatch(
      /compare: no --codebook given, and .* has no nominal codebook \(categories\) with codes \(colloquy.json lists bales-ipa, pragmatic-style\); code the turns first \(colloquy code /,
    );
    expect((await runCli(["compare", empty, "--codebook", "bales-ipa"])).stderr).toMatch(
      /no codes for codebook "bales-ipa" yet; code the turns first with `colloquy code/,
    );
  });
});
