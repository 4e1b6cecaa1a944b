// compare's test lines as a reviewer reads them: the design assumed and why, an explained error
// when the declared design does not fit the data, honest notes on untested codes and small counts.
import { describe, expect, it } from "vitest";
import { loadCodebook } from "../../../src/coding/codebook/load.js";
import type { NominalCodebook } from "../../../src/coding/codebook/schema.js";
import { codedTurns } from "../../../src/analysis/shared/table.js";
import { compareConditions, type CompareOptions } from "../../../src/analysis/compare/compare.js";
import { DEFAULT_INFERENCE, resolveDesign, type Design } from "../../../src/analysis/shared/design.js";
import type { Session } from "../../../src/transcript/schema.js";
import type { CodeRecord } from "../../../src/coding/records.js";
import { fromCounts, pairedStudy, recordsFor } from "./fixture.js";
import { apaCompareTest } from "../../../src/report/apa.js";

const bales = (await loadCodebook("bales-ipa")) as NominalCodebook;
const labels = bales.categories.map((c) => c.id);

function study(specs: [string, string, string | undefined, Record<string, Record<string, number>>][]): { sessions: Session[]; records: CodeRecord[] } {
  const sessions: Session[] = [];
  const records: CodeRecord[] = [];
  for (const [id, condition, run, counts] of specs) {
    const built = fromCounts(id, condition, run, counts);
    sessions.push(built.session);
    records.push(...recordsFor(built.session, built.codes));
  }
  return { sessions, records };
}
const compare = (s: { sessions: Session[]; records: CodeRecord[] }, options: CompareOptions & { design?: Design } = {}) => {
  const { design, ...rest } = options;
  const inference = design ? { ...DEFAULT_INFERENCE, design: resolveDesign(s.sessions, { config: { design } }) } : undefined;
  return compareConditions(codedTurns(s.sessions, s.records, labels), { ...rest, ...(inference ? { inference } : {}) });
};

describe("the study's design", () => {
  it("defaults to sessions as units and says what the data would support; pairing people is declared", () => {
    const paired = pairedStudy();
    expect(resolveDesign(paired.sessions, {})).toMatchObject({
      design: "between",
      unit: "session",
      source: "default",
      reason: expect.stringMatching(/each session is one observation.*2 people took part in more than one condition/),
    });
    const separate = study([
      ["c1", "control", "1", { Ann: { agrees: 1 } }],
      ["t1", "treatment", "1", { Ben: { agrees: 1 } }],
    ]);
    expect(resolveDesign(separate.sessions, {})).toMatchObject({ design: "between", unit: "session", source: "default" });
    expect(resolveDesign(separate.sessions, { config: { design: "within" } })).toMatchObject({
      design: "within",
      unit: "participant",
      source: "colloquy.json",
    });
    expect(resolveDesign(separate.sessions, { flag: { design: "between" }, config: { design: "within" } })).toMatchObject({
      design: "between",
      unit: "session",
      source: "flag",
    });
    // A session is in one condition: sessions are never paired.
    expect(() => resolveDesign(separate.sessions, { config: { design: "within", unit: "session" } })).toThrow(/sessions cannot be paired/);
    // Declared between-subject while people are in both conditions: said, with what to declare instead.
    for (const unit of ["participant", "session"] as const)
      expect(resolveDesign(paired.sessions, { flag: { design: "between", unit } }).reason).toMatch(
        /; but 2 people \(.+\) took part in more than one condition, so a comparison of two conditions they were both in does not have independent samples: .*"design": "within"/,
      );
    expect(resolveDesign(separate.sessions, { flag: { design: "between", unit: "participant" } }).reason).not.toContain("does not have independent samples");
    expect(resolveDesign(paired.sessions, { config: { design: "within" } }).reason).not.toContain("does not have independent samples");
  });

  it("agents are not units of a pairing unless the study says so", () => {
    const s = study([
      ["c1", "control", "1", { AIbot: { agrees: 1 }, AIhelper: { agrees: 2 } }],
      ["t1", "treatment", "1", { AIbot: { agrees: 3 }, AIhelper: { agrees: 2 } }],
    ]);
    expect(resolveDesign(s.sessions, {}).reason).not.toMatch(/took part in more than one condition/);
    // Agents declared as units are counted as participants, not called people.
    expect(resolveDesign(s.sessions, { config: { agentUnits: true } }).reason).toMatch(/2 participants took part in more than one condition/);
    expect(resolveDesign(s.sessions, { config: { agentUnits: true, design: "between", unit: "participant" } }).reason).toMatch(
      /; but 2 participants \(aibot, aihelper\) took part in more than one condition.*if the same participants/,
    );
    expect(() => compare(s, { control: "control", design: "within" })).toThrow(/no person appears in both treatment and control/);
  });

  it("within with nothing to pair is an error naming the setting to change", () => {
    const separate = study([
      ["c1", "control", "1", { Ann: { agrees: 1 }, Cat: { agrees: 2 } }],
      ["t1", "treatment", "1", { Ben: { agrees: 1 }, Dan: { agrees: 3 } }],
    ]);
    expect(() => compare(separate, { control: "control", design: "within" })).toThrow(
      /within-subject \(declared \(colloquy.json compare\).*no person appears in both treatment and control.*"design": "between"/,
    );
    const r = compare(separate, { control: "control", design: "between" });
    expect(r.design).toMatchObject({ design: "between", unit: "session", source: "colloquy.json", description: "between-subject, unit: session" });
  });
});

describe("test lines", () => {
  it("a code used 1 vs 3 times by unpaired units is not called 'no acts in either condition'", () => {
    // Ann and Ben are in both conditions but never ask for suggestions; Cat (control only) asks
    // once, Dan (treatment only) three times.
    const s = study([
      ["c1", "control", "1", { Ann: { agrees: 2 }, Ben: { agrees: 1 }, Cat: { "asks-suggestion": 1 } }],
      ["t1", "treatment", "1", { Ann: { agrees: 1 }, Ben: { agrees: 3 }, Dan: { "asks-suggestion": 3 } }],
    ]);
    const r = compare(s, { control: "control", design: "within" });
    const line = r.tests.find((t) => t.family === "paired-permutation" && t.code === "asks-suggestion")!;
    expect(line.note).not.toMatch(/either condition/);
    expect(line.note).toMatch(/treatment has 3, control 1/);
    expect(r.tests.find((t) => t.family === "paired-permutation" && t.code === "shows-tension")!.note).toMatch(/no acts with this code in either condition/);
  });

  it("every line has a statistic, p and effect size, or says why not; a design that cannot reach .05 says so", () => {
    const s = study([
      ["c1", "control", "1", { Ann: { agrees: 2, "gives-opinion": 1 }, Ben: { agrees: 2 } }],
      ["c2", "control", "2", { Ann: { agrees: 2, "gives-opinion": 2 }, Ben: { agrees: 2 } }],
      ["t1", "treatment", "1", { Ann: { agrees: 2, "gives-opinion": 4 }, Ben: { agrees: 2 } }],
      ["t2", "treatment", "2", { Ann: { agrees: 2, "gives-opinion": 5 }, Ben: { agrees: 2 } }],
    ]);
    for (const design of ["within", "between"] as const) {
      const r = compare(s, { control: "control", design });
      for (const t of r.tests) {
        const complete = t.statistic !== null && t.p !== null && (t.family === "chi-square" || (t.effectSize !== null && t.effectSize !== undefined));
        if (!complete) expect(t.note, `${design} ${t.family} ${t.code}`).toBeTruthy();
      }
      const tested = r.tests.filter((t) => t.family !== "chi-square" && t.p !== null);
      expect(tested.length).toBeGreaterThan(0);
      // 2 people paired (2/4 = .5), 2 vs 2 sessions (2/6 = .33): no test can reach .05.
      for (const t of tested) expect(t.note).toMatch(/cannot reach p < \.05/);
      for (const t of tested) expect(apaCompareTest(t)).toMatch(/^cannot reach p < \.05 with (2 paired participants|2 vs 2 sessions)/);
    }
  });

  it("chi-square with small expected counts warns by Cochran's rule and gives Fisher's exact p for 2×2", () => {
    // Conditions × {agrees, gives-opinion}: [[3, 1], [1, 4]]; scipy.stats.fisher_exact -> p 0.2063492063492063.
    const s = study([
      ["c1", "control", "1", { Ann: { agrees: 3, "gives-opinion": 1 } }],
      ["t1", "treatment", "1", { Ann: { agrees: 1, "gives-opinion": 4 } }],
    ]);
    const chi = compare(s, { control: "control", design: "between" }).tests.find((t) => t.family === "chi-square" && t.across === "conditions")!;
    expect(chi.details!.table).toEqual([
      [3, 1],
      [1, 4],
    ]);
    expect((chi.details!.fisherExact as { p: number }).p).toBeCloseTo(0.2063492063492063, 12);
  });

  it("a 2×2 table that fails Cochran's rule reports Fisher's exact test: name, p, APA line and Holm input", () => {
    // scipy.stats.fisher_exact([[3, 1], [1, 4]]) -> (12.0, 0.2063492063492063);
    // scipy.stats.chi2_contingency([[3, 1], [1, 4]]) (Yates) -> chi2 0.950625, p 0.3295602599606179.
    const s = study([
      ["c1", "control", "1", { Ann: { agrees: 3, "gives-opinion": 1 } }],
      ["t1", "treatment", "1", { Ann: { agrees: 1, "gives-opinion": 4 } }],
    ]);
    const chi = compare(s, { control: "control", design: "between" }).tests.find((t) => t.family === "chi-square" && t.across === "conditions")!;
    expect(chi.test).toMatch(/^Fisher's exact test/);
    expect(chi.method).toMatch(/^Fisher's exact/);
    expect(chi.p).toBeCloseTo(0.2063492063492063, 12);
    expect(chi.statisticName).toBe("odds ratio");
    expect(chi.statistic).toBeCloseTo(12, 12);
    expect(chi.df).toBeNull();
    // Act counts are described, not tested: no adjusted p, and the note says why.
    expect(chi.descriptive).toBe(true);
    expect(chi.pAdjusted).toBeUndefined();
    // The chi-square stays on record, in the details and the note.
    const chiSquare = chi.details!.chiSquare as { statistic: number; df: number; p: number };
    expect(chiSquare.statistic).toBeCloseTo(0.950625, 9);
    expect(chiSquare.df).toBe(1);
    expect(chiSquare.p).toBeCloseTo(0.3295602599606179, 9);
    expect(chi.note).toMatch(/^descriptive: acts are nested in sessions/);
    expect(chi.note).toMatch(
      /4 of 4 cells have expected counts below 5.*unreliable \(χ²\(1, N = 9\) = 0\.95, p = \.330 with Yates' correction\), so Fisher's exact test is reported/,
    );
    expect(apaCompareTest(chi)).toMatch(/^Fisher's exact test, N = 9, p = \.206, OR = 12\.00, V = \.\d\d$/);
  });

  it("a larger sparse table is told to collapse codes (no exact test offered where it does not apply)", () => {
    const s = study([
      ["c1", "control", "1", { Ann: { agrees: 1, "gives-opinion": 1, "asks-orientation": 1 } }],
      ["t1", "treatment", "1", { Ann: { agrees: 1, "gives-suggestion": 1, "asks-orientation": 2 } }],
    ]);
    const chi = compare(s, { control: "control", design: "between" }).tests.find((t) => t.family === "chi-square" && t.across === "conditions")!;
    expect(chi.df).toBe(3);
    expect(chi.note).toMatch(/unreliable; collapse rare codes/);
    expect(chi.note).not.toMatch(/Fisher/);
  });
});
