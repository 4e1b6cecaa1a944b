import { beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Papa from "papaparse";
import { runCli } from "../support/cli.js";
import { initStudy, saveSession } from "../../src/study/study.js";
import { appendCodes } from "../../src/coding/store.js";
import { sessionSchema } from "../../src/transcript/schema.js";
import type { CodeRecord } from "../../src/coding/records.js";
import type { AgreementReport } from "../../src/analysis/agreement/agree.js";

// 20 turns (s1: t0000-t0011, s2: t0000-t0007). human:alice did not code the last two turns of s2,
// llm did not code s1/t0000: 17 turns are coded by both.
const human = [
  "agrees",
  "gives-opinion",
  "gives-opinion",
  "asks-opinion",
  "gives-suggestion",
  "agrees",
  "gives-opinion",
  "asks-opinion",
  "agrees",
  "gives-opinion",
  "gives-suggestion",
  "gives-opinion",
  "agrees",
  "asks-opinion",
  "gives-opinion",
  "gives-suggestion",
  "gives-opinion",
  "agrees",
  null,
  null,
];
const llm = [
  null,
  "gives-opinion",
  "gives-suggestion",
  "asks-opinion",
  "gives-suggestion",
  "agrees",
  "gives-opinion",
  "gives-opinion",
  "agrees",
  "gives-opinion",
  "gives-suggestion",
  "agrees",
  "agrees",
  "asks-opinion",
  "gives-opinion",
  "gives-opinion",
  "gives-opinion",
  "agrees",
  "agrees",
  "gives-opinion",
];
const humanSentiment = [4, 5, 5, 3, 6, 4, 4, 2, 5, 6, 7, 4, 3, 4, 5, 6, 4, 5, null, null];
const llmSentiment = [null, 5, 6, 3, 6, 4, 5, 3, 5, 6, 6, 4, 4, 4, 5, 5, 4, 6, 5, 4];

function unit(i: number): { session: string; turn: string } {
  return i < 12 ? { session: "s1", turn: `t${String(i).padStart(4, "0")}` } : { session: "s2", turn: `t${String(i - 12).padStart(4, "0")}` };
}

function records(coder: string, codebook: string, values: (string | number | null)[], kind: "codes" | "scores"): CodeRecord[] {
  return values.flatMap((v, i) =>
    v === null
      ? []
      : [
          {
            ...unit(i),
            codebook,
            codebookVersion: "1.0.0",
            coder,
            provenance: {},
            createdAt: "2026-01-01T00:00:00Z",
            ...(kind === "codes" ? { codes: [v as string] } : { scores: { sentiment: v as number } }),
          },
        ],
  );
}

let study: string;

beforeAll(async () => {
  study = join(await mkdtemp(join(tmpdir(), "colloquy-agree-")), "study");
  await initStudy(study);
  for (const [id, n] of [
    ["s1", 12],
    ["s2", 8],
  ] as const) {
    await saveSession(
      study,
      sessionSchema.parse({
        id,
        metadata: { condition: "pilot" },
        participants: [
          { id: "alice", name: "Alice", kind: "human" },
          { id: "bot", name: "Bot", kind: "ai" },
        ],
        // Text with a comma, quotes, a newline and a leading "=" to check the CSV keeps it verbatim.
        turns: Array.from({ length: n }, (_, i) => ({
          id: `t${String(i).padStart(4, "0")}`,
          index: i,
          speaker: i % 2 ? "bot" : "alice",
          text: `turn ${i} of ${id}: "yes", well\n=maybe`,
        })),
      }),
    );
  }
  await appendCodes(study, records("human:alice", "bales-ipa", human, "codes"));
  await appendCodes(study, records("llm", "bales-ipa", llm, "codes"));
  await appendCodes(study, records("human:alice", "pragmatic-style", humanSentiment, "scores"));
  await appendCodes(study, records("llm", "pragmatic-style", llmSentiment, "scores"));
});

describe("colloquy agree <study>", () => {
  it("reports kappa, agreement and per-category scores matching scikit-learn, and writes JSON + CSV", async () => {
    const run = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "llm,human:alice", "--bootstrap", "200", "--seed", "3"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    // python (sklearn 1.2.1): a, b = the 17 turns coded by both; cohen_kappa_score(a, b) = 0.6682926829268292, agreement 13/17
    expect(run.stdout).toMatch(/llm vs human:alice {2}n=17 {2}agreement 76\.5% {2}kappa 0\.668 \[-?\d\.\d\d, \d\.\d\d\] {2}AC1 0\.\d\d/);
    expect(run.stdout).toContain("not analysed: 2 coded by llm only (missing human:alice)");
    expect(run.stdout).toContain("not analysed: 1 coded by human:alice only (missing llm)");

    const report = JSON.parse(await readFile(join(study, "analysis", "agreement-bales-ipa.json"), "utf8")) as AgreementReport;
    expect(report.provenance.tool).toBe("colloquy");
    expect(report.codebook?.definition).toBe("loaded");
    expect(report.reference).toBe("human:alice");
    expect(report.coverage?.unitsCodedByAll).toBe(17);
    expect(report.coverage?.unitsCodedByAny).toBe(20);
    expect(report.coverage?.partialUnits).toContainEqual({ session: "s1", turn: "t0000", codedBy: ["human:alice"] });
    const v = report.variables[0];
    const pair = v.pairs[0];
    expect(pair).toMatchObject({ a: "human:alice", b: "llm", n: 17 });
    expect(pair.kappa).toBeCloseTo(0.6682926829268292, 12);
    expect(pair.agreement).toBeCloseTo(13 / 17, 12);
    expect(pair.kappaCI!.lower).toBeLessThan(pair.kappa);
    expect(pair.kappaCI!.upper).toBeGreaterThan(pair.kappa);
    // python: precision_recall_fscore_support(a, b, labels=["agrees","gives-suggestion","gives-opinion","asks-opinion"], zero_division=0)
    const byLabel = Object.fromEntries(v.perCategory[0].categories.map((c) => [c.label, c]));
    expect(byLabel["agrees"].precision).toBeCloseTo(0.8, 12);
    expect(byLabel["agrees"].recall).toBeCloseTo(1, 12);
    expect(byLabel["gives-opinion"].f1).toBeCloseTo(0.7142857142857143, 12);
    expect(byLabel["asks-opinion"].f1).toBeCloseTo(0.8, 12);
    expect(byLabel["asks-opinion"].support).toBe(3);
    // python: f1_score(a, b, average="macro") = 0.7674603174603175 (over the categories in use)
    expect(v.perCategory[0].macroF1).toBeCloseTo(0.7674603174603175, 12);
    // Codebook order for labels (bales-ipa), with unused categories kept so the matrix is complete.
    expect(v.labels.slice(0, 3)).toEqual(["shows-solidarity", "shows-tension-release", "agrees"]);
    expect(v.labels).toHaveLength(13);

    const csv = Papa.parse<Record<string, string>>(await readFile(join(study, "analysis", "agreement-bales-ipa-disagreements.csv"), "utf8"), {
      header: true,
      skipEmptyLines: true,
    });
    expect(csv.meta.fields).toEqual(["session", "turn", "speaker", "variable", "llm", "human:alice", "text"]);
    expect(csv.data).toHaveLength(4);
    expect(csv.data[0]).toEqual({
      session: "s1",
      turn: "t0002",
      speaker: "Alice",
      variable: "codes",
      "human:alice": "gives-opinion",
      llm: "gives-suggestion",
      text: 'turn 2 of s1: "yes", well\n=maybe',
    });
    expect(report.disagreements.total).toBe(4);
  });

  it("--json prints the report; same seed, same interval", async () => {
    const args = ["agree", study, "--codebook", "bales-ipa", "--coders", "llm,human:alice", "--bootstrap", "100", "--json"];
    const one = JSON.parse((await runCli(args)).stdout) as AgreementReport;
    const two = JSON.parse((await runCli(args)).stdout) as AgreementReport;
    expect(one.kind).toBe("agreement");
    expect(one.variables[0].pairs[0].kappaCI).toEqual(two.variables[0].pairs[0].kappaCI);
    expect(one.variables[0].alpha[0].level).toBe("nominal");
  });

  it("scales: weighted kappas, Kendall's tau, ordinal and interval alpha per scale", async () => {
    const run = await runCli(["agree", study, "--codebook", "pragmatic-style", "--coders", "human:alice,llm", "--json", "--bootstrap", "50"]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as AgreementReport;
    expect(report.codebook?.kind).toBe("scales");
    expect(report.variables.map((v) => v.name)).toEqual(["sentiment"]);
    const pair = report.variables[0].pairs[0];
    // python: cohen_kappa_score(a, b, labels=range(1,8)) / weights="linear" / "quadratic"; stats.kendalltau(a, b)
    expect(pair.kappa).toBeCloseTo(0.4590909090909091, 12);
    expect(pair.kappaLinear).toBeCloseTo(0.6721763085399449, 12);
    expect(pair.kappaQuadratic).toBeCloseTo(0.8398384925975774, 12);
    expect(pair.kendallTau!.tau).toBeCloseTo(0.8114822249196492, 12);
    expect(pair.kendallTau!.p).toBeCloseTo(9.212488651391261e-5, 12);
    expect(report.variables[0].alpha.map((a) => a.level)).toEqual(["ordinal", "interval"]);
    expect(run.stdout.length).toBeGreaterThan(0);
  });

  it("infers the codebook shape when no definition exists, and says so", async () => {
    await appendCodes(study, records("human:alice", "mine", human, "codes"));
    await appendCodes(study, records("rules", "mine", llm, "codes"));
    const run = await runCli(["agree", study, "--codebook", "mine", "--coders", "rules,human:alice", "--bootstrap", "0"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("shape inferred from the records");
    expect(run.stdout).toMatch(/rules vs human:alice {2}n=17 {2}agreement 76\.5% {2}kappa 0\.668 {2}AC1/);
  });

  it("three coders: pairwise kappas, Fleiss and Krippendorff over the turns all three coded", async () => {
    const rules = [
      "agrees",
      "gives-opinion",
      "gives-opinion",
      "gives-opinion",
      "gives-suggestion",
      "gives-opinion",
      "gives-opinion",
      "asks-opinion",
      "agrees",
      "agrees",
      "gives-suggestion",
      "gives-opinion",
      "agrees",
      "asks-opinion",
      "asks-opinion",
      "gives-suggestion",
      "gives-opinion",
      "gives-opinion",
      "agrees",
      "agrees",
    ];
    await appendCodes(study, records("rules", "bales-ipa", rules, "codes"));
    const run = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "llm,human:alice,rules", "--json", "--bootstrap", "0"]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as AgreementReport;
    const v = report.variables[0];
    expect(v.unitsComplete).toBe(17);
    expect(v.pairs.map((p) => [p.a, p.b])).toEqual([
      ["human:alice", "llm"],
      ["human:alice", "rules"],
      ["llm", "rules"],
    ]);
    // python: alpha_pairwise([llm, human, rules] on the 17 shared turns, "nominal") and the generalised
    // Fleiss formula, both from test/analysis/reliability/reference.py
    expect(v.alpha[0].alpha).toBeCloseTo(0.5076586433260394, 12);
    expect(v.fleiss!.kappa).toBeCloseTo(0.4978118161925605, 12);
    expect(v.perCategory.map((s) => s.coder)).toEqual(["llm", "rules"]);
    expect(report.coverage!.partial).toEqual(expect.arrayContaining([{ codedBy: ["llm", "rules"], missing: ["human:alice"], units: 2 }]));
  });

  it("fails clearly on a coder without codes and on a bad coder list", async () => {
    const missing = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "llm,human:bob"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no codes from coder "human:bob" for codebook "bales-ipa".*Coders with codes for bales-ipa: human:alice, llm/);
    const one = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "llm"]);
    expect(one.stderr).toMatch(/--coders needs at least two coders/);
    const ref = await runCli(["agree", study, "--codebook", "bales-ipa", "--coders", "llm,human:alice", "--reference", "x"]);
    expect(ref.stderr).toMatch(/--reference "x" is not one of the coders/);
  });
});

describe("colloquy agree --csv", () => {
  it("computes agreement between CSV columns (Krippendorff's example, ordinal), with missing cells", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-agree-csv-"));
    const file = join(dir, "ratings.csv");
    // Krippendorff (2011) 4 observers x 12 units; published ordinal alpha 0.815, interval 0.849.
    const rows = [
      [1, 1, "", 1],
      [2, 2, 3, 2],
      [3, 3, 3, 3],
      [3, 3, 3, 3],
      [2, 2, 2, 2],
      [1, 2, 3, 4],
      [4, 4, 4, 4],
      [1, 1, 2, 1],
      [2, 2, 2, 2],
      ["", 5, 5, 5],
      ["", "", 1, 1],
      ["", 3, "", ""],
    ];
    await writeFile(file, "unit,A,B,C,D\n" + rows.map((r, i) => [i + 1, ...r].join(",")).join("\n") + "\n");
    const run = await runCli(["agree", "--csv", file, "--raters", "A,B,C,D", "--level", "ordinal", "--json", "--bootstrap", "100"]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as AgreementReport;
    const alpha = Object.fromEntries(report.variables[0].alpha.map((a) => [a.level, a.alpha]));
    expect(alpha.ordinal.toFixed(3)).toBe("0.815");
    expect(alpha.interval.toFixed(3)).toBe("0.849");
    expect(report.variables[0].fleiss!.kappa.toFixed(5)).toBe("0.76117");
    expect(report.warnings[0]).toMatch(/empty cells/);

    const text = await runCli(["agree", "--csv", file, "--raters", "A,B", "--bootstrap", "0", "--out", join(dir, "out.json")]);
    expect(text.stdout).toMatch(/B vs A {2}n=9 {2}agreement 88\.9%/);
    expect(JSON.parse(await readFile(join(dir, "out.json"), "utf8")).kind).toBe("agreement");
  });

  it("names the line and column of a non-numeric rating", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-agree-csv-"));
    const file = join(dir, "bad.csv");
    await writeFile(file, "a,b\n1,2\n3,high\n");
    const run = await runCli(["agree", "--csv", file, "--raters", "a,b", "--level", "interval"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/bad\.csv:3: column "b" is "high", not a number/);
    const nocol = await runCli(["agree", "--csv", file, "--raters", "a,c"]);
    expect(nocol.stderr).toMatch(/no column "c" \(columns: a, b\)/);
  });
});
