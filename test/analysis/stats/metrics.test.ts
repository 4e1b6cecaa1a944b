import { describe, expect, it } from "vitest";
import { mean, sampleStandardDeviation } from "simple-statistics";
import { countWords } from "../../../src/analysis/shared/words.js";
import { followsByRole, gini, normalisedEntropy, sessionMetrics, summariseByCondition, summariseByRole } from "../../../src/analysis/stats/metrics.js";
import { summarise } from "../../../src/analysis/shared/table.js";
import { makeSession } from "../compare/fixture.js";

describe("countWords (the documented Unicode rule)", () => {
  it.each([
    ["", 0],
    ["Hello there, everyone!", 3],
    ["Don’t worry — it's well-known.", 4],
    ["3.5 km, 1,000 people", 4],
    ["naïve café Ünïcödé", 3],
    ["東京に行く", 5],
    ["Привет, мир", 2],
    ["안녕하세요 세계", 2],
    ["😀 !! ... --", 0],
    ["e-mail a--b", 3],
  ])("%j has %i words", (text, n) => {
    expect(countWords(text)).toBe(n);
  });
});

describe("balance indices (hand-computed)", () => {
  it("normalised entropy of turn shares", () => {
    // shares .5 .25 .25 0: H = 1.5 bits of a maximum 2 bits.
    expect(normalisedEntropy([2, 1, 1, 0])).toBeCloseTo(0.75, 12);
    expect(normalisedEntropy([3, 3, 3])).toBeCloseTo(1, 12);
    expect(normalisedEntropy([5, 0])).toBe(0);
    expect(normalisedEntropy([5])).toBeNull();
    expect(normalisedEntropy([0, 0])).toBeNull();
  });
  it("Gini coefficient", () => {
    // Σ|xi - xj| over ordered pairs of [0,1,1,2] = 12; / (2 · 4² · mean 1) = 0.375.
    expect(gini([2, 1, 1, 0])).toBeCloseTo(0.375, 12);
    expect(gini([4, 4, 4, 0])).toBeCloseTo(0.25, 12);
    expect(gini([7, 7])).toBe(0);
    expect(gini([1, 0, 0, 0])).toBeCloseTo(0.75, 12);
  });
});

describe("sessionMetrics", () => {
  const { session } = makeSession(
    "s1",
    "ai",
    "1",
    [
      { who: "Alice", text: "Hello there, everyone!", start: 0, end: 4 },
      { who: "Bob", text: "Don’t worry — it’s fine.", start: 5, end: 8, to: ["alice"] },
      { who: "Alice", text: "OK", start: 10, end: 11 },
      { who: "System", text: "session ended", start: 12, type: "system" },
      { who: "Carol", text: "東京 3.5 km", start: 20, end: 30, to: ["alice", "bob"] },
    ],
    { participants: [{ name: "Dave" }, { name: "System", kind: "system" }], roles: { Carol: "facilitator" } },
  );
  const m = sessionMetrics(session);

  it("counts turns, words, duration and rates as documented", () => {
    expect(m).toMatchObject({ session: "s1", condition: "ai", run: "1", members: 4, turns: 4, words: 12, excludedTurns: 1, durationSeconds: 30 });
    expect(m.turnsPerMinute).toBeCloseTo(8, 12);
    expect(m.wordsPerMinute).toBeCloseTo(24, 12);
    expect(m.meanWordsPerTurn).toBe(3);
    expect(m.durationNote).toBeUndefined();
  });

  it("gives each member's shares and rates, silent members included", () => {
    const alice = m.participants.find((p) => p.name === "Alice")!;
    expect(alice).toMatchObject({ turns: 2, words: 4, shareTurns: 0.5, meanWordsPerTurn: 2, turnsPerMinute: 4, wordsPerMinute: 8, role: "member" });
    expect(alice.shareWords).toBeCloseTo(1 / 3, 12);
    expect(m.participants.find((p) => p.name === "Dave")).toMatchObject({ turns: 0, words: 0, shareTurns: 0, meanWordsPerTurn: null });
    expect(m.participants.find((p) => p.name === "Carol")!.role).toBe("facilitator");
    expect(m.participants.map((p) => p.name)).not.toContain("System");
  });

  it("computes balance over the 4 members (turns [2,1,1,0], words [4,4,4,0])", () => {
    expect(m.balance.entropyTurns).toBeCloseTo(0.75, 12);
    expect(m.balance.oneMinusGiniTurns).toBeCloseTo(0.625, 12);
    expect(m.balance.entropyWords).toBeCloseTo(Math.log(3) / Math.log(4), 12);
    expect(m.balance.oneMinusGiniWords).toBeCloseTo(0.75, 12);
  });

  it("builds who-follows-whom (system turn skipped) and who-addresses-whom", () => {
    // Participant order is the session's: Dave and System were declared first (System is not a member).
    expect(m.follows.ids).toEqual(["dave", "alice", "bob", "carol"]);
    expect(m.follows.counts).toEqual([
      [0, 0, 0, 0],
      [0, 0, 1, 1],
      [0, 1, 0, 0],
      [0, 0, 0, 0],
    ]);
    expect(m.addresses!.counts).toEqual([
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 1, 1, 0],
    ]);
  });

  it("without times, duration and rates are null with a reason", () => {
    const untimed = sessionMetrics(makeSession("s2", "ai", "2", [{ who: "Alice" }, { who: "Bob" }]).session);
    expect(untimed).toMatchObject({ durationSeconds: null, turnsPerMinute: null, wordsPerMinute: null, meanWordsPerTurn: 1.5, addresses: null });
    expect(untimed.durationNote).toMatch(/no turn has a start time/);
    expect(untimed.participants[0].turnsPerMinute).toBeNull();
    const partly = sessionMetrics(makeSession("s3", "ai", "3", [{ who: "Alice", start: 0 }, { who: "Bob" }, { who: "Alice", start: 60 }]).session);
    expect(partly.durationSeconds).toBe(60);
    expect(partly.turnsPerMinute).toBe(3);
    expect(partly.durationNote).toMatch(/only 2 of 3 turns have times/);
    const instant = sessionMetrics(
      makeSession("s4", "ai", "4", [
        { who: "Alice", start: 5 },
        { who: "Bob", start: 5 },
      ]).session,
    );
    expect(instant.durationSeconds).toBeNull();
    expect(instant.durationNote).toMatch(/same moment/);
  });

  it("times to the minute spanning one minute: the duration stays, the per-minute rates are left out and the note says why", () => {
    const turns = [0, 0, 0, 0, 0, 0, 60].map((start, i) => ({ who: i % 2 ? "Bob" : "Alice", start }));
    const m = sessionMetrics(makeSession("s5", "ai", "5", turns).session);
    expect(m).toMatchObject({ durationSeconds: 60, turnsPerMinute: null, wordsPerMinute: null });
    expect(m.participants[0].turnsPerMinute).toBeNull();
    expect(m.durationNote).toMatch(/the times are to the minute.*; it spans one minute.*per-minute rates are left out/);
    const longer = sessionMetrics(makeSession("s6", "ai", "6", [...turns, { who: "Bob", start: 180 }]).session);
    expect(longer).toMatchObject({ durationSeconds: 180, turnsPerMinute: 8 / 3 });
    expect(longer.durationNote).toMatch(/known to within a minute either way$/);
  });
});

describe("summaries per condition and role", () => {
  it("mean and sample SD agree with simple-statistics", () => {
    const values = [1, 2, 3, 4, 10, 2.5];
    const s = summarise([...values, null]);
    expect(s.n).toBe(6);
    expect(s.mean).toBeCloseTo(mean(values), 12);
    expect(s.sd).toBeCloseTo(sampleStandardDeviation(values), 12);
    expect(summarise([3])).toMatchObject({ n: 1, mean: 3, sd: null });
    expect(summarise([])).toMatchObject({ n: 0, mean: null, sd: null });
  });

  it("summarises sessions per condition and members per condition × role", () => {
    const sessions = [
      makeSession("a1", "A", "1", [{ who: "Alice" }, { who: "Bob" }, { who: "Alice" }]).session,
      makeSession("a2", "A", "2", [{ who: "Alice" }]).session,
      makeSession("b1", "B", "1", [{ who: "AI-1" }, { who: "Bob" }], { roles: { "AI-1": "assistant" } }).session,
    ].map(sessionMetrics);
    const byCondition = summariseByCondition(sessions);
    expect(byCondition.map((c) => c.condition)).toEqual(["A", "B"]);
    expect(byCondition[0].turns).toMatchObject({ n: 2, mean: 2 });
    expect(byCondition[0].turns.sd).toBeCloseTo(sampleStandardDeviation([3, 1]), 12);
    expect(byCondition[0].durationSeconds).toMatchObject({ n: 0, mean: null });
    const roles = summariseByRole(sessions);
    expect(roles.map((r) => `${r.condition}/${r.role}:${r.members}`)).toEqual(["A/member:3", "B/assistant:1", "B/member:1"]);
    // A: Alice->Bob, Bob->Alice (member->member twice); B: AI-1 (assistant) -> Bob (member).
    expect(followsByRole(sessions)).toEqual([
      { condition: "A", roles: ["member"], counts: [[2]] },
      {
        condition: "B",
        roles: ["assistant", "member"],
        counts: [
          [0, 1],
          [0, 0],
        ],
      },
    ]);
  });
});

describe("countWords fast path", () => {
  it("agrees with the Unicode regex on ASCII and typographic punctuation (property test)", async () => {
    const fc = await import("fast-check");
    const { countAsciiWords } = await import("../../../src/analysis/shared/words.js");
    // The regex path alone: a non-ASCII prefix word forces it, and contributes exactly one word.
    const viaRegex = (text: string) => countWords(`é ${text}`) - 1;
    const alphabet = fc.constantFrom(..."ab9Z0 -'.,!?\t\n_\u00a0\u2013\u2014\u2018\u2019\u201c\u201d\u2026".split(""));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 30 }).map((cs) => cs.join("")),
        (text) => {
          expect(countAsciiWords(text)).toBe(viaRegex(text));
        },
      ),
      { numRuns: 2000 },
    );
    expect(countAsciiWords("naïve")).toBe(-1);
  });
});
