import { describe, expect, it } from "vitest";
import { loadCodebook } from "../../../src/coding/codebook/load.js";
import type { NominalCodebook } from "../../../src/coding/codebook/schema.js";
import { codedTurns } from "../../../src/analysis/shared/table.js";
import { compareConditions, compareFrequencies, type CompareOptions } from "../../../src/analysis/compare/compare.js";
import { DEFAULT_INFERENCE, resolveDesign, type Design } from "../../../src/analysis/shared/design.js";
import { mapCodes, parseMergeList } from "../../../src/analysis/compare/mapping.js";
import { compareCsvs, compareSummary } from "../../../src/analysis/compare/output.js";
import type { Session } from "../../../src/transcript/schema.js";
import type { CodeRecord } from "../../../src/coding/records.js";
import { fromCounts, pairedStudy, recordsFor } from "./fixture.js";

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

function compare(s: { sessions: Session[]; records: CodeRecord[] }, options: CompareOptions & { design?: Design } = {}) {
  const { design, ...rest } = options;
  const inference = design ? { ...DEFAULT_INFERENCE, design: resolveDesign(s.sessions, { config: { design } }) } : rest.inference;
  return compareConditions(codedTurns(s.sessions, s.records, labels), { ...rest, ...(inference ? { inference } : {}) });
}

/** |a - b| small relative to b: SciPy reference values to 1e-9. */
function close(actual: number | null | undefined, expected: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(1e-9 + 1e-9 * Math.abs(expected));
}

describe("compareConditions: frequencies and differences from control", () => {
  const s = study([
    ["c1", "control", "1", { Alice: { "gives-opinion": 1, agrees: 2 }, AI: { "gives-orientation": 3 } }],
    ["t1", "treatment", "1", { Alice: { "gives-opinion": 4, agrees: 2 }, AI: { "gives-opinion": 3, "gives-orientation": 0 } }],
  ]);

  it("reports +600% for 7 opinion acts against 1 in control, with the counts", () => {
    const r = compare(s, { control: "control" });
    const d = r.differences.rows.find((x) => x.condition === "treatment" && x.code === "gives-opinion")!;
    expect(d).toMatchObject({ count: 7, controlCount: 1, value: 7, controlValue: 1, percentDifference: 600 });
    // agrees: 2 vs 2 = 0%; orientation 0 vs 3 = -100%.
    expect(r.differences.rows.find((x) => x.code === "agrees")!.percentDifference).toBe(0);
    expect(r.differences.rows.find((x) => x.code === "gives-orientation")!.percentDifference).toBe(-100);
    // Shares: 7/9 vs 1/6 of each condition's acts, in percentage points.
    close(d.proportionPointDifference, (7 / 9 - 1 / 6) * 100);
  });

  it("gives null with a note, never Infinity, when the control count is 0", () => {
    const r = compare(s, { control: "treatment" });
    const d = r.differences.rows.find((x) => x.code === "gives-orientation")!;
    expect(d).toMatchObject({ condition: "control", count: 3, controlCount: 0, percentDifference: null });
    expect(d.note).toMatch(/control count is 0/);
    expect(JSON.stringify(r)).not.toMatch(/Infinity|NaN/);
  });

  it("counts per condition, role, speaker with proportions", () => {
    const r = compare(s, { control: "control" });
    expect(r.conditions.map((c) => c.name)).toEqual(["control", "treatment"]);
    const control = r.frequencies.byCondition[0];
    expect(control).toMatchObject({ key: "control", total: 6, sessions: 1, runs: 1 });
    expect(control.counts["gives-orientation"]).toBe(3);
    expect(control.proportions["gives-orientation"]).toBe(0.5);
    const alice = r.frequencies.bySpeaker.find((x) => x.key === "Alice")!;
    expect(alice.counts["gives-opinion"]).toBe(5);
    expect(alice.total).toBe(9);
    const ai = r.frequencies.byRole.find((x) => x.key === "member")!;
    expect(ai.total).toBe(15);
    expect(r.frequencies.byConditionRole.map((x) => x.key)).toEqual(["control / member", "treatment / member"]);
  });

  it("normalises by the number of runs", () => {
    const runs = study([
      ["c1", "control", "1", { Alice: { agrees: 2 } }],
      ["t1", "treatment", "1", { Alice: { agrees: 5 } }],
      ["t2", "treatment", "2", { Alice: { agrees: 3 } }],
    ]);
    const r = compare(runs, { control: "control", normaliseByRuns: true });
    const d = r.differences.rows.find((x) => x.code === "agrees")!;
    // 8 acts over 2 runs = 4 per run, against 2 per run: +100% (raw counts would say +300%).
    expect(d).toMatchObject({ count: 8, runs: 2, value: 4, controlValue: 2, percentDifference: 100 });
    expect(r.differences.basis).toBe("per-run");
    expect(compare(runs, { control: "control" }).differences.rows.find((x) => x.code === "agrees")!.percentDifference).toBe(300);
  });

  it("collapses codes, drops codes and merges conditions into groups", () => {
    const g = study([
      ["c1", "control", "1", { Alice: { "asks-orientation": 1, "gives-orientation": 1, none: 4 } }],
      ["a1", "cond-a", "1", { Alice: { "asks-orientation": 2, "gives-orientation": 1, none: 1 } }],
      ["b1", "cond-b", "1", { Alice: { "gives-orientation": 3 } }],
    ]);
    const r = compare(g, {
      control: "control",
      collapse: parseMergeList("orientation=asks-orientation+gives-orientation", "--collapse"),
      drop: ["none"],
      conditionGroups: parseMergeList("AI=cond-a+cond-b", "--group"),
    });
    expect(r.labels).not.toContain("none");
    expect(r.labels).not.toContain("asks-orientation");
    expect(r.labels.filter((l) => l === "orientation")).toHaveLength(1);
    expect(r.conditions).toEqual([
      { name: "control", members: ["control"], sessions: 1, runs: 1, acts: 2 },
      { name: "AI", members: ["cond-a", "cond-b"], sessions: 2, runs: 2, acts: 6 },
    ]);
    expect(r.acts).toMatchObject({ counted: 8, dropped: 5 });
    expect(r.differences.rows.find((d) => d.code === "orientation")).toMatchObject({ count: 6, controlCount: 2, percentDifference: 200 });
  });

  it("names unknown codes, conditions and controls with the valid list", () => {
    const s2 = study([
      ["c1", "control", "1", { Alice: { agrees: 1 } }],
      ["t1", "treatment", "1", { Alice: { agrees: 1 } }],
    ]);
    expect(() => compare(s2, { control: "placebo" })).toThrow(/"placebo" is not a condition of this study; the conditions are: control, treatment/);
    expect(() => compare(s2, { drop: ["nonsense"] })).toThrow(/compare\.drop: unknown code "nonsense"; codes are: shows-solidarity/);
    expect(() => compare(s2, { collapse: { x: ["agrees", "agreez"] } })).toThrow(/names unknown code "agreez"/);
    expect(() => compare(s2, { conditionGroups: { AI: ["treatmnt"] } })).toThrow(
      /unknown condition "treatmnt"; the study's conditions are: control, treatment/,
    );
    expect(() => mapCodes(["a", "b"], { x: ["a"], y: ["a", "b"] })).toThrow(/merged into both "x" and "y"/);
    expect(() => parseMergeList("AI", "--group")).toThrow(/--group: "AI" should look like name=a\+b/);
  });

  it("reports code records for unknown turns and codes outside the codebook instead of guessing", () => {
    const base = study([["c1", "control", "1", { Alice: { agrees: 1 } }]]);
    const extra: CodeRecord[] = [
      { ...base.records[0], turn: "t9999" },
      { ...base.records[0], session: "ghost" },
      { ...base.records[0], turn: base.sessions[0].turns[0].id, codes: ["agrees", "made-up"] },
    ];
    const data = codedTurns(base.sessions, [...base.records, ...extra], labels);
    expect(data).toMatchObject({ orphanRecords: 2, orphanExamples: ["c1/t9999", "ghost/t0000"], unknownLabels: ["made-up"], codedTurns: 1 });
    const r = compareConditions(data, {});
    // The later record for t0000 wins (as readCodes does): agrees + made-up.
    expect(r.frequencies.byCondition[0].counts).toMatchObject({ agrees: 1, "made-up": 1 });
    expect(r.notes.join(" ")).toMatch(/codes not in the codebook were counted as found: made-up/);
    expect(r.notes.join(" ")).toMatch(/2 code records name a session or turn the study does not have/);
  });

  it("handles a condition with no codes (chi-square leaves the empty row out and says so)", () => {
    const empty = study([
      ["c1", "control", "1", { Alice: { agrees: 2, "gives-opinion": 1 } }],
      ["t1", "treatment", "1", { Alice: { agrees: 1, "gives-opinion": 3 } }],
      ["e1", "silent", "1", { Alice: {} }],
    ]);
    const r = compare(empty, { control: "control", design: "between" });
    const silent = r.frequencies.byCondition.find((c) => c.key === "silent")!;
    expect(silent.total).toBe(0);
    expect(silent.proportions.agrees).toBeNull();
    expect(r.differences.rows.find((d) => d.condition === "silent" && d.code === "agrees")).toMatchObject({
      count: 0,
      percentDifference: -100,
      proportionPointDifference: null,
    });
    const chi = r.tests.find((t) => t.family === "chi-square" && t.across === "conditions")!;
    expect(chi.details!.emptyRows).toEqual(["silent"]);
    expect(chi.details!.rows).toEqual(["control", "treatment"]);
    // A test needs 2 units per side: 1 vs 1 session is reported as too few, not thrown.
    const line = r.tests.find((t) => t.condition === "silent" && t.code === "agrees")!;
    expect(line.p).toBeNull();
    expect(line.note).toMatch(/1 vs 1 sessions: too few to test/);
    expect(JSON.stringify(r)).not.toMatch(/Infinity|NaN/);
  });
});

describe("compareConditions: tests between conditions (reference values from SciPy 1.17)", () => {
  const paired = pairedStudy();

  it("with nothing declared, sessions are the units: one permutation test per code, Holm within the comparison (scipy values)", () => {
    const r = compare(paired, { control: "control" });
    expect(r.design).toMatchObject({ design: "between", unit: "session", source: "default" });
    expect(r.comparisons[0]).toMatchObject({ paired: null, unit: "session", nCondition: 5, nReference: 5 });
    // One line per code: never a second test for the same row.
    const lines = r.tests.filter((t) => t.code === "gives-opinion");
    expect(lines).toHaveLength(1);
    // Session sums: ai [5,9,11,9,7] vs control [2,3,4,5,5].
    // python: stats.permutation_test((x, y), mean(x) - mean(y), n_resamples=10000) -> 4.4, p 0.023809523809523808 (exact, 252 splits)
    const t = lines[0];
    expect(t).toMatchObject({ family: "permutation", unit: "session", n: 10, method: "exact (252 arrangements)", effectSizeName: "Hedges' g" });
    close(t.statistic, 4.4);
    close(t.p, 0.023809523809523808);
    close(t.smallestP, 2 / 252);
    // agrees per session: ai [1,1,1,1,1] vs control [2,1,2,1,2] -> p 0.16666666666666666.
    const agrees = r.tests.find((x) => x.code === "agrees")!;
    close(agrees.p, 0.16666666666666666);
    // Holm over the two codes that ran: 2 × .0238 = .0476, then max(that, .1667).
    expect(t).toMatchObject({ adjust: "holm", familySize: 2 });
    close(t.pAdjusted, 0.047619047619047616);
    close(agrees.pAdjusted, 0.16666666666666666);
    // 5 vs 5 sessions: too few for a bootstrap interval of g.
    expect(t.effectCi95).toBeNull();
    expect(t.mde80).toBeGreaterThan(1.5);
    // Codes nobody used are not tested and stay out of the family.
    const unused = r.tests.find((x) => x.code === "shows-tension")!;
    expect(unused.p).toBeNull();
    expect(unused.note).toMatch(/no acts with this code/);
    // Benjamini-Hochberg on request: .0238 × 2/1 = .0476, .1667 × 2/2.
    const bh = compare(paired, { control: "control", inference: { ...DEFAULT_INFERENCE, adjust: "bh" } });
    close(bh.tests.find((x) => x.code === "gives-opinion")!.pAdjusted, 0.047619047619047616);
  });

  it("named alternatives replace the permutation test: Mann-Whitney with Cliff's delta, Welch with Hedges' g (scipy values)", () => {
    const mw = compare(paired, { control: "control", inference: { ...DEFAULT_INFERENCE, test: "mann-whitney" } }).tests.find(
      (t) => t.code === "gives-opinion",
    )!;
    // python: stats.mannwhitneyu([5,9,11,9,7], [2,3,4,5,5]) -> 24.0, 0.019624414976639706
    expect(mw).toMatchObject({ family: "mann-whitney", statistic: 24, effectSizeName: "Cliff's delta" });
    close(mw.p, 0.019624414976639706);
    close(mw.effectSize, 2 * (24 / 25) - 1);
    const welch = compare(paired, { control: "control", inference: { ...DEFAULT_INFERENCE, test: "welch" } }).tests.find((t) => t.code === "gives-opinion")!;
    // python: stats.ttest_ind(x, y, equal_var=False) -> 3.7455287353384934, 0.008584327730857332, df 6.362846642165053
    close(welch.statistic, 3.7455287353384934);
    close(welch.p, 0.008584327730857332);
    close(welch.df, 6.362846642165053);
  });

  it("a declared within design pairs people by id (mean acts per session), and 2 people cannot reach .05", () => {
    const r = compare(paired, { control: "control", design: "within" });
    expect(r.comparisons[0].paired).toEqual(["alice", "bob"]);
    const alice = r.units.find((u) => u.condition === "ai" && u.unit === "alice")!;
    expect(alice).toMatchObject({ sessions: 5 });
    expect(alice.counts["gives-opinion"]).toBe(20);
    const t = r.tests.find((x) => x.code === "gives-opinion")!;
    expect(t).toMatchObject({ family: "paired-permutation", unit: "participant", n: 2 });
    // Alice 4 vs 1.8, Bob 4.2 vs 2: both differences 2.2 -> every sign flip of 2 pairs: p = 2 · 1/4.
    close(t.statistic, 2.2);
    close(t.p, 0.5);
    expect(t.note).toMatch(/2 paired participants: the smallest two-sided p this test can give is \.50/);
  });

  it("chi-square across conditions with Cramér's V matches scipy.stats.chi2_contingency", () => {
    const r = compare(paired, { control: "control" });
    const chi = r.tests.find((t) => t.family === "chi-square" && t.across === "conditions")!;
    expect(chi.details!.table).toEqual([
      [8, 19],
      [5, 41],
    ]);
    // python: stats.chi2_contingency([[5,41],[8,19]]) -> 2.909589836492011, p 0.08805426615340382, dof 1 (Yates)
    const chiSquare = chi.details!.chiSquare as { statistic: number; df: number; p: number; method: string };
    close(chiSquare.statistic, 2.909589836492011);
    close(chiSquare.p, 0.08805426615340382);
    expect(chiSquare).toMatchObject({ df: 1, method: expect.stringMatching(/Yates/) });
    close(chi.effectSize, 0.236727014914657);
    // One expected count of four is below 5 (27 · 13 / 73 = 4.81): Cochran's rule fails, so the
    // line reports Fisher's exact test. python: stats.fisher_exact([[8,19],[5,41]]) -> 3.4526315789473685, p 0.059147809157878706
    expect(chi).toMatchObject({ n: 73, df: null, unit: "act", statisticName: "odds ratio", test: expect.stringMatching(/^Fisher's exact test/) });
    close(chi.statistic, 3.4526315789473685);
    close(chi.p, 0.059147809157878706);
    expect(chi.method).toMatch(/Fisher/);
    const roles = r.tests.find((t) => t.family === "chi-square" && t.across === "roles")!;
    expect(roles.note).toMatch(/needs at least 2 roles/);
  });

  it("uses proportions per unit with measure=proportion", () => {
    const r = compare(paired, { control: "control", measure: "proportion" });
    const first = r.units.find((u) => u.condition === "ai" && u.unit === "ai-r1")!;
    expect(first).toMatchObject({ total: 6, sessions: 1 });
    expect(first.counts["gives-opinion"]).toBe(5);
    expect(r.tests.find((t) => t.code === "gives-opinion")!.measure).toBe("proportion");
  });

  it("without a control compares every pair of conditions", () => {
    const three = study([
      ["a", "A", "1", { X: { agrees: 1 } }],
      ["b", "B", "1", { X: { agrees: 2 } }],
      ["c", "C", "1", { X: { agrees: 3 } }],
    ]);
    const r = compare(three);
    expect(r.comparisons.map((c) => `${c.condition}-${c.reference}`)).toEqual(["B-A", "C-A", "C-B"]);
    expect(r.differences.rows).toEqual([]);
    expect(r.notes.join(" ")).toMatch(/no control condition/);
  });

  it("renders CSV and a readable summary", () => {
    const r = compare(paired, { control: "control" });
    const csv = compareCsvs(r);
    expect(csv.frequencies.split("\n")[0]).toBe("scope,key,code,count,proportion,per_run,total,sessions,runs");
    expect(csv.differences).toContain("ai,control,gives-opinion,41,19,5,5,41,19,115.78947368421053,");
    expect(csv.tests.split("\n")[0]).toContain("p,p_adjusted,adjustment,family_size");
    const text = compareSummary(r);
    expect(text).toContain('Difference from control "control"');
    expect(text).toContain("+116% (41 vs 19)");
    expect(text).toContain("ai vs control: 5 vs 5 sessions");
    expect(text).toContain("Holm-adjusted within each comparison's codes");
  });
});

describe("compareFrequencies scoped to the conditions (the dashboard's view)", () => {
  it("gives the conditions' rows, differences and counts of a full count, and counts nothing else", () => {
    const s = study([
      ["c1", "control", "1", { Alice: { "gives-opinion": 1, agrees: 2 }, AI: { "gives-orientation": 3 } }],
      ["c2", "control", "2", { Bob: { agrees: 1 }, AI: { "gives-opinion": 2 } }],
      ["t1", "treatment", "1", { Alice: { "gives-opinion": 4, agrees: 2 }, AI: { "gives-opinion": 3 } }],
      ["t2", "treatment", undefined, { Bob: { disagrees: 2 }, AI: {} }],
    ]);
    const data = codedTurns(s.sessions, s.records, labels);
    for (const options of [
      { control: "control" },
      { control: "control", normaliseByRuns: true, collapse: { opinions: ["gives-opinion", "asks-opinion"] }, drop: ["agrees"] },
    ]) {
      const whole = compareFrequencies(data, options);
      const scoped = compareFrequencies(data, options, undefined, "conditions");
      expect(scoped.frequencies.byCondition).toEqual(whole.frequencies.byCondition);
      expect(scoped.differences).toEqual(whole.differences);
      expect(scoped.conditions).toEqual(whole.conditions);
      expect(scoped.acts).toEqual(whole.acts);
      expect(scoped.labels).toEqual(whole.labels);
      expect(scoped.options).toEqual(whole.options);
      expect(whole.units.length).toBeGreaterThan(0);
      expect(whole.frequencies.bySpeaker.length).toBeGreaterThan(0);
      expect([scoped.units, scoped.frequencies.byRole, scoped.frequencies.bySpeaker, scoped.frequencies.byConditionRole]).toEqual([[], [], [], []]);
    }
  });
});
