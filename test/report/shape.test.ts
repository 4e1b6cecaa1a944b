import { describe, expect, it } from "vitest";
import { sessionSchema, type Session } from "../../src/transcript/schema.js";
import { indexCodes } from "../../src/report/load.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { codebookInfo, collectSpeakers, wordCount } from "../../src/report/shape/common.js";
import { balanceIndex, buildFollows, buildParticipation, thin } from "../../src/report/shape/participation.js";
import { quantileSorted, summariseRatings, buildStyleSet } from "../../src/report/shape/styles.js";
import { buildDistribution, buildSequenceSessions, buildSequenceSet } from "../../src/report/shape/distributions.js";
import { buildBalesSet, phaseOf } from "../../src/report/shape/bales.js";
import { buildCompareSet } from "../../src/report/shape/compare.js";
import { sessionDuration, buildChunk } from "../../src/report/shape/overview.js";
import { meanCI, tCritical95 } from "../../src/report/shape/analysis.js";
import type { CodebookInfo } from "../../src/report/types.js";

function session(id: string, condition: string, turns: [string, string, number?][]): Session {
  return sessionSchema.parse({
    id,
    metadata: { condition },
    participants: [
      { id: "a", name: "Ann", kind: "human" },
      { id: "b", name: "Bot", kind: "ai", role: "helper" },
    ],
    turns: turns.map(([speaker, text, start], index) => ({ id: `t${index}`, index, speaker, text, ...(start !== undefined ? { start } : {}) })),
  });
}

function codes(coder: string, list: [string, string, string][]) {
  const records: CodeRecord[] = list.map(([s, turn, code]) => ({ session: s, turn, codebook: "cb", codebookVersion: "1", coder, codes: [code], provenance: {}, createdAt: "2026-01-01T00:00:00Z" }));
  return indexCodes("cb", coder, records);
}

const info = (ids: string[], groups: CodebookInfo["groups"] = [], membership: Record<string, string[]> = {}): CodebookInfo => ({
  id: "cb",
  title: "cb",
  kind: "nominal",
  categories: ids.map((id) => ({ id, label: id.toUpperCase(), groups: membership[id] ?? [] })),
  groups,
  scales: [],
  coders: [],
  defined: true,
});

describe("small measures", () => {
  it("counts words as runs of non-space characters", () => {
    expect(wordCount("")).toBe(0);
    expect(wordCount("  hello   world \n")).toBe(2);
    expect(wordCount("a\u00a0b\tc")).toBe(3);
    expect(wordCount("<script>alert(1)</script>")).toBe(1);
  });

  it("balance is normalised entropy, as scipy.stats.entropy(p) / ln(k)", () => {
    expect(balanceIndex([0.5, 0.5])).toBeCloseTo(1, 12);
    expect(balanceIndex([1, 0])).toBe(0);
    expect(balanceIndex([0.5, 0.3, 0.2])).toBeCloseTo(0.9372305632161295, 12);
    expect(balanceIndex([0.7, 0.1, 0.1, 0.1])).toBeCloseTo(0.6783898247235198, 12);
    expect(balanceIndex([1])).toBeNull();
  });

  it("quantiles interpolate as numpy.percentile", () => {
    expect([0.25, 0.5, 0.75].map((p) => quantileSorted([1, 2, 3, 4, 5, 6, 7, 8], p))).toEqual([2.75, 4.5, 6.25]);
    const s = summariseRatings([3, 1, 7, 7, 2], 7);
    expect([s.q1, s.median, s.q3, s.min, s.max, s.n]).toEqual([2, 3, 7, 1, 7, 5]);
    expect(s.mean).toBeCloseTo(4, 12);
    expect(s.counts).toEqual([1, 1, 1, 0, 0, 0, 2]);
  });

  it("t critical values and CIs match scipy.stats.t.ppf(0.975, df)", () => {
    expect(tCritical95(4)).toBeCloseTo(2.7764451051977934, 6);
    expect(tCritical95(1)).toBeCloseTo(12.706204736174694, 5);
    expect(tCritical95(30)).toBeCloseTo(2.0422724563012378, 6);
    const ci = meanCI([1, 2, 3, 4, 5]);
    expect(ci.mean).toBe(3);
    expect(ci.sd).toBeCloseTo(Math.sqrt(2.5), 12);
    expect(ci.ci![0]).toBeCloseTo(3 - (2.7764451051977934 * Math.sqrt(2.5)) / Math.sqrt(5), 6);
    expect(meanCI([2]).ci).toBeUndefined();
  });

  it("thins long series to at most max points, keeping first and last", () => {
    const pts = Array.from({ length: 1000 }, (_v, i) => i);
    const out = thin(pts, 200);
    expect(out).toHaveLength(200);
    expect(out[0]).toBe(0);
    expect(out[199]).toBe(999);
    expect(thin([1, 2], 200)).toEqual([1, 2]);
  });

  it("phases split a session in thirds by position", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => phaseOf(i, 9))).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2]);
    expect(phaseOf(0, 1)).toBe(0);
  });

  it("session duration runs from the first start to the last end; null without times", () => {
    expect(sessionDuration(session("s", "x", [["a", "hi", 5], ["b", "yo", 65]]))).toBe(60);
    expect(sessionDuration(session("s", "x", [["a", "hi"]]))).toBeNull();
  });
});

describe("shaping from sessions and codes", () => {
  const s1 = session("s1", "control", [["a", "one two", 0], ["b", "three", 10], ["a", "four five six", 20]]);
  const s2 = session("s2", "test", [["b", "x"], ["b", "y"], ["a", "z"], ["b", "w"]]);
  const set = codes("rules", [
    ["s1", "t0", "op"],
    ["s1", "t1", "su"],
    ["s1", "t2", "op"],
    ["s2", "t0", "op"],
    ["s2", "t1", "op"],
    ["s2", "t2", "su"],
    // s2 t3 not coded
  ]);

  it("collects speakers by name across sessions with turns and words", () => {
    const speakers = collectSpeakers([s1, s2]);
    expect(speakers.map((s) => [s.key, s.kind, s.sessions, s.turns, s.words])).toEqual([
      ["Ann", "human", 2, 3, 6],
      ["Bot", "ai", 2, 4, 4],
    ]);
  });

  it("distributions count codes per speaker and per condition, skipping uncoded turns", () => {
    const d = buildDistribution([s1, s2], set);
    expect(d.bySpeaker).toEqual([
      { key: "Ann", kind: "human", role: undefined, total: 3, counts: { op: 2, su: 1 } },
      { key: "Bot", kind: "ai", role: "helper", total: 3, counts: { su: 1, op: 2 } },
    ]);
    expect(d.byCondition).toEqual([
      { condition: "control", total: 3, counts: { op: 2, su: 1 } },
      { condition: "test", total: 3, counts: { op: 2, su: 1 } },
    ]);
  });

  it("sequences hold one category index per turn (-1 uncoded), binned by most frequent code", () => {
    const speakers = collectSpeakers([s1, s2]);
    const rows = buildSequenceSessions([s1, s2], speakers);
    const seq = buildSequenceSet([s1, s2], rows, set, info(["op", "su"]));
    expect(seq.cells).toEqual([[0, 1, 0], [0, 0, 1, -1]]);
    expect(rows[1].speakers).toEqual([1, 1, 0, 1]);
    const binnedRows = buildSequenceSessions([s1, s2], speakers, 2);
    expect(binnedRows.map((r) => r.binSize)).toEqual([2, 2]);
    // s1 bins: [op, su] -> tie, first in codebook order (op); [op] -> op. s2: [op, op] -> op; [su, -] -> su.
    expect(buildSequenceSet([s1, s2], binnedRows, set, info(["op", "su"])).cells).toEqual([[0, 0], [0, 1]]);
  });

  it("participation shares, cumulative words and who-follows-whom", () => {
    const p = buildParticipation(s1);
    expect(p.speakers).toEqual([
      { key: "Ann", turns: 2, words: 5, turnShare: 2 / 3, wordShare: 5 / 6 },
      { key: "Bot", turns: 1, words: 1, turnShare: 1 / 3, wordShare: 1 / 6 },
    ]);
    expect(p.cumulative[0].points).toEqual([[0, 2], [20, 5]]);
    expect(p.timeAxis).toBe("seconds");
    expect(buildParticipation(s2).timeAxis).toBe("turn");
    const f = buildFollows([s1, s2], ["Ann", "Bot"]);
    // s1: Ann->Bot, Bot->Ann; s2: Bot->Bot, Bot->Ann, Ann->Bot
    expect(f.counts).toEqual([[0, 2], [2, 1]]);
  });

  it("compare: percentage difference from control with counts; collapse, drop, groups, per-run", () => {
    const cb = info(["op", "su", "ag"]);
    const base = buildCompareSet([s1, s2], set, cb, { control: "control" }, ["control", "test"]);
    if ("empty" in base) throw new Error(base.empty);
    expect(base.cells.map((c) => [c.code, c.count, c.controlCount, c.pctDiff])).toEqual([
      ["op", 2, 2, 0],
      ["su", 1, 1, 0],
      ["ag", 0, 0, null],
    ]);
    const s3 = session("s3", "test", [["a", "q"], ["b", "r"]]);
    const more = codes("rules", [...set.records.map((r) => [r.session, r.turn, r.codes![0]] as [string, string, string]), ["s3", "t0", "op"], ["s3", "t1", "op"]]);
    const perRun = buildCompareSet([s1, s2, s3], more, cb, { control: "control", normaliseByRuns: true }, ["control", "test"]);
    if ("empty" in perRun) throw new Error(perRun.empty);
    // op: test 4 acts over 2 runs = 2 per run vs control 2 per run -> 0%; raw counts kept.
    expect(perRun.cells[0]).toMatchObject({ code: "op", count: 4, controlCount: 2, pctDiff: 0 });
    const raw = buildCompareSet([s1, s2, s3], more, cb, { control: "control" }, ["control", "test"]);
    if ("empty" in raw) throw new Error(raw.empty);
    expect(raw.cells[0].pctDiff).toBe(100);
    const collapsed = buildCompareSet([s1, s2], set, cb, { control: "control", collapse: { talk: ["op", "su"] }, drop: ["ag"] }, ["control", "test"]);
    if ("empty" in collapsed) throw new Error(collapsed.empty);
    expect(collapsed.codes).toEqual([{ id: "talk", label: "talk" }]);
    expect(collapsed.cells).toEqual([{ condition: "test", code: "talk", count: 3, controlCount: 3, pctDiff: 0 }]);
    const grouped = buildCompareSet([s1, s2], set, cb, { control: "base", conditionGroups: { base: ["control"] } }, ["control", "test"]);
    if ("empty" in grouped) throw new Error(grouped.empty);
    expect(grouped.control).toBe("base");
    expect(grouped.runs).toEqual({ base: 1, test: 1 });
    const none = buildCompareSet([s1, s2], set, cb, {}, ["baseline", "test"]);
    expect("empty" in none && none.empty).toMatch(/compare.*control/);
    const wrong = buildCompareSet([s1, s2], set, cb, { control: "nope" }, ["control", "test"]);
    expect("empty" in wrong && wrong.empty).toMatch(/"nope" has no sessions/);
  });

  it("Bales profile per member and phase counts per third", () => {
    const cb = info(["op", "su"], [{ id: "answers", label: "Answers", kind: "area" }], { op: ["answers"], su: ["answers"] });
    const b = buildBalesSet([s1, s2], set, cb);
    expect(b.areas).toEqual([{ id: "answers", label: "Answers", categories: ["op", "su"] }]);
    expect(b.members.find((m) => m.key === "Ann")).toMatchObject({ total: 3, counts: { op: 2, su: 1 } });
    // s1 (3 turns): thirds t0|t1|t2; s2 (4 turns): t0 early, t1 early, t2 middle, t3 late (uncoded).
    expect(b.phases.map((p) => [p.phase, p.total, p.counts])).toEqual([
      ["early", 3, { op: 3 }],
      ["middle", 2, { su: 2 }],
      ["late", 1, { op: 1 }],
    ]);
  });

  it("style summaries per speaker and per condition", () => {
    const records: CodeRecord[] = [
      { session: "s1", turn: "t0", codebook: "ps", codebookVersion: "1", coder: "rules", scores: { warmth: 2 }, provenance: {}, createdAt: "x" },
      { session: "s1", turn: "t2", codebook: "ps", codebookVersion: "1", coder: "rules", scores: { warmth: 4 }, provenance: {}, createdAt: "x" },
      { session: "s1", turn: "t1", codebook: "ps", codebookVersion: "1", coder: "rules", scores: { warmth: 7 }, provenance: {}, createdAt: "x" },
    ];
    const ps = indexCodes("ps", "rules", records);
    const cb = codebookInfo("ps", null, [ps]);
    expect(cb.kind).toBe("scales");
    expect(cb.scales).toEqual([{ id: "warmth", label: "warmth", points: 7 }]);
    const style = buildStyleSet([s1], ps, cb);
    expect(style.bySpeaker.find((s) => s.key === "Ann")!.summaries.warmth).toMatchObject({ n: 2, mean: 3, median: 3 });
    expect(style.byCondition[0].summaries.warmth).toMatchObject({ n: 3, median: 4, min: 2, max: 7 });
  });

  it("codebook info appends codes found in the data but missing from the definition", () => {
    const cb = codebookInfo("cb", null, [set]);
    expect(cb.defined).toBe(false);
    expect(cb.categories.map((c) => c.id)).toEqual(["op", "su"]);
  });

  it("chunks keep the text verbatim and carry code badges with labels", () => {
    const hostile = session("h", "x", [["a", "<img src=x onerror=alert(1)>  spaced  "]]);
    const chunk = buildChunk(hostile, { codeSets: [codes("rules", [["h", "t0", "op"]])] }, new Map([["cb", new Map([["op", "Gives opinion"]])]]));
    expect(chunk.turns[0].text).toBe("<img src=x onerror=alert(1)>  spaced  ");
    expect(chunk.badges.t0).toEqual([["cb", "rules", "Gives opinion"]]);
    expect(chunk.speakers).toEqual(["Ann"]);
  });
});
