import { describe, expect, it } from "vitest";
import { createConceptExtractor } from "../../../src/analysis/concepts/extract.js";
import { branchingRatio, numberTree, treeCounts, type TopicTree } from "../../../src/analysis/topics/tree.js";
import { rulesTopicTree } from "../../../src/analysis/topics/rules.js";
import { mergeTrees, topicSimilarity } from "../../../src/analysis/topics/merge.js";
import { buildTopicsReport } from "../../../src/analysis/topics/report.js";
import { gardenLines, makeSession } from "./fixture.js";

const extractor = createConceptExtractor();
const session = makeSession("g", "A", gardenLines);

const tree = (mainTopics: { label: string; turns: string[]; subtopics?: { label: string; turns: string[] }[] }[]): TopicTree =>
  numberTree({
    scope: "session",
    session: "g",
    mainTopics: mainTopics.map((m) => ({ id: "", label: m.label, turns: m.turns, subtopics: (m.subtopics ?? []).map((s) => ({ id: "", ...s })) })),
  });

const summary = (t: TopicTree) =>
  t.mainTopics.map((m) => `${m.id} ${m.label} [${m.turns}] > ${m.subtopics.map((s) => `${s.id} ${s.label} [${s.turns}]`).join("; ")}`);

describe("branching ratio", () => {
  it("is sub-topics / main topics, and null without main topics", () => {
    expect(
      branchingRatio(
        tree([
          {
            label: "a",
            turns: ["t0"],
            subtopics: [
              { label: "x", turns: ["t0"] },
              { label: "y", turns: ["t0"] },
            ],
          },
          { label: "b", turns: ["t1"] },
        ]),
      ),
    ).toBe(1);
    expect(branchingRatio(tree([{ label: "a", turns: ["t0"] }]))).toBe(0);
    expect(branchingRatio(tree([]))).toBeNull();
    expect(treeCounts(tree([{ label: "a", turns: ["t0"], subtopics: [{ label: "x", turns: ["t0"] }] }]))).toEqual({
      mainTopics: 1,
      subtopics: 1,
      branchingRatio: 1,
    });
  });

  it("numbers ids per scope so sub-topic ids are unique within a session", () => {
    const t = numberTree({
      scope: "participant",
      session: "g",
      participant: "alice",
      mainTopics: [{ id: "", label: "a", turns: [], subtopics: [{ id: "", label: "x", turns: [] }] }],
    });
    expect(t.mainTopics[0].id).toBe("alice:m1");
    expect(t.mainTopics[0].subtopics[0].id).toBe("alice:m1.s1");
  });
});

describe("rules topic trees (deterministic baseline)", () => {
  it("groups the session's nouns into the known tree", () => {
    const humans = session.turns.filter((t) => t.speaker !== "agent");
    const t = rulesTopicTree({ scope: "session", session: "g" }, humans, extractor);
    // Head groups: garden{community garden, garden}, bed, bin, scrap, child, tomato, herb, barrel, pump.
    // bin+scrap and child+herb share all their turns (Jaccard 1); then, at 0.5: garden with
    // {bin, scrap} (t0001), bed with {child, herb} (t0003), barrel with pump (t0005).
    expect(summary(t)).toEqual([
      "m1 community garden [t0000,t0001] > m1.s1 garden [t0001]; m1.s2 compost bin [t0001]; m1.s3 kitchen scrap [t0001]",
      "m2 bed [t0000,t0003] > m2.s1 child [t0003]; m2.s2 herb [t0003]",
      "m3 tomato [t0003,t0004] > ",
      "m4 rain barrel [t0004,t0005] > m4.s1 pump [t0005]",
    ]);
    expect(branchingRatio(t)).toBe(6 / 4);
    expect(rulesTopicTree({ scope: "session", session: "g" }, humans, extractor)).toEqual(t);
  });

  it("builds one participant's tree from their turns only", () => {
    const alice = session.turns.filter((t) => t.speaker === "alice");
    const t = rulesTopicTree({ scope: "participant", session: "g", participant: "alice" }, alice, extractor);
    expect(summary(t)).toEqual([
      "alice:m1 bed [t0000,t0003] > alice:m1.s1 community garden [t0000]",
      "alice:m2 child [t0003] > alice:m2.s1 tomato [t0003]; alice:m2.s2 herb [t0003]",
      "alice:m3 pump [t0005] > alice:m3.s1 rain barrel [t0005]",
    ]);
    expect(branchingRatio(t)).toBeCloseTo(4 / 3, 12);
  });

  it("gives an empty tree (no ratio) when nobody named anything", () => {
    const quiet = makeSession("q", "A", [
      ["alice", "Um, yeah."],
      ["bob", "Okay!"],
    ]);
    const t = rulesTopicTree({ scope: "session", session: "q" }, quiet.turns, extractor);
    expect(t.mainTopics).toEqual([]);
    expect(branchingRatio(t)).toBeNull();
  });
});

describe("merging runs", () => {
  it("scores label Dice and turn Jaccard equally", () => {
    expect(topicSimilarity({ label: "Raised beds", turns: ["t1"] }, { label: "raised bed", turns: ["t2"] })).toBe(0.5);
    expect(topicSimilarity({ label: "Garden", turns: ["t1", "t2"] }, { label: "Compost", turns: ["t1", "t2"] })).toBe(0.5);
    expect(topicSimilarity({ label: "Garden", turns: ["t1"] }, { label: "Compost", turns: ["t2"] })).toBe(0);
  });

  it("keeps topics found in a majority of runs, with the most frequent label", () => {
    const order = new Map(["t0", "t1", "t2", "t3", "t4"].map((t, i) => [t, i]));
    const runs = [
      tree([
        {
          label: "Community garden",
          turns: ["t0", "t1"],
          subtopics: [
            { label: "Compost bin", turns: ["t1"] },
            { label: "Raised beds", turns: ["t0"] },
          ],
        },
        { label: "Water", turns: ["t4"] },
      ]),
      tree([
        { label: "community garden", turns: ["t1"], subtopics: [{ label: "compost", turns: ["t1"] }] },
        { label: "Watering", turns: ["t4", "t3"], subtopics: [{ label: "rain barrel", turns: ["t4"] }] },
        { label: "Music", turns: ["t2"] },
      ]),
      tree([{ label: "Community garden", turns: ["t0"], subtopics: [{ label: "Raised beds", turns: ["t0"] }] }]),
    ];
    const merged = mergeTrees(runs, order);
    // Garden: all 3 runs. Water/Watering: labels differ but share t4 (0 + 1/2)/2 = 0.25 < 0.5, so
    // they do not match and each appears in 1 of 3 runs; Music: 1 of 3. Only the garden survives.
    expect(merged.mainTopics.map((m) => [m.id, m.label, m.turns, m.support])).toEqual([["m1", "Community garden", ["t0", "t1"], 3]]);
    // Sub-topics: "Compost bin" ~ "compost" share t1 ((2/3 + 1)/2 >= 0.5): 2 of 3; Raised beds: 2 of 3.
    expect(merged.mainTopics[0].subtopics.map((s) => [s.label, s.support])).toEqual([
      ["Compost bin", 2],
      ["Raised beds", 2],
    ]);
  });
});

describe("topics report (rules)", () => {
  it("summarises per participant, session and condition", async () => {
    const sessions = [makeSession("a1", "A", gardenLines), makeSession("b1", "B", gardenLines.slice(0, 3))];
    const report = await buildTopicsReport(sessions, { coder: "rules", scope: "participant", speakers: "human", runs: 3, extractor });
    expect(report.provenance).toMatchObject({ tool: "colloquy", analysis: "topics", coder: "rules", runs: 1, scope: "participant" });
    expect(report.trees.map((t) => t.key)).toEqual(["a1/alice", "a1/bob", "b1/alice", "b1/bob"]);
    const aliceA = report.trees[0];
    expect(aliceA.branching).toMatchObject({ mean: 4 / 3, n: 1, failedRuns: 0 });
    expect(aliceA.merged?.branchingRatio).toBeCloseTo(4 / 3, 12);
    expect(report.participants.map((p) => [p.session, p.participant])).toEqual([
      ["a1", "alice"],
      ["a1", "bob"],
      ["b1", "alice"],
      ["b1", "bob"],
    ]);
    expect(report.sessions.map((s) => s.session)).toEqual(["a1", "b1"]);
    const br = report.conditions.find((c) => c.measure === "branchingRatio")!;
    // Measured per participant, analysed per session (the default unit): one test per comparison.
    expect(br).toMatchObject({ level: "participant", unit: "session", design: "between" });
    expect(br.byCondition.A.n).toBe(1);
    expect(br.tests.map((t) => [t.test, t.n])).toEqual([["permutation", 2]]);
  });
});
