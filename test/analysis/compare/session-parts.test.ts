import { describe, expect, it } from "vitest";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import {
  codedTurnsBySession,
  codedTurnsFromDigests,
  codedSessionPart,
  joinInputsDigests,
  type CodedSessionPart,
} from "../../../src/analysis/compare/session-parts.js";
import { digestsOf, type CodeDigests } from "../../../src/study/code-digests.js";
import { codesDigest } from "../../../src/study/session-memo.js";
import { codedTurns } from "../../../src/analysis/shared/table.js";
import { openSessionMemo } from "../../../src/study/session-memo.js";
import type { CodeRecord } from "../../../src/coding/records.js";
import type { Session } from "../../../src/transcript/schema.js";
import { compareConditions, compareSessionPart } from "../../../src/analysis/compare/compare.js";
import { makeSession, pairedStudy, recordsFor } from "./fixture.js";

/**
 * Issue 11: the join of sessions and codes is kept per session and put back together; whatever
 * was reused, the result must be the join from scratch, exactly (label numbering included).
 */

const LABELS = ["gives-opinion", "agrees", "disagrees", "none"];

function study(): { sessions: Session[]; records: CodeRecord[] } {
  const a = makeSession("a-1", "ai", "1", [{ who: "Ann", code: "gives-opinion" }, { who: "Bo", code: "agrees" }, { who: "Ann" }, { who: "Bo", code: "none" }]);
  // "jokes" is outside the codebook; "Cy" speaks without being a participant.
  const b = makeSession("b-1", "control", "1", [
    { who: "Ann", code: "jokes" },
    { who: "Bo", code: "disagrees" },
    { who: "Ann", code: "agrees" },
  ]);
  b.session.turns.push({ id: "t0003", index: 3, speaker: "cy", text: "undeclared speaker", type: "message" });
  b.codes.push("puns");
  const c = makeSession("c-1", "control", "2", [
    { who: "Ann", code: "puns" },
    { who: "Bo", code: "jokes" },
  ]);
  const records = [...recordsFor(a.session, a.codes), ...recordsFor(b.session, b.codes), ...recordsFor(c.session, c.codes)];
  // A record for a turn a-1 lacks, one for a session the study lacks, and a later record that recodes a turn.
  records.push({ ...records[0], turn: "t0099" }, { ...records[0], session: "gone-1" }, { ...records[1], codes: ["disagrees"] });
  return { sessions: [a.session, b.session, c.session], records };
}

async function memoDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "colloquy-parts-"));
}

describe("codedTurnsBySession", () => {
  it("equals codedTurns from scratch, with parts computed now or read back from the memo", async () => {
    const { sessions, records } = study();
    const expected = codedTurns(sessions, records, LABELS);
    expect(expected.unknownLabels).toEqual(["jokes", "puns"]);
    expect(expected.orphanRecords).toBe(2);
    const dir = await memoDir();
    const first = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    expect(codedTurnsBySession(sessions, records, LABELS, first)).toEqual(expected);
    await first.save();
    const second = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    expect(codedTurnsBySession(sessions, records, LABELS, second)).toEqual(expected);
    expect(second.stats).toEqual({ reused: 3, computed: 0 });
  });

  it("renumbers codes outside the codebook when the session that first used one leaves the study", async () => {
    const { sessions, records } = study();
    const dir = await memoDir();
    const memo = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    codedTurnsBySession(sessions, records, LABELS, memo);
    await memo.save();
    // Without b-1, "puns" (c-1's first code) is the first unknown code, then "jokes".
    const rest = [sessions[0], sessions[2]];
    const again = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    const joined = codedTurnsBySession(rest, records, LABELS, again);
    expect(again.stats).toEqual({ reused: 2, computed: 0 });
    expect(joined).toEqual(codedTurns(rest, records, LABELS));
    expect(joined.unknownLabels).toEqual(["puns", "jokes"]);
  });

  it("joins a session anew when its codes or turns change, and only that session", async () => {
    const { sessions, records } = study();
    const dir = await memoDir();
    const memo = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    codedTurnsBySession(sessions, records, LABELS, memo);
    await memo.save();
    const recoded = records.map((r) => (r.session === "c-1" && r.turn === "t0001" ? { ...r, codes: ["agrees"] } : r));
    const edited = sessions.map((s) => (s.id === "a-1" ? { ...s, turns: s.turns.map((t, i) => (i === 2 ? { ...t, speaker: "bo" } : t)) } : s));
    const again = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    expect(codedTurnsBySession(edited, recoded, LABELS, again)).toEqual(codedTurns(edited, recoded, LABELS));
    expect(again.stats).toEqual({ reused: 1, computed: 2 });
  });

  it("keeps a part exactly through the memo's serializer (typed arrays stay typed arrays)", () => {
    const { sessions, records } = study();
    const part = codedSessionPart(
      sessions[1],
      records.filter((r) => r.session === "b-1"),
      LABELS,
    );
    const back = deserialize(serialize(part)) as CodedSessionPart;
    expect(back).toEqual(part);
    expect(back.codes).toBeInstanceOf(Int32Array);
    expect(back.unknownLabels).toEqual(["jokes", "puns"]);
  });

  it("digests the turn ids and codes a join reads, not the rest of a record", () => {
    const { records } = study();
    const own = records.filter((r) => r.session === "a-1");
    const digest = codesDigest(own);
    expect(codesDigest(own.map((r) => ({ ...r, rationale: "why", createdAt: "2027-01-01T00:00:00.000Z" })))).toBe(digest);
    expect(codesDigest(own.map((r, i) => (i === 0 ? { ...r, codes: ["agrees"] } : r)))).not.toBe(digest);
    expect(codesDigest(own.map((r, i) => (i === 0 ? { ...r, turn: "t0002" } : r)))).not.toBe(digest);
    expect(codesDigest([...own].reverse())).not.toBe(digest);
  });

  it("compare from per-session counts read back through the serializer equals compare computed at once", () => {
    const { sessions, records } = pairedStudy();
    const data = codedTurns(sessions, [...records, { ...records[0], codes: ["jokes"] }], LABELS);
    for (const options of [
      {},
      { collapse: { talk: ["gives-opinion", "agrees"] } },
      { drop: ["agrees"], unit: "session" as const, design: "between" as const },
    ]) {
      const fresh = compareConditions(data, { control: "control", ...options });
      const reused = compareConditions(data, { control: "control", ...options }, (_cs, compute) => deserialize(serialize(compute())));
      expect(reused).toStrictEqual(fresh);
      expect(fresh.acts.counted).toBeGreaterThan(0);
    }
  });

  it("a session's compare part holds in any study: computed with the session joined alone, reused where other sessions bring other unknown codes", () => {
    const { sessions, records } = study();
    // b-1 uses "jokes" then "puns", c-1 "puns" then "jokes": the study numbers them as b-1 first used them.
    const alone = new Map(
      sessions.map((session) => {
        const data = codedTurns([session], records, LABELS);
        return [session.id, compareSessionPart(data.sessions[0], data.labels, LABELS.length)];
      }),
    );
    expect(alone.get("c-1")!.unknown).toEqual(["puns", "jokes"]);
    for (const order of [sessions, [sessions[2], sessions[0], sessions[1]], [sessions[0], sessions[2]]]) {
      const data = codedTurns(order, records, LABELS);
      for (const mapping of [{}, { collapse: { fun: ["jokes", "agrees"] } }, { drop: ["puns"] }]) {
        const options = { design: "between" as const, ...mapping };
        const reused = compareConditions(data, options, (cs) => deserialize(serialize(alone.get(cs.session.id)!)));
        expect(reused).toStrictEqual(compareConditions(data, options));
        if (!("collapse" in mapping)) expect(reused.frequencies.byCondition.find((r) => r.key === "control")!.counts.jokes).toBeGreaterThan(0);
      }
    }
  });
});

describe("codedTurnsFromDigests", () => {
  /** Digests of records in memory, counting which sessions' records are asked for. */
  function spied(records: CodeRecord[], sessions: Session[]): { digests: CodeDigests; asked: string[][] } {
    const digests = digestsOf(records, sessions);
    const asked: string[][] = [];
    const records_ = digests.records;
    return { digests: { ...digests, records: async (ids) => (asked.push([...ids].sort()), records_(ids)) }, asked };
  }

  it("equals codedTurns from scratch (an orphan session, codes outside the codebook), asking once for the records of sessions not in the memo and of orphans only", async () => {
    const { sessions, records } = study();
    const expected = codedTurns(sessions, records, LABELS);
    expect(expected.unknownLabels).toEqual(["jokes", "puns"]);
    expect(expected.orphanExamples).toEqual(["a-1/t0099", "gone-1/t0000"]);
    const dir = await memoDir();

    const first = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    const cold = spied(records, sessions);
    const joined = await codedTurnsFromDigests(sessions, cold.digests, LABELS, first);
    expect(joined).toEqual(expected);
    expect(cold.asked).toEqual([["a-1", "b-1", "c-1", "gone-1"]]);
    expect(first.stats).toEqual({ reused: 0, computed: 3 });
    // The digests later memos take are those codedTurnsBySession gives.
    expect(joinInputsDigests(joined)).toEqual(joinInputsDigests(codedTurnsBySession(sessions, records, LABELS, { get: (_k, _s, compute) => compute() })));
    await first.save();

    // Every part kept: only the orphans' records are read.
    const second = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    const warm = spied(records, sessions);
    expect(await codedTurnsFromDigests(sessions, warm.digests, LABELS, second)).toEqual(expected);
    expect(warm.asked).toEqual([["gone-1"]]);
    expect(second.stats).toEqual({ reused: 3, computed: 0 });
    await second.save();

    // Without orphans and with every part kept, no record is read.
    const own = records.filter((r) => r.session !== "gone-1");
    const third = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    const none = spied(own, sessions);
    expect(await codedTurnsFromDigests(sessions, none.digests, LABELS, third)).toEqual(codedTurns(sessions, own, LABELS));
    expect(none.asked).toEqual([]);
  });

  it("a session added with a code outside the codebook: only its records and the orphans' are read, and the join is the one from scratch", async () => {
    const { sessions, records } = study();
    const dir = await memoDir();
    const memo = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    await codedTurnsFromDigests(sessions, digestsOf(records, sessions), LABELS, memo);
    await memo.save();
    const d = makeSession("d-1", "ai", "2", [
      { who: "Bo", code: "heckles" },
      { who: "Ann", code: "puns" },
    ]);
    const more = [...sessions, d.session];
    const all = [...records, ...recordsFor(d.session, d.codes)];
    const again = await openSessionMemo<CodedSessionPart>(dir, "coded", {});
    const { digests, asked } = spied(all, more);
    const joined = await codedTurnsFromDigests(more, digests, LABELS, again);
    expect(joined).toEqual(codedTurns(more, all, LABELS));
    expect(joined.unknownLabels).toEqual(["jokes", "puns", "heckles"]);
    expect(asked).toEqual([["d-1", "gone-1"]]);
    expect(again.stats).toEqual({ reused: 3, computed: 1 });
  });
});
