import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countWords, normalisedEntropy, rateSeconds, THIRDS, thirdOf, timeSpan } from "../../../src/analysis/shared/measures.js";
import { tCritical } from "../../../src/analysis/inference/distributions.js";
import { meanInterval, summariseValues } from "../../../src/analysis/concepts/conditions.js";
import { quantileSorted, summariseRatings } from "../../../src/analysis/shared/scales.js";
import { binCodes } from "../../../src/analysis/stats/sequences.js";
import { cumulativeWords, followsBySpeaker, participationBySpeaker, speakerName } from "../../../src/analysis/stats/participation.js";
import { sessionMetrics } from "../../../src/analysis/stats/metrics.js";
import { profileFrame, profilesBySpeaker } from "../../../src/analysis/stats/bales.js";
import { codedTurns } from "../../../src/analysis/shared/table.js";
import { sessionSchema, type Session } from "../../../src/transcript/schema.js";
import type { CodeRecord } from "../../../src/coding/records.js";

/**
 * The measures every number is built from, each defined once in src/analysis (measures.ts and
 * words.ts) and used by stats, concepts, topics and the dashboard alike.
 */

describe("countWords: a word is a run of letters or digits; punctuation and dashes alone are not words", () => {
  it.each([
    // The example the dashboard (runs of non-space) and the analysis disagreed on: 4 vs 2.
    ["Hello — world ...", 2],
    ["Hello - world", 2],
    ["— … – ...", 0],
    ["well-known state-of-the-art", 2],
    ["don't can’t rock'n'roll", 3],
    ["C'est l'été", 2],
    // '.' and ',' join digits; a colon does not.
    ["3.5 km at 1,000 m, 12:30", 7],
    ["e-mail -- a-", 2],
    ["(parenthesis) [brackets] {braces} «guillemets» „Anführungszeichen“", 5],
    ["naïve café Ünïcödé", 3],
    ["Καλημέρα κόσμε", 2],
    ["Привет, мир!", 2],
    ["مرحبا بالعالم", 2],
    ["שלום עולם", 2],
    ["नमस्ते दुनिया", 2],
    ["안녕하세요 세계", 2],
    ["東京に行く", 5],
    ["東京 Tokyo", 3],
    ["👍🏽 ok 🎉🎉", 1],
    ["a\u00a0b\u2009c\u3000d", 4],
    ["\u0065\u0301te\u0301", 1],
    ["", 0],
  ])("%j has %i words", (text, n) => {
    expect(countWords(text)).toBe(n);
  });
});

describe("timeSpan: duration of turns", () => {
  it("runs from the earliest start to the latest end (or start without an end)", () => {
    expect(timeSpan([{ start: 5, end: 9 }, { start: 20 }, { start: 65, end: 70 }])).toEqual({ seconds: 65, timed: 3 });
    expect(
      timeSpan([
        { start: 10, end: 100 },
        { start: 20, end: 30 },
      ]).seconds,
    ).toBe(90);
  });
  it("ignores untimed turns (saying so) and is null without times or with a zero span", () => {
    expect(timeSpan([{ start: 0, end: 60 }, {}])).toEqual({ seconds: 60, timed: 1, note: "only 1 of 2 turns have times; duration spans the timed ones" });
    // An end alone does not place a turn in time.
    expect(timeSpan([{ start: 0, end: 10 }, { end: 500 }]).seconds).toBe(10);
    expect(timeSpan([{}, {}])).toMatchObject({ seconds: null, timed: 0 });
    expect(timeSpan([{ start: 7 }, { start: 7, end: 7 }])).toMatchObject({ seconds: null, timed: 2 });
    expect(timeSpan([])).toMatchObject({ seconds: null, timed: 0 });
  });

  it("times to the minute (three or more, all on whole minutes) are said so; a span of one minute gives no rate", () => {
    // ChatCollab's Slack paste: six turns stamped 10:16, one 10:17.
    const oneMinute = timeSpan([...Array<object>(6).fill({ start: 0 }), { start: 60 }]);
    expect(oneMinute).toMatchObject({ seconds: 60, timed: 7, toTheMinute: true, note: expect.stringMatching(/to the minute/) });
    expect(rateSeconds(oneMinute)).toEqual({ seconds: null, reason: expect.stringMatching(/spans one minute.*left out/) });
    const threeMinutes = timeSpan([{ start: 0 }, { start: 60 }, { start: 180 }]);
    expect(threeMinutes).toMatchObject({ seconds: 180, toTheMinute: true });
    expect(rateSeconds(threeMinutes)).toEqual({ seconds: 180 });
    // Seconds on the clock, or only two times on whole minutes (1 in 60 by chance): a measured span, no caveat.
    expect(timeSpan([{ start: 0 }, { start: 60 }, { start: 61 }])).toEqual({ seconds: 61, timed: 3 });
    expect(timeSpan([{ start: 0 }, { start: 60 }])).toEqual({ seconds: 60, timed: 2 });
    expect(rateSeconds(timeSpan([{ start: 0 }, { start: 60 }]))).toEqual({ seconds: 60 });
    expect(rateSeconds(timeSpan([{}]))).toEqual({ seconds: null, reason: expect.stringMatching(/no turn has a start time/) });
  });
});

describe("normalisedEntropy: balance", () => {
  it("is scipy.stats.entropy(p) / ln(k), on counts or shares alike", () => {
    expect(normalisedEntropy([0.5, 0.5])).toBeCloseTo(1, 12);
    expect(normalisedEntropy([1, 0])).toBe(0);
    expect(normalisedEntropy([0.5, 0.3, 0.2])).toBeCloseTo(0.9372305632161295, 12);
    expect(normalisedEntropy([5, 3, 2])).toBeCloseTo(0.9372305632161295, 12);
    expect(normalisedEntropy([0.7, 0.1, 0.1, 0.1])).toBeCloseTo(0.6783898247235198, 12);
  });
  it("is null for fewer than 2 members or nothing to share", () => {
    expect(normalisedEntropy([1])).toBeNull();
    expect(normalisedEntropy([0, 0, 0])).toBeNull();
  });
});

describe("thirdOf: which third of a session", () => {
  it("position k of n is in third floor(3k/n): equal thirds ±1", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => thirdOf(k, 9))).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2]);
    expect([0, 1, 2, 3].map((k) => thirdOf(k, 4))).toEqual([0, 0, 1, 2]);
    expect(thirdOf(0, 1)).toBe(0);
    expect(THIRDS).toEqual(["early", "middle", "late"]);
  });
});

describe("intervals and quantiles", () => {
  it("t critical values match scipy.stats.t.ppf(0.975, df)", () => {
    expect(tCritical(1)).toBeCloseTo(12.706204736174694, 8);
    expect(tCritical(4)).toBeCloseTo(2.7764451051977934, 8);
    expect(tCritical(30)).toBeCloseTo(2.0422724563012378, 8);
    expect(tCritical(10, 0.99)).toBeCloseTo(3.16927267261695, 8);
    expect(tCritical(0)).toBeNaN();
  });
  it("the CI of a mean is a seeded percentile bootstrap inside the values' range; meanInterval (old files) is mean ± t(0.975, n-1) · sd / √n", () => {
    const s = summariseValues([1, 2, 3, 4, 5, null]);
    expect(s).toMatchObject({ n: 5, mean: 3, missing: 1, ciMethod: expect.stringMatching(/percentile bootstrap/) });
    // The t interval would be 3 ± 1.96; the bootstrap of 5 values stays inside [1, 5] and near it.
    const half = (2.7764451051977934 * Math.sqrt(2.5)) / Math.sqrt(5);
    expect(s.ci95![0]).toBeGreaterThanOrEqual(1);
    expect(s.ci95![1]).toBeLessThanOrEqual(5);
    expect(Math.abs(s.ci95![0] - (3 - half))).toBeLessThan(1);
    expect(summariseValues([1, 2, 3, 4, 5]).ci95).toEqual(s.ci95);
    expect(meanInterval(1, 0.2, 2)![1]).toBeCloseTo(1 + (12.706204736174694 * 0.2) / Math.SQRT2, 8);
    expect(summariseValues([2]).ci95).toBeNull();
    expect(meanInterval(2, null, 5)).toBeNull();
  });
  it("quantiles interpolate as numpy.percentile; rating summaries bin by rounded value", () => {
    expect([0.25, 0.5, 0.75].map((p) => quantileSorted([1, 2, 3, 4, 5, 6, 7, 8], p))).toEqual([2.75, 4.5, 6.25]);
    const s = summariseRatings([3, 1, 7, 7, 2], 7);
    expect([s.q1, s.median, s.q3, s.min, s.max, s.n]).toEqual([2, 3, 7, 1, 7, 5]);
    expect(s.mean).toBeCloseTo(4, 12);
    expect(s.counts).toEqual([1, 1, 1, 0, 0, 0, 2]);
    expect(summariseRatings([], 5).mean).toBeNaN();
  });
  it("whole-point ratings (read from the histogram) summarise as sorting them would; others are sorted", () => {
    const sorted = (values: number[], points: number) => {
      const s = [...values].sort((a, b) => a - b);
      const counts = Array.from({ length: points }, () => 0);
      for (const v of s) if (Math.round(v) >= 1 && Math.round(v) <= points) counts[Math.round(v) - 1]++;
      const [min, q1, median, q3, max] = [0, 0.25, 0.5, 0.75, 1].map((p) => quantileSorted(s, p));
      return { n: s.length, mean: s.reduce((a, b) => a + b, 0) / s.length, min, q1, median, q3, max, counts };
    };
    const whole = fc
      .integer({ min: 2, max: 9 })
      .chain((points) => fc.tuple(fc.constant(points), fc.array(fc.integer({ min: 1, max: points }), { minLength: 1, maxLength: 60 })));
    fc.assert(
      fc.property(whole, ([points, values]) => {
        expect(summariseRatings(values, points)).toEqual(sorted(values, points));
      }),
    );
    // A fraction or a rating off the scale: sorted, binned by its rounded value.
    expect(summariseRatings([2, 2.5, 7], 7)).toEqual(sorted([2, 2.5, 7], 7));
    expect(summariseRatings([0, 3, 9, 4], 7)).toEqual(sorted([0, 3, 9, 4], 7));
  });
});

describe("binCodes: long sequences shortened for drawing", () => {
  it("keeps the most frequent code per cell, ties to the lower index, -1 when nothing is coded", () => {
    expect(binCodes([0, 1, 0, -1, 2, 2, -1, -1], 2)).toEqual([0, 0, 2, -1]);
    expect(binCodes([1, 0, 1, 0], 4)).toEqual([0]);
    expect(binCodes([3, -1, 2], 1)).toEqual([3, -1, 2]);
  });
});

function session(id: string, turns: [speaker: string, text: string, start?: number, type?: string][]): Session {
  return sessionSchema.parse({
    id,
    metadata: { condition: "x" },
    participants: [
      { id: "a", name: "Ann", kind: "human" },
      { id: "b", name: "", kind: "ai" },
      { id: "s", name: "System", kind: "system" },
    ],
    turns: turns.map(([speaker, text, start, type], index) => ({
      id: `t${index}`,
      index,
      speaker,
      text,
      ...(start !== undefined ? { start } : {}),
      ...(type ? { type } : {}),
    })),
  });
}

describe("participation over time and across sessions (the stats counting rules)", () => {
  const s1 = session("s1", [
    ["s", "Welcome — all", 0, "system"],
    ["a", "Hello — world ...", 1],
    ["b", "Thinking", 2, "reasoning"],
    ["b", "Yes, indeed", 5],
    ["a", "ok", 9],
  ]);
  const s2 = session("s2", [
    ["b", "one"],
    ["a", "two"],
    ["a", "three"],
  ]);

  it("cumulative words per member follow counted turns only, on the time axis when every turn is timed", () => {
    const c = cumulativeWords(s1);
    expect(c.timeAxis).toBe("seconds");
    expect(c.members).toEqual([
      {
        participant: "a",
        name: "Ann",
        points: [
          [1, 2],
          [9, 3],
        ],
      },
      { participant: "b", name: "b", points: [[5, 2]] },
    ]);
    // The last point of each member is the member's words in sessionMetrics.
    expect(sessionMetrics(s1).participants.map((p) => p.words)).toEqual([3, 2]);
    expect(cumulativeWords(s2).timeAxis).toBe("turn");
    expect(cumulativeWords(s2).members[0].points).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it("who follows whom is pooled by speaker name (id when unnamed), in the given order first", () => {
    expect(speakerName({ id: "b", name: "" })).toBe("b");
    const f = followsBySpeaker([s1, s2].map(sessionMetrics), ["b", "Ann"]);
    // s1: Ann -> b -> Ann; s2: b -> Ann -> Ann.
    expect(f).toEqual({
      names: ["b", "Ann"],
      counts: [
        [0, 2],
        [1, 1],
      ],
    });
  });

  it("participation per speaker sums counted turns and words over sessions, with study-wide shares", () => {
    const p = participationBySpeaker([s1, s2].map(sessionMetrics), ["b"]);
    // s1: Ann 2 turns 3 words, b 1 turn 2 words; s2: Ann 2 turns 2 words, b 1 turn 1 word.
    expect(p).toEqual([
      { name: "b", sessions: 2, turns: 2, words: 3, shareTurns: 2 / 6, shareWords: 3 / 8 },
      { name: "Ann", sessions: 2, turns: 4, words: 5, shareTurns: 4 / 6, shareWords: 5 / 8 },
    ]);
  });

  it("Bales profiles pooled per speaker count every code, acts without the fallback", () => {
    const record = (s: string, turn: string, codes: string[]): CodeRecord => ({
      session: s,
      turn,
      codebook: "cb",
      codebookVersion: "1",
      coder: "rules",
      codes,
      provenance: {},
      createdAt: "x",
    });
    const data = codedTurns(
      [s1, s2],
      [record("s1", "t1", ["op"]), record("s1", "t4", ["none"]), record("s2", "t1", ["op", "su"]), record("s2", "t0", ["su"])],
      ["op", "su", "none"],
    );
    const frame = profileFrame(data.labels, { fallback: "none", groups: [], categories: [] } as never);
    const profiles = profilesBySpeaker(data, frame);
    expect(profiles.map((p) => [p.name, p.sessions, p.profile.acts, p.profile.fallback, p.profile.counts])).toEqual([
      ["Ann", 2, 3, 1, { op: 2, su: 1, none: 1 }],
      ["b", 1, 1, 0, { op: 0, su: 1, none: 0 }],
    ]);
  });
});
