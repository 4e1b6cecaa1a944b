import { describe, expect, it } from "vitest";
import { sessionSchema, type Session } from "../../src/transcript/schema.js";
import { nominalCodebookSchema } from "../../src/coding/codebook/schema.js";
import { indexCodes } from "../../src/report/load.js";
import { summariseRecords, type CodeRecord } from "../../src/coding/records.js";
import { sessionMetrics } from "../../src/analysis/stats/metrics.js";
import { codebookInfo, seenIn } from "../../src/report/shape/common.js";
import { codebookSessionPart, mergeSpeakers, mergeStyleValues, sessionPart } from "../../src/report/shape/parts.js";
import { shapeSessionParts } from "../../src/report/bundle.js";
import { buildFollows, buildParticipation, thin } from "../../src/report/shape/participation.js";
import { styleSetOf } from "../../src/report/shape/styles.js";
import { buildDistribution, buildSequenceSet } from "../../src/report/shape/distributions.js";
import { buildBalesSet } from "../../src/report/shape/bales.js";
import { buildCompareSet } from "../../src/report/shape/compare.js";
import { buildChunk, summariseSession } from "../../src/report/shape/overview.js";
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
  const records: CodeRecord[] = list.map(([s, turn, code]) => ({
    session: s,
    turn,
    codebook: "cb",
    codebookVersion: "1",
    coder,
    codes: [code],
    provenance: {},
    createdAt: "2026-01-01T00:00:00Z",
  }));
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

// The measures themselves (words, duration, entropy, thirds, quantiles, intervals) are tested in
// test/analysis/shared/measures.test.ts: the report only shapes what src/analysis computes.
describe("drawing helpers", () => {
  it("thins long series to at most max points, keeping first and last", () => {
    const pts = Array.from({ length: 1000 }, (_v, i) => i);
    const out = thin(pts, 200);
    expect(out).toHaveLength(200);
    expect(out[0]).toBe(0);
    expect(out[199]).toBe(999);
    expect(thin([1, 2], 200)).toEqual([1, 2]);
  });
});

describe("shaping from sessions and codes", () => {
  const s1 = session("s1", "control", [
    ["a", "one two", 0],
    ["b", "three", 10],
    ["a", "four five six", 20],
  ]);
  const s2 = session("s2", "test", [
    ["b", "x"],
    ["b", "y"],
    ["a", "z"],
    ["b", "w"],
  ]);
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
    const speakers = mergeSpeakers([s1, s2].map(sessionPart));
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
    const rows = shapeSessionParts([s1, s2].map(sessionPart), undefined).sequenceSessions;
    const seq = buildSequenceSet([s1, s2], rows, set, info(["op", "su"]));
    expect(seq.cells).toEqual([
      [0, 1, 0],
      [0, 0, 1, -1],
    ]);
    expect(rows[1].speakers).toEqual([1, 1, 0, 1]);
    const binnedRows = rows.map((r) => ({ ...r, binSize: 2 }));
    // s1 bins: [op, su] -> tie, first in codebook order (op); [op] -> op. s2: [op, op] -> op; [su, -] -> su.
    expect(buildSequenceSet([s1, s2], binnedRows, set, info(["op", "su"])).cells).toEqual([
      [0, 0],
      [0, 1],
    ]);
  });

  it('session summaries count words and time by the analysis rules ("Hello — world ..." is 2 words)', () => {
    const hello = session("h", "x", [
      ["a", "Hello — world ...", 5],
      ["b", "ok", 65],
    ]);
    expect(summariseSession(hello)).toMatchObject({ words: 3, duration: 60 });
    expect(summariseSession(session("u", "x", [["a", "hi"]])).duration).toBeNull();
  });

  it("participation shares, cumulative words and who-follows-whom", () => {
    const p = buildParticipation(s1, sessionMetrics(s1));
    expect(p.speakers).toEqual([
      // No turn has an end time: speaking seconds are unknown, not zero.
      { key: "Ann", turns: 2, words: 5, turnShare: 2 / 3, wordShare: 5 / 6, seconds: null },
      { key: "Bot", turns: 1, words: 1, turnShare: 1 / 3, wordShare: 1 / 6, seconds: null },
    ]);
    // This session's own who-follows-whom, in the order of its speakers: Ann->Bot, Bot->Ann.
    expect(p.follows).toEqual([
      [0, 1],
      [1, 0],
    ]);
    // Speaking seconds: end - start of each counted turn with both times (a system turn and a turn without an end add nothing).
    const timed = sessionSchema.parse({
      id: "timed",
      metadata: { condition: "x" },
      participants: [
        { id: "a", name: "Ann", kind: "human" },
        { id: "b", name: "Bot", kind: "ai" },
        { id: "s", name: "System", kind: "system" },
      ],
      turns: [
        { id: "t0", index: 0, speaker: "s", text: "start", start: 0, end: 100 },
        { id: "t1", index: 1, speaker: "a", text: "hello there", start: 1, end: 4.5 },
        { id: "t2", index: 2, speaker: "b", text: "hi", start: 5, end: 6 },
        { id: "t3", index: 3, speaker: "a", text: "so", start: 7 },
        { id: "t4", index: 4, speaker: "a", text: "then", start: 9, end: 11 },
      ],
    });
    expect(buildParticipation(timed, sessionMetrics(timed)).speakers.map((sp) => [sp.key, sp.seconds])).toEqual([
      ["Ann", 5.5],
      ["Bot", 1],
    ]);
    expect(p.cumulative[0].points).toEqual([
      [0, 2],
      [20, 5],
    ]);
    expect(p.timeAxis).toBe("seconds");
    expect(p.balance).toBeCloseTo(sessionMetrics(s1).balance.entropyWords!, 12);
    expect(buildParticipation(s2, sessionMetrics(s2)).timeAxis).toBe("turn");
    const f = buildFollows([s1, s2].map(sessionMetrics), ["Ann", "Bot"]);
    // s1: Ann->Bot, Bot->Ann; s2: Bot->Bot, Bot->Ann, Ann->Bot
    expect(f.counts).toEqual([
      [0, 2],
      [2, 1],
    ]);
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
    const s3 = session("s3", "test", [
      ["a", "q"],
      ["b", "r"],
    ]);
    const more = codes("rules", [
      ...set.records.map((r) => [r.session, r.turn, r.codes![0]] as [string, string, string]),
      ["s3", "t0", "op"],
      ["s3", "t1", "op"],
    ]);
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

  it("Bales profile per member and phase movement per third, as src/analysis computes them", () => {
    const cb = info(["op", "su"], [{ id: "answers", label: "Answers", kind: "area" }], { op: ["answers"], su: ["answers"] });
    const definition = nominalCodebookSchema.parse({
      id: "cb",
      version: "1",
      title: "cb",
      kind: "nominal",
      categories: [
        { id: "op", label: "OP", definition: "opinion", groups: ["answers"] },
        { id: "su", label: "SU", definition: "suggestion", groups: ["answers"] },
      ],
      groups: [{ id: "answers", label: "Answers", kind: "area" }],
    });
    const b = buildBalesSet([s1, s2], set, cb, definition);
    expect(b.areas).toEqual([{ id: "answers", label: "Answers", categories: ["op", "su"] }]);
    expect(b.members.find((m) => m.key === "Ann")).toMatchObject({ total: 3, counts: { op: 2, su: 1 } });
    // Thirds of each session's acts (uncoded turns are not acts): s1 op|su|op, s2 op|op|su.
    expect(b.phases.map((p) => [p.phase, p.total, p.counts, p.shares])).toEqual([
      ["early", 2, { op: 2, su: 0 }, { answers: 1 }],
      ["middle", 2, { op: 1, su: 1 }, { answers: 1 }],
      ["late", 2, { op: 1, su: 1 }, { answers: 1 }],
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
    const { bySpeaker, byCondition } = mergeStyleValues([codebookSessionPart(s1, [ps], cb, 1, null).coders[0]]);
    const style = styleSetOf(ps, cb, bySpeaker, byCondition);
    expect(style.bySpeaker.find((s) => s.key === "Ann")!.summaries.warmth).toMatchObject({ n: 2, mean: 3, median: 3 });
    expect(style.byCondition[0].summaries.warmth).toMatchObject({ n: 3, median: 4, min: 2, max: 7 });
  });

  it("codebook info appends codes found in the data but missing from the definition", () => {
    const cb = codebookInfo("cb", null, [set]);
    expect(cb.defined).toBe(false);
    expect(cb.categories.map((c) => c.id)).toEqual(["op", "su"]);
  });

  it("the codes and scales seen, merged from each coder's summary, are those of all their records summarised in coder order", () => {
    const record = (coder: string, codes: string[] | undefined, scores?: Record<string, number>): CodeRecord => ({
      ...{ session: "s1", turn: "t0", codebook: "cb", codebookVersion: "1", coder, provenance: {}, createdAt: "x" },
      ...(codes ? { codes } : {}),
      ...(scores ? { scores } : {}),
    });
    const first = [record("a", ["su", "op"], { warmth: 2.5 }), record("a", ["op"], { warmth: -3 })];
    const second = [record("b", ["ag", "su"], { clarity: 4, warmth: 6.2 }), record("b", undefined, { warmth: 1 })];
    const seen = seenIn([summariseRecords(first), summariseRecords(second)]);
    const whole = summariseRecords([...first, ...second]);
    expect([...seen.codes]).toEqual(["su", "op", "ag"]);
    expect([...seen.codes]).toEqual([...whole.codes]);
    expect([...seen.scales]).toEqual([
      ["warmth", 7],
      ["clarity", 4],
    ]);
    expect([...seen.scales]).toEqual([...whole.scales]);
  });

  it("chunks keep the text verbatim and carry code badges with labels", () => {
    const hostile = session("h", "x", [["a", "<img src=x onerror=alert(1)>  spaced  "]]);
    const chunk = buildChunk(hostile, { codeSets: [codes("rules", [["h", "t0", "op"]])] }, new Map([["cb", new Map([["op", "Gives opinion"]])]]));
    expect(chunk.turns[0].text).toBe("<img src=x onerror=alert(1)>  spaced  ");
    expect(chunk.badges.t0).toEqual([["cb", "rules", "Gives opinion"]]);
    expect(chunk.speakers).toEqual(["Ann"]);
  });
});
