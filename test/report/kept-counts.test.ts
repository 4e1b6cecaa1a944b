// The build's session parts keep each member's code counts and each third's (parts.ts
// SessionCounts), and the compare and Bales views pool those instead of counting every turn again.
// Pooled or counted, the views must be the same: here on sessions with what the dashboard fixture
// lacks (the codebook's fallback category, turns with two codes, a speaker the participants do not
// list, a session a coder did not code) and under collapse, drop and per-run normalisation.
import { describe, expect, it } from "vitest";
import { sessionSchema, type Session } from "../../src/transcript/schema.js";
import { nominalCodebookSchema } from "../../src/coding/codebook/schema.js";
import { compareSettingsSchema } from "../../src/study/config.js";
import { indexCodes } from "../../src/report/load.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { codebookInfo } from "../../src/report/shape/common.js";
import { balesFrame, buildBalesSet } from "../../src/report/shape/bales.js";
import { buildCompareSet } from "../../src/report/shape/compare.js";
import { codebookSessionPart, mergeCoded, mergeDistribution } from "../../src/report/shape/parts.js";
import { buildDistribution } from "../../src/report/shape/distributions.js";
import { codedTurns, memberCounts } from "../../src/analysis/shared/table.js";
import { profileFrame, profilesBySpeaker } from "../../src/analysis/stats/bales.js";

const definition = nominalCodebookSchema.parse({
  id: "cb",
  version: "1",
  title: "cb",
  kind: "nominal",
  fallback: "none",
  categories: [
    { id: "op", label: "OP", definition: "opinion", groups: ["answers", "evaluation"] },
    { id: "su", label: "SU", definition: "suggestion", groups: ["answers", "control"] },
    { id: "qu", label: "QU", definition: "question", groups: ["questions", "evaluation"] },
    { id: "ag", label: "AG", definition: "agrees", groups: ["positive"] },
    { id: "none", label: "None", definition: "none of the above" },
  ],
  groups: [
    { id: "answers", label: "Answers", kind: "area" },
    { id: "questions", label: "Questions", kind: "area" },
    { id: "positive", label: "Positive", kind: "area" },
    { id: "evaluation", label: "Evaluation", kind: "problem" },
    { id: "control", label: "Control", kind: "problem" },
  ],
});

/** A session of `condition` and `run` whose turns go round Ann, Bot and, every fifth turn, "guest" (not a listed participant). */
function session(id: string, condition: string, run: string, turns: number): Session {
  return sessionSchema.parse({
    id,
    metadata: { condition, run },
    participants: [
      { id: "a", name: "Ann", kind: "human", role: "student" },
      { id: "b", name: "Bot", kind: "ai", role: "tutor" },
    ],
    turns: Array.from({ length: turns }, (_, i) => ({ id: `t${i}`, index: i, speaker: i % 5 === 4 ? "guest" : i % 2 ? "b" : "a", text: `turn ${i}` })),
  });
}

const sessions = [
  session("c1", "control", "1", 13),
  session("c2", "control", "2", 8),
  session("x1", "treatment", "1", 11),
  session("x2", "treatment", "2", 9),
  session("x3", "treatment", "2", 6),
];

/** Codes cycling through the categories, the fallback among them; every third turn gets a second code. Session x3 is left uncoded. */
function records(coder: string, shift: number): CodeRecord[] {
  const ids = ["op", "su", "qu", "ag", "none"];
  return sessions
    .filter((s) => s.id !== "x3")
    .flatMap((s) =>
      s.turns.map((t, i) => ({
        session: s.id,
        turn: t.id,
        codebook: "cb",
        codebookVersion: "1",
        coder,
        codes: i % 3 === 0 ? [ids[(i + shift) % 5], ids[(i + shift + 2) % 5]] : [ids[(i * 7 + shift) % 5]],
        provenance: {},
        createdAt: "2026-01-01T00:00:00Z",
      })),
    );
}

describe("views pooled from the sessions' kept counts", () => {
  const sets = [indexCodes("cb", "human:a", records("human:a", 0)), indexCodes("cb", "human:b", records("human:b", 3))];
  const info = codebookInfo("cb", definition, sets);
  const frame = balesFrame(info, definition)!;
  const parts = sessions.map((s) => codebookSessionPart(s, sets, info, 1, frame));

  it("keeps counts for every coder of every session, thirds counted with the fallback left out", () => {
    expect(frame.fallback).toBe(info.categories.findIndex((c) => c.id === "none"));
    for (const part of parts) for (const coder of part.coders) expect(coder.counts?.phases).toBeInstanceOf(Float64Array);
  });

  for (const [k, set] of sets.entries()) {
    const mine = parts.map((p) => p.coders[k]);
    const counts = mine.map((p) => p.counts!);
    const coded = mergeCoded(sessions, mine, info);

    it(`Bales members and phases, ${set.coder}`, () => {
      expect(buildBalesSet(sessions, set, info, definition, coded, counts)).toEqual(buildBalesSet(sessions, set, info, definition));
    });

    for (const settings of [
      { control: "control" },
      { control: "control", collapse: { answers: ["op", "su"] }, drop: ["none"] },
      { control: "control", normaliseByRuns: true, drop: ["ag"] },
    ]) {
      it(`compare, ${set.coder}, ${JSON.stringify(settings)}`, () => {
        const parsed = compareSettingsSchema.parse(settings);
        const pooled = buildCompareSet(sessions, set, info, parsed, ["control", "treatment"], coded, undefined, counts);
        expect("empty" in pooled).toBe(false);
        expect(pooled).toEqual(buildCompareSet(sessions, set, info, parsed, ["control", "treatment"]));
      });
    }
  }

  it("a frame with fewer labels than the join counts none of the others, and never on another member", () => {
    const labels = ["op", "su", "qu", "ag", "none"];
    const data = codedTurns(sessions, sets[0].records, labels);
    // From the records themselves: how many op and su codes each speaker's turns got.
    const expected = (sessionIds: string[], speaker: string, code: string) =>
      sets[0].records.filter((r) => sessionIds.includes(r.session) && speakerOf(r.session, r.turn) === speaker && r.codes!.includes(code)).length;
    const c1 = data.sessions[0];
    expect(c1.members.map((m) => m.id)).toEqual(["a", "b", "guest"]);
    expect([...memberCounts(c1, c1.members.length, 2)]).toEqual(["a", "b", "guest"].flatMap((who) => ["op", "su"].map((code) => expected(["c1"], who, code))));
    const all = sessions.map((s) => s.id);
    expect(profilesBySpeaker(data, profileFrame(["op", "su"])).find((p) => p.name === "Ann")?.profile.counts).toEqual({
      op: expected(all, "a", "op"),
      su: expected(all, "a", "su"),
    });
  });
});

describe("distributions merged from the sessions' parts", () => {
  // Speakers with no role and with an empty one, a name two participants of different kinds and
  // roles share (x1), a kind that changes from one session to the next (x2), a speaker the
  // participants do not list, and codes a session meets in another order than the last one.
  const odd = sessions.map((s, i) =>
    sessionSchema.parse({
      ...s,
      participants: [
        { id: "a", name: "Ann", kind: "human", ...(i % 2 ? {} : { role: "" }) },
        { id: "b", name: i === 2 ? "Ann" : "Bot", kind: i === 3 ? "simulated" : "ai", role: i % 2 ? "tutor" : undefined },
      ],
    }),
  );
  const sets = [indexCodes("cb", "human:a", records("human:a", 0)), indexCodes("cb", "human:b", records("human:b", 3))];
  const info = codebookInfo("cb", definition, sets);
  const parts = odd.map((s) => codebookSessionPart(s, sets, info, 1, balesFrame(info, definition)));

  for (const [k, set] of sets.entries()) {
    it(`equal buildDistribution's over every session, key for key and in order, ${set.coder}`, () => {
      const merged = mergeDistribution("cb", set.coder, parts, k);
      const whole = buildDistribution(odd, set);
      expect(merged).toStrictEqual(whole);
      expect(JSON.stringify(merged)).toBe(JSON.stringify(whole));
    });
  }
});

function speakerOf(sessionId: string, turnId: string): string {
  return sessions.find((s) => s.id === sessionId)!.turns.find((t) => t.id === turnId)!.speaker;
}
