import { describe, expect, it } from "vitest";
import { createConceptExtractor } from "../../../src/analysis/concepts/extract.js";
import { makeLexicon, parseLexicon } from "../../../src/analysis/concepts/lexicon.js";
import { mtld, mtldPass } from "../../../src/analysis/concepts/mtld.js";
import { analyseSessionConcepts } from "../../../src/analysis/concepts/measures.js";
import { compareMeasures, type UnitValue } from "../../../src/analysis/concepts/conditions.js";
import { DEFAULT_INFERENCE } from "../../../src/analysis/shared/design.js";
import { buildConceptsReport, conceptsCsv } from "../../../src/analysis/concepts/report.js";
import { gardenLines, makeSession } from "../topics/fixture.js";

const extractor = createConceptExtractor();

describe("concept extraction", () => {
  it("normalises case and plurals and joins noun compounds", () => {
    expect(extractor.extract("The CHILDREN could plant Tomatoes and herbs in the Beds.")).toEqual(["child", "tomato", "herb", "bed"]);
    expect(extractor.extract("Yes, and the garden could have a compost bin for the kitchen scraps.")).toEqual(["garden", "compost bin", "kitchen scrap"]);
  });

  it("drops stop-words, fillers and pronouns, and treats a possessive as the end of a compound", () => {
    expect(extractor.extract("Um, yeah, I think we need a lot of things, like, you know.")).toEqual([]);
    expect(extractor.extract("the city council's bike lanes")).toEqual(["city council", "bike lane"]);
  });

  it("skips auxiliaries, single letters and tokens with digits (ids, mentions)", () => {
    expect(extractor.extract("Which logo do we ship?\n  A: round\n  B: square")).toEqual(["logo"]);
    expect(extractor.extract("B, the round one clashes with the app icon. <@U02JONAS|jonas>")).toEqual(["app icon", "jonas"]);
  });

  it("reads noun-or-verb words from context", () => {
    expect(extractor.extract("Um, a rain barrel would water the tomatoes.")).toEqual(["rain barrel", "tomato"]);
    expect(extractor.extract("We plan it. The plan is good.")).toEqual(["plan"]);
  });

  it("keeps lexicon terms whole (plural forms too) and ignores lexicon words", () => {
    const lex = makeLexicon(["solar pump", "design thinking"], ["garden"]);
    const ex = createConceptExtractor(lex);
    expect(ex.extract("A solar pump for the garden, and two solar pumps. Design thinking helps.")).toEqual(["solar pump", "solar pump", "design thinking"]);
  });
});

describe("lexicon files", () => {
  it("reads JSON and sectioned text", () => {
    const a = parseLexicon('{"terms": ["Bike Lane"], "ignore": ["Session"]}', "lex.json");
    expect(a.terms).toEqual([["bike", "lane"]]);
    expect([...a.ignore]).toEqual(["session"]);
    const b = parseLexicon("# my lexicon\n[terms]\nbike lane\ndesign thinking # a method\n[ignore]\nsession\n", "lex.txt");
    expect(b.terms).toEqual([
      ["bike", "lane"],
      ["design", "thinking"],
    ]);
    expect([...b.ignore]).toEqual(["session"]);
  });

  it("names the file and line of a bad entry", () => {
    expect(() => parseLexicon("bike lane\n", "lex.txt")).toThrow(/lex\.txt:1: .*outside a section/);
    expect(() => parseLexicon("[terms]\nx\n[stop]\n", "lex.txt")).toThrow(/lex\.txt:3: unknown section \[stop\]/);
    expect(() => parseLexicon('{"terms": "bike"}', "lex.json")).toThrow(/lex\.json: terms:/);
  });
});

describe("MTLD", () => {
  // Hand-computed (threshold 0.72). Forward "the cat sat on the mat the end": TTR falls to
  // 5/7 = 0.714 at the 7th word (one factor), then "end" leaves TTR 1 (partial 0):
  // 8 / 1 = 8. Backward "end the mat the on sat cat the": TTR never reaches 0.72; it ends at
  // 6/8 = 0.75, a partial factor (1 - 0.75) / (1 - 0.72) = 0.892857: 8 / 0.892857 = 8.96.
  // MTLD = (8 + 8.96) / 2 = 8.48.
  it("matches the hand-computed example, with a partial factor", () => {
    const words = "the cat sat on the mat the end".split(" ");
    expect(mtldPass(words).factors).toBeCloseTo(1, 12);
    expect(mtldPass([...words].reverse()).factors).toBeCloseTo(0.25 / 0.28, 12);
    const r = mtld(words);
    expect(r.forward).toBeCloseTo(8, 12);
    expect(r.backward).toBeCloseTo(8.96, 12);
    expect(r.mtld).toBeCloseTo(8.48, 12);
    expect(r.tokens).toBe(8);
  });

  it("counts whole factors both ways and is undefined when the TTR never drops", () => {
    expect(mtld("a b a b c c".split(" ")).mtld).toBeCloseTo(3, 12);
    expect(mtld(["a", "b", "c"]).mtld).toBeNull();
    expect(mtld([]).mtld).toBeNull();
  });
});

describe("session concept measures", () => {
  const session = makeSession("garden", "A", gardenLines);

  it("counts totals, unique concepts, rates and first mentions", () => {
    const r = analyseSessionConcepts(session, extractor, { speakers: "human", rateBasis: "session" });
    const [alice, bob] = r.participants;
    expect(r.participants.map((p) => p.participant)).toEqual(["alice", "bob"]);
    expect(alice).toMatchObject({ turns: 3, totalConcepts: 8, uniqueConcepts: 7, introduced: 5, pickedUp: 2 });
    expect(alice.conceptsPerUtterance).toBeCloseTo(8 / 3, 12);
    expect(alice.rate).toEqual({ value: 8, basis: "session", minutes: 1 });
    expect(bob.rate.value).toBeCloseTo(5, 12);
    expect(r).toMatchObject({ totalConcepts: 13, uniqueConcepts: 10, durationMinutes: 1 });
    expect(r.firstMentions.find((f) => f.concept === "child")).toMatchObject({ speaker: "agent", turn: "t0002", start: 21, mentions: 2 });
    expect(r.firstMentions.find((f) => f.concept === "rain barrel")).toMatchObject({ speaker: "bob", turn: "t0004" });
  });

  it("uses the participant's active span with rate basis 'active'", () => {
    const r = analyseSessionConcepts(session, extractor, { speakers: "human", rateBasis: "active" });
    expect(r.participants[1].rate.minutes).toBeCloseTo(38 / 60, 12); // bob spoke from 12 s to 50 s
    expect(r.participants[1].rate.value).toBeCloseTo(5 / (38 / 60), 12);
    expect(r.participants[1].rate.basis).toBe("active");
  });

  it("reports a null rate with a reason when there are no times", () => {
    const untimed = makeSession(
      "untimed",
      "A",
      gardenLines.map(([s, t]) => [s, t] as [string, string]),
    );
    const r = analyseSessionConcepts(untimed, extractor, { speakers: "human", rateBasis: "session" });
    expect(r.participants[0].rate).toEqual({ value: null, basis: "session", minutes: null, reason: "no turn times" });
    expect(r.participants[0].totalConcepts).toBe(8);
  });

  it("times to the minute spanning one minute: no rate, with the reason (the span could be anything up to two minutes)", () => {
    const stamped = makeSession(
      "stamped",
      "A",
      gardenLines.map(([s, t], i) => [s, t, i < 5 ? 0 : 60] as [string, string, number]),
    );
    const r = analyseSessionConcepts(stamped, extractor, { speakers: "human", rateBasis: "session" });
    expect(r.rate).toEqual({ value: null, basis: "session", minutes: null, reason: "times to the minute spanning one minute" });
    expect(r.participants[0].totalConcepts).toBe(8);
  });

  it("--rate active: a participant's two turns across one minute get no rate when the session's clock keeps minutes", () => {
    // ChatCollab's Slack paste: Benjamin's two turns at 10:16 and 10:17 gave 80 concepts a minute.
    const starts = [0, 0, 60, 120, 60, 180];
    const stamped = makeSession(
      "stamped",
      "A",
      gardenLines.map(([s, t], i) => [s, t, starts[i]] as [string, string, number]),
    );
    const r = analyseSessionConcepts(stamped, extractor, { speakers: "human", rateBasis: "active" });
    const [alice, bob] = r.participants;
    expect(alice.rate).toEqual({ value: 8 / 3, basis: "active", minutes: 3 });
    expect(bob.rate).toEqual({ value: null, basis: "active", minutes: null, reason: "times to the minute spanning one minute" });
  });

  it("builds the who-picks-up-whose matrix and referential cohesion", () => {
    const r = analyseSessionConcepts(session, extractor, { speakers: "all", rateBasis: "session" });
    expect(r.uptake.speakers).toEqual(["alice", "bob", "agent"]);
    expect(r.uptake.matrix).toEqual([
      [0, 1, 1], // alice took up bob's rain barrel and the agent's child
      [1, 0, 0], // bob took up alice's tomato
      [1, 0, 0], // the agent took up alice's bed
    ]);
    const alice = r.participants.find((p) => p.participant === "alice")!;
    const bob = r.participants.find((p) => p.participant === "bob")!;
    expect(alice.cohesion).toBeCloseTo(0.5, 12); // t3: 2 of 4 in t2; t5: 1 of 2 in t4
    expect(bob.cohesion).toBeCloseTo(0.25, 12); // t1: 0 of 3; t4: 1 of 2
    expect(r.participants.map((p) => p.participant)).toEqual(["alice", "bob", "agent"]);
  });
});

describe("condition comparisons", () => {
  const within = { ...DEFAULT_INFERENCE, design: { ...DEFAULT_INFERENCE.design, design: "within" as const, unit: "participant" as const } };
  const persons = new Map([
    ["sA1", ["p1", "p2", "p3", "p4"]],
    ["sA2", ["p3"]],
    ["sB1", ["p1", "p2", "p3"]],
  ]);

  it("pairs people by id in a declared within design: one paired permutation test (scipy values)", () => {
    const values: UnitValue[] = [
      { session: "sA1", participant: "p1", condition: "A", value: 3 },
      { session: "sB1", participant: "p1", condition: "B", value: 1 },
      { session: "sA1", participant: "p2", condition: "A", value: 5 },
      { session: "sB1", participant: "p2", condition: "B", value: 2 },
      { session: "sA1", participant: "p3", condition: "A", value: 4 },
      { session: "sB1", participant: "p3", condition: "B", value: 4 },
      { session: "sA2", participant: "p3", condition: "A", value: 6 }, // a second A session: p3's A value is the mean, 5
      { session: "sA1", participant: "p4", condition: "A", value: null },
      { session: "sA1", participant: "agent", condition: "A", value: 9 }, // not a person unit: left out
    ];
    const [c] = compareMeasures([{ measure: "rate", level: "participant", values }], { inference: within, persons });
    expect(c).toMatchObject({ design: "within", unit: "participant", level: "participant", designSource: "default" });
    // Summaries count units (people), not sessions: p1 3, p2 5, p3 5.
    expect(c.byCondition.A).toMatchObject({ n: 3, missing: 1 });
    expect(c.byCondition.A.mean).toBeCloseTo(13 / 3, 12);
    expect(c.tests).toHaveLength(1);
    // No control: B against the earlier condition A, as compare does; differences are B minus A.
    // python: stats.permutation_test(([1,2,4],[3,5,5]), mean(x - y), permutation_type="samples") -> -2.0, p 0.25
    expect(c.tests[0]).toMatchObject({ a: "B", b: "A", n: 3, test: "paired-permutation", smallestP: 0.25 });
    expect(c.tests[0].statistic).toBeCloseTo(-2, 12);
    expect(c.tests[0].meanDiff).toBeCloseTo(-2, 12);
    expect(c.tests[0].p).toBeCloseTo(0.25, 12);
    expect(c.tests[0].note).toMatch(/cannot reach p < \.05/);
  });

  it("tests a session-level measure on sessions even when the study's unit is the participant: a session's value is never copied to its people", () => {
    // sA1 has four people and sB1 three: attributed to each person, its one value would count 4 and 3 times.
    const values: UnitValue[] = [
      { session: "sA1", condition: "A", value: 2 },
      { session: "sA2", condition: "A", value: 4 },
      { session: "sB1", condition: "B", value: 7 },
      { session: "sB2", condition: "B", value: 9 },
    ];
    const [c] = compareMeasures([{ measure: "sessionRate", level: "session", values }], { inference: within, persons });
    expect(c).toMatchObject({ level: "session", unit: "session", design: "between" });
    expect(c.designReason).toMatch(/^a session-level measure: each session is one observation/);
    expect(c.byCondition.A).toMatchObject({ n: 2, mean: 3 });
    expect(c.byCondition.B).toMatchObject({ n: 2, mean: 8 });
    // python: stats.permutation_test(([7,9],[2,4]), mean(x) - mean(y)) -> 5.0, p 0.3333 (6 splits)
    expect(c.tests[0]).toMatchObject({ a: "B", b: "A", n: 4, nA: 2, nB: 2, test: "permutation" });
    expect(c.tests[0].statistic).toBeCloseTo(5, 12);
    expect(c.tests[0].p).toBeCloseTo(1 / 3, 12);
    expect(c.tests[0].note).toMatch(/the same people took part in sessions of both conditions, so the sessions are not fully independent/);
  });

  it("adjusts each comparison's measures apart: the tests of another comparison are not in the family (as compare's codes)", () => {
    const session = (id: string, condition: string, value: number): UnitValue => ({ session: id, condition, value });
    const values = [
      ...[1, 2, 1.5, 3].map((v, i) => session(`a${i}`, "A", v)),
      ...[4, 6, 5, 7].map((v, i) => session(`b${i}`, "B", v)),
      ...[4, 6, 5, 7].map((v, i) => session(`c${i}`, "C", v)),
    ];
    const [one] = compareMeasures([{ measure: "rate", level: "session", values }], { control: "A" });
    expect(one.tests.map((t) => [t.a, t.b, t.familySize])).toEqual([
      ["B", "A", 1],
      ["C", "A", 1],
    ]);
    // One test per family: Holm leaves p as it is (python: permutation_test(([4,6,5,7],[1,2,1.5,3])) -> p 0.02857142857142857).
    expect(one.tests[0].pAdjusted).toBeCloseTo(0.02857142857142857, 12);
    expect(one.tests[1].pAdjusted).toBeCloseTo(0.02857142857142857, 12);
  });

  it("with session units, averages a session's values; a family is the analysis's measures in one comparison", () => {
    const session = (id: string, condition: string, value: number | null): UnitValue => ({ session: id, condition, value });
    const values = [...[4, 6, 5, 7].map((v, i) => session(`b${i}`, "B", v)), ...[1, 2, 1.5, 3].map((v, i) => session(`a${i}`, "A", v)), session("c0", "C", 1)];
    const out = compareMeasures(
      [
        { measure: "rate", level: "session", values },
        { measure: "same", level: "session", values: values.map((v) => ({ ...v, value: v.condition === "B" ? v.value! + 10 : v.value })) },
      ],
      { control: "A" },
    );
    const [rate] = out;
    expect(rate).toMatchObject({ design: "between", unit: "session" });
    expect(rate.tests.map((x) => [x.a, x.b, x.test])).toEqual([
      ["B", "A", "permutation"],
      ["C", "A", "permutation"],
    ]);
    // python: stats.permutation_test(([4,6,5,7],[1,2,1.5,3]), mean(x) - mean(y)) -> 3.625, p 0.02857142857142857
    expect(rate.tests[0].p).toBeCloseTo(0.02857142857142857, 12);
    // Holm within the B-vs-A family: both measures' tests (the same p): 2 × .0286. C vs A is another family.
    expect(rate.tests[0]).toMatchObject({ familySize: 2 });
    expect(rate.tests[0].pAdjusted).toBeCloseTo(2 * 0.02857142857142857, 12);
    expect(rate.tests[1].skipped).toMatch(/1 vs 4 sessions: too few to test/);
    expect(rate.tests[1]).toMatchObject({ familySize: 0, pAdjusted: null });
  });
});

describe("concepts report", () => {
  it("summarises per condition with provenance and writes a CSV row per participant", () => {
    const sessions = [makeSession("g1", "A", gardenLines), makeSession("g2", "B", gardenLines.slice(0, 4))];
    const report = buildConceptsReport(sessions, extractor, { speakers: "human", rateBasis: "session" });
    expect(report.provenance).toMatchObject({ tool: "colloquy", analysis: "concepts", rateBasis: "session", speakers: "human" });
    const rate = report.conditions.find((c) => c.measure === "conceptRate")!;
    // The default unit is the session: one value per session.
    expect(rate.byCondition.A.n).toBe(1);
    expect(rate).toMatchObject({ design: "between", unit: "session", level: "participant" });
    expect(rate.tests[0]).toMatchObject({ test: "permutation", n: 2, p: null });
    const csv = conceptsCsv(report).trim().split("\n");
    expect(csv[0]).toMatch(/^session,condition,participant,name,turns/);
    expect(csv).toHaveLength(5);
  });
});
