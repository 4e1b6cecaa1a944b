import { describe, expect, it } from "vitest";
import { compareConditions } from "../../../src/analysis/compare/compare.js";
import { compareMeasures, type UnitValue } from "../../../src/analysis/concepts/conditions.js";
import { comparisonPairs } from "../../../src/analysis/shared/design.js";
import { codedTurns } from "../../../src/analysis/shared/table.js";
import { pairedStudy } from "../compare/fixture.js";

describe("one definition of the comparisons and their direction (condition minus reference)", () => {
  it("every condition against the control when the study has it, else every pair against the earlier condition", () => {
    expect(comparisonPairs(["control", "b", "a"], "control")).toEqual([
      ["b", "control"],
      ["a", "control"],
    ]);
    expect(comparisonPairs(["c", "a", "b"])).toEqual([
      ["b", "a"],
      ["c", "a"],
      ["c", "b"],
    ]);
    expect(comparisonPairs(["b", "a"], "placebo")).toEqual([["b", "a"]]);
  });

  it("compare and the measures of topics and concepts compare the same pairs the same way round", () => {
    const study = pairedStudy();
    const labels = ["gives-opinion", "agrees"];
    const data = codedTurns(study.sessions, study.records, labels);
    // Acts of gives-opinion per session: ai 5, 9, 11, 9, 7 (mean 8.2); control 2, 3, 4, 5, 5 (mean 3.8).
    const perSession: UnitValue[] = study.sessions.map((s) => ({
      session: s.id,
      condition: s.metadata.condition!,
      value: study.records.filter((r) => r.session === s.id && r.codes?.includes("gives-opinion")).length,
    }));
    for (const control of ["control", undefined]) {
      const compared = compareConditions(data, { control });
      const [measured] = compareMeasures([{ measure: "gives-opinion", level: "session", values: perSession }], { control });
      const pairs = comparisonPairs(["ai", "control"], control);
      expect(compared.comparisons.map((c) => [c.condition, c.reference])).toEqual(pairs);
      expect(measured.tests.map((t) => [t.a, t.b])).toEqual(pairs);
      const line = compared.tests.find((t) => t.code === "gives-opinion")!;
      const difference = (line.details as { meanDifference: number }).meanDifference;
      // With control: ai minus control = +4.4; without: control minus ai (the earlier condition) = -4.4.
      expect(difference).toBeCloseTo(control ? 4.4 : -4.4, 12);
      expect(measured.tests[0].meanDiff).toBeCloseTo(difference, 12);
      expect(Math.sign(measured.tests[0].effectSize!)).toBe(Math.sign(line.effectSize!));
    }
  });
});
