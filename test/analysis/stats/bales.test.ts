import { describe, expect, it } from "vitest";
import { loadCodebook } from "../../../src/coding/codebook/load.js";
import type { NominalCodebook } from "../../../src/coding/codebook/schema.js";
import { codedTurns } from "../../../src/analysis/shared/table.js";
import { balesProfiles, phaseMovement, phaseOverall, profileFrame, thirdOf, transitions } from "../../../src/analysis/stats/bales.js";
import { codeSequences, segmentDistributions } from "../../../src/analysis/stats/sequences.js";
import { buildStats } from "../../../src/analysis/stats/report.js";
import { statsCsvs, statsSummary } from "../../../src/analysis/stats/output.js";
import { makeSession, recordsFor, type TurnSpec } from "../compare/fixture.js";

const bales = (await loadCodebook("bales-ipa")) as NominalCodebook;
const labels = bales.categories.map((c) => c.id);

function join(...specs: [string, string, TurnSpec[]][]) {
  const built = specs.map(([id, condition, turns]) => makeSession(id, condition, "1", turns));
  const sessions = built.map((b) => b.session);
  const records = built.flatMap((b) => recordsFor(b.session, b.codes));
  return { sessions, data: codedTurns(sessions, records, labels) };
}

describe("act-to-act transitions", () => {
  it("a 3-turn session: agrees -> gives-opinion -> agrees", () => {
    const { data } = join([
      "s",
      "A",
      [
        { who: "Alice", code: "agrees" },
        { who: "Bob", code: "gives-opinion" },
        { who: "Alice", code: "agrees" },
      ],
    ]);
    const t = transitions(data).overall;
    const a = labels.indexOf("agrees");
    const o = labels.indexOf("gives-opinion");
    expect(t.transitions).toBe(2);
    expect(t.counts[a][o]).toBe(1);
    expect(t.counts[o][a]).toBe(1);
    expect(t.counts.flat().reduce((x, y) => x + y, 0)).toBe(2);
    expect(t.proportions[a][o]).toBe(1);
    expect(t.proportions[a][a]).toBe(0);
    expect(t.proportions[labels.indexOf("disagrees")].every((v) => v === null)).toBe(true);
  });

  it("skips uncoded turns and never crosses sessions", () => {
    const { data } = join(
      ["s1", "A", [{ who: "Alice", code: "agrees" }, { who: "Bob" }, { who: "Alice", code: "disagrees" }]],
      [
        "s2",
        "B",
        [
          { who: "Alice", code: "disagrees" },
          { who: "Bob", code: "disagrees" },
        ],
      ],
    );
    const t = transitions(data);
    const a = labels.indexOf("agrees");
    const d = labels.indexOf("disagrees");
    expect(t.overall.transitions).toBe(2);
    expect(t.overall.counts[a][d]).toBe(1);
    expect(t.overall.counts[d][d]).toBe(1);
    expect(t.conditions.map((c) => [c.condition, c.matrix.transitions])).toEqual([
      ["A", 1],
      ["B", 1],
    ]);
    expect(data.uncodedTurns).toBe(1);
  });
});

describe("interaction profiles and ratios", () => {
  const turns: TurnSpec[] = [
    ...["agrees", "agrees", "disagrees", "asks-opinion", "gives-opinion", "gives-opinion", "gives-opinion", "none"].map((code) => ({ who: "Alice", code })),
    { who: "AI", code: "gives-orientation" },
  ];
  const { data } = join(["s", "A", turns]);
  const p = balesProfiles(data, profileFrame(data.labels, bales));

  it("percent per category and area excludes the fallback", () => {
    const alice = p.members.find((m) => m.name === "Alice")!.profile;
    expect(alice.acts).toBe(7);
    expect(alice.fallback).toBe(1);
    expect(alice.counts.none).toBe(1);
    expect(alice.percent.none).toBeUndefined();
    expect(alice.percent.agrees).toBeCloseTo(200 / 7, 12);
    expect(alice.groups["positive-reactions"]).toEqual({ count: 2, percent: (100 * 2) / 7 });
    expect(alice.groups.evaluation.count).toBe(4);
    expect(alice.groups.questions.percent).toBeCloseTo(100 / 7, 12);
  });

  it("classic ratios, null when the denominator is 0", () => {
    const r = p.members.find((m) => m.name === "Alice")!.profile.ratios;
    expect(r.positiveToNegative).toEqual({ numerator: 2, denominator: 1, value: 2 });
    expect(r.questionsToAttemptedAnswers).toEqual({ numerator: 1, denominator: 3, value: 1 / 3 });
    expect(r.agreementToDisagreement.value).toBe(2);
    expect(r.taskToSocioEmotional).toEqual({ numerator: 4, denominator: 3, value: 4 / 3 });
    expect(r.tensionReleaseToTension).toEqual({ numerator: 0, denominator: 0, value: null });
    expect(p.overall.acts).toBe(8);
    expect(p.conditions[0].profile.counts["gives-orientation"]).toBe(1);
    expect(p.roles.map((x) => x.role)).toEqual(["member"]);
  });
});

describe("phase movement and segments", () => {
  const codes = ["gives-orientation", "asks-orientation", "none", "gives-opinion", "asks-opinion", "gives-suggestion", "asks-suggestion"];
  const { data } = join(["s", "A", codes.map((code, i) => ({ who: i % 2 ? "Bob" : "Alice", code }))]);

  it("thirds by position: act k of n is in third floor(3k/n)", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((k) => thirdOf(k, 7))).toEqual([0, 0, 0, 1, 1, 2, 2]);
    expect([0, 1, 2].map((k) => thirdOf(k, 3))).toEqual([0, 1, 2]);
  });

  it("orientation, evaluation, control shares move as Bales & Strodtbeck describe (fallback left out)", () => {
    const ph = phaseMovement(data, profileFrame(data.labels, bales));
    expect(ph.groups.slice(0, 3)).toEqual(["orientation", "evaluation", "control"]);
    const thirds = ph.sessions[0].thirds;
    expect(thirds.map((t) => t.acts)).toEqual([2, 2, 2]);
    expect(thirds.map((t) => t.shares.orientation)).toEqual([1, 0, 0]);
    expect(thirds.map((t) => t.shares.evaluation)).toEqual([0, 1, 0]);
    expect(thirds.map((t) => t.shares.control)).toEqual([0, 0, 1]);
    expect(thirds[0].shares["attempted-answers"]).toBe(0.5);
    expect(ph.overall).toEqual(thirds);
  });

  it("phaseOverall is phaseMovement's overall over several sessions, without rendering each session's thirds", () => {
    const turns = (list: string[], who: string[]) => list.map((code, i) => ({ who: who[i % who.length], code }));
    const two = join(["s", "A", turns(codes, ["Alice", "Bob"])], ["t", "B", turns([...codes].reverse().slice(1), ["Cy"])], ["u", "A", []]);
    const frame = profileFrame(two.data.labels, bales);
    const overall = phaseOverall(two.data, frame);
    expect(overall).toStrictEqual(phaseMovement(two.data, frame).overall);
    expect(overall.map((t) => t.acts)).toEqual([4, 4, 3]);
  });

  it("sequences keep every turn; segments split coded turns (fallback kept) into thirds", () => {
    const withGap = join(["s", "A", [{ who: "Alice", code: "agrees" }, { who: "Bob" }, { who: "Alice", code: "none" }]]);
    expect(codeSequences(withGap.data)[0]).toEqual({
      session: "s",
      condition: "A",
      participants: ["alice", "bob"],
      speakers: [0, 1, 0],
      codes: [labels.indexOf("agrees"), -1, labels.indexOf("none")],
    });
    const seg = segmentDistributions(data);
    const [early, middle, late] = seg.sessions[0].segments;
    expect([early.turns, middle.turns, late.turns]).toEqual([3, 2, 2]);
    expect(early.counts.none).toBe(1);
    expect(early.proportions["gives-orientation"]).toBeCloseTo(1 / 3, 12);
    expect(late.counts["asks-suggestion"]).toBe(1);
    expect(seg.conditions[0].segments).toEqual(seg.sessions[0].segments);
  });
});

describe("buildStats", () => {
  it("assembles metrics and code analyses, JSON-safe, with CSV and summary", () => {
    const { sessions, data } = join(
      [
        "s1",
        "A",
        [
          { who: "Alice", code: "agrees", start: 0 },
          { who: "Bob", code: "gives-opinion", start: 30 },
        ],
      ],
      ["s2", "B", [{ who: "Alice", code: "disagrees" }, { who: "Bob" }]],
    );
    const r = buildStats(sessions, { data, codebook: bales, coder: "rules" });
    expect(r.sessions).toHaveLength(2);
    expect(r.codes!.codebook.id).toBe("bales-ipa");
    expect(r.codes!.codedTurns).toBe(3);
    expect(r.notes.join(" ")).toMatch(/1 of 2 sessions have no usable turn times/);
    expect(JSON.stringify(r)).not.toMatch(/Infinity|NaN/);
    const csv = statsCsvs(r);
    expect(csv.sessions.split("\n")).toHaveLength(4);
    expect(csv.participants.split("\n")[1]).toBe("s1,A,1,alice,Alice,member,human,1,1,0.5,0.3333333333333333,1,2,2");
    const text = statsSummary(r);
    expect(text).toContain("Phase movement");
    expect(text).toContain("positiveToNegative");
    expect(buildStats(sessions).codes).toBeNull();
  });
});
