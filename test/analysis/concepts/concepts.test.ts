import { describe, expect, it } from "vitest";
import { createConceptExtractor } from "../../../src/analysis/concepts/extract.js";
import { makeLexicon, parseLexicon } from "../../../src/analysis/concepts/lexicon.js";
import { mtld, mtldPass } from "../../../src/analysis/concepts/mtld.js";
import { analyseSessionConcepts } from "../../../src/analysis/concepts/measures.js";
import { compareMeasure } from "../../../src/analysis/concepts/conditions.js";
import { buildConceptsReport, conceptsCsv } from "../../../src/analysis/concepts/report.js";
import { pairedTTest, welchTTest } from "../../../src/analysis/inference/index.js";
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
  it("pairs participants across conditions in a within design", () => {
    const values = [
      { unit: "p1", condition: "A", value: 3 },
      { unit: "p1", condition: "B", value: 1 },
      { unit: "p2", condition: "A", value: 5 },
      { unit: "p2", condition: "B", value: 2 },
      { unit: "p3", condition: "A", value: 4 },
      { unit: "p3", condition: "B", value: 4 },
      { unit: "p3", condition: "A", value: 6 }, // a second A session: p3's A value is the mean, 5
      { unit: "p4", condition: "A", value: null },
    ];
    const c = compareMeasure("rate", "participant", values);
    expect(c.design).toBe("within");
    expect(c.designSource).toBe("inferred");
    expect(c.byCondition.A).toMatchObject({ n: 4, mean: 4.5, missing: 1 });
    const t = c.tests.find((x) => x.test === "pairedTTest")!;
    const ref = pairedTTest([3, 5, 5], [1, 2, 4]);
    expect(t).toMatchObject({ a: "A", b: "B", n: 3 });
    expect(t.statistic).toBeCloseTo(ref.t, 12);
    expect(t.p).toBeCloseTo(ref.p, 12);
    // scipy.stats.ttest_rel([3,5,5],[1,2,4]) -> t = 3.464101615137755, p = 0.07417990022744854
    expect(t.statistic).toBeCloseTo(3.464101615137755, 10);
    expect(t.p).toBeCloseTo(0.07417990022744854, 10);
    expect(c.tests.map((x) => x.test)).toEqual(["pairedTTest", "wilcoxonSignedRank"]);
  });

  it("uses independent-sample tests for a between design and says when a test cannot run", () => {
    const values = [
      { unit: "s1", condition: "A", value: 1 },
      { unit: "s2", condition: "A", value: 2 },
      { unit: "s3", condition: "B", value: 4 },
      { unit: "s4", condition: "B", value: 6 },
      { unit: "s5", condition: "C", value: 1 },
    ];
    const c = compareMeasure("rate", "session", values, { control: "A" });
    expect(c.design).toBe("between");
    const welch = c.tests.filter((x) => x.test === "welchTTest");
    expect(welch.map((x) => [x.a, x.b])).toEqual([
      ["B", "A"],
      ["C", "A"],
    ]);
    expect(welch[0].statistic).toBeCloseTo(welchTTest([4, 6], [1, 2]).t, 12);
    expect(welch[0].pHolm).toBeCloseTo(welch[0].p!, 12); // the other comparison has no p
    expect(welch[1].skipped).toMatch(/at least 2/);
  });
});

describe("concepts report", () => {
  it("summarises per condition with provenance and writes a CSV row per participant", () => {
    const sessions = [makeSession("g1", "A", gardenLines), makeSession("g2", "B", gardenLines.slice(0, 4))];
    const report = buildConceptsReport(sessions, extractor, { speakers: "human", rateBasis: "session" });
    expect(report.provenance).toMatchObject({ tool: "colloquy", analysis: "concepts", rateBasis: "session", speakers: "human" });
    const rate = report.conditions.find((c) => c.measure === "conceptRate")!;
    expect(rate.byCondition.A.n).toBe(2);
    expect(rate.design).toBe("within");
    expect(rate.tests[0]).toMatchObject({ test: "pairedTTest", n: 2 });
    const csv = conceptsCsv(report).trim().split("\n");
    expect(csv[0]).toMatch(/^session,condition,participant,name,turns/);
    expect(csv).toHaveLength(5);
  });
});
