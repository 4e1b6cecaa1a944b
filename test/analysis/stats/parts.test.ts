import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "node:v8";
import { loadCodebook } from "../../../src/coding/codebook/load.js";
import type { NominalCodebook } from "../../../src/coding/codebook/schema.js";
import { codedTurns } from "../../../src/analysis/shared/table.js";
import { buildStats, statsCodesPart, statsPartUnder, type StatsCodesPart } from "../../../src/analysis/stats/report.js";
import { balesProfiles, phaseMovement, profileFrame, transitions } from "../../../src/analysis/stats/bales.js";
import { codeSequences, segmentDistributions } from "../../../src/analysis/stats/sequences.js";
import { sessionMetrics } from "../../../src/analysis/stats/metrics.js";
import { makeSession, recordsFor } from "../compare/fixture.js";

/**
 * Issue 11: stats keeps what each session contributes (metrics, Bales counts and profiles, phases,
 * transitions, sequence, segments) in a memo stored with node:v8's serializer, and recombines the
 * study-level figures from the parts. A part read back must give exactly what a fresh one gives.
 */

const bales = (await loadCodebook("bales-ipa")) as NominalCodebook;
const labels = bales.categories.map((c) => c.id);

function study() {
  const a = makeSession(
    "a-1",
    "ai",
    "1",
    [
      { who: "Ann", code: "gives-opinion", start: 0, end: 4 },
      { who: "Bo", code: "agrees", start: 5 },
      { who: "Ann", code: "none", start: 9, end: 12 },
      { who: "AI", code: "asks-opinion", start: 12, end: 20, to: ["ann"] },
      { who: "Bo", start: 21 },
      { who: "Ann", code: "shows-tension", start: 22, end: 22.5 },
    ],
    { participants: [{ name: "Sys", kind: "system" }, { name: "Quiet" }] },
  );
  // Untimed (null duration and rates, a duration note), an undeclared speaker, a code outside the codebook.
  const b = makeSession("b-1", "control", undefined, [
    { who: "Ann", code: "agrees" },
    { who: "Bo", code: "disagrees" },
    { who: "Ann", code: "jokes" },
  ]);
  b.session.turns.push({ id: "t0003", index: 3, speaker: "cy", text: "undeclared", type: "message" });
  b.codes.push("gives-suggestion");
  const c = makeSession("c-1", "control", "2", [{ who: "Bo", type: "system" }]);
  const sessions = [a.session, b.session, c.session];
  const records = [...recordsFor(a.session, a.codes), ...recordsFor(b.session, b.codes), ...recordsFor(c.session, c.codes)];
  return { sessions, data: codedTurns(sessions, records, labels) };
}

const roundTrip = <T>(value: T): T => deserialize(serialize(value)) as T;

describe("stats from per-session parts", () => {
  it("equals stats computed at once when every part (and every session's metrics) went through the memo's serializer", () => {
    const { sessions, data } = study();
    const fresh = buildStats(sessions, { data, codebook: bales, coder: "rules" });
    const reused = buildStats(sessions, { data, codebook: bales, coder: "rules", part: (_cs, compute) => roundTrip(compute()) }, (s) =>
      roundTrip(sessionMetrics(s)),
    );
    expect(reused).toStrictEqual(fresh);
    expect(JSON.stringify(reused, null, 2)).toBe(JSON.stringify(fresh, null, 2));
    expect(fresh.sessions[1].durationSeconds).toBeNull();
    expect(fresh.codes!.labels).toContain("jokes");
  });

  it("keeps a part's typed arrays, nulls and absent fields through the serializer", () => {
    const { data } = study();
    const part = statsCodesPart(data.sessions[1], data.labels, labels.length, bales);
    const back = roundTrip(part);
    expect(back).toStrictEqual(part);
    expect(back.transitions).toBeInstanceOf(Float64Array);
    expect(back.profiles.members[0].profile.ratios.agreementToDisagreement).toStrictEqual({ numerator: 1, denominator: 0, value: null });
    expect(back.unknown).toEqual(["jokes"]);
    const empty: StatsCodesPart = roundTrip(statsCodesPart(data.sessions[2], data.labels, labels.length, bales));
    expect(empty.phases!.session.thirds[0].shares.orientation).toBeNull();
    const metrics = sessionMetrics(data.sessions[1].session);
    expect("durationNote" in metrics).toBe(true);
    expect(roundTrip(metrics)).toStrictEqual(metrics);
    expect(roundTrip({ n: NaN, u: undefined })).toStrictEqual({ n: NaN, u: undefined });
  });

  it("pools parts by condition as the sum of the sessions' counts", () => {
    const { sessions, data } = study();
    const frame = profileFrame(data.labels, bales);
    const parts = data.sessions.map((cs) => statsPartUnder(statsCodesPart(cs, data.labels, labels.length, bales), cs, frame, labels.length));
    const { codes } = buildStats(sessions, { data, codebook: bales, coder: "rules" });
    const control = codes!.transitions.conditions.find((c) => c.condition === "control")!.matrix;
    const summed = parts[1].transitions.map((n, i) => n + parts[2].transitions[i]);
    expect(control.counts.flat()).toEqual(Array.from(summed));
    expect(codes!.profiles.overall.acts).toBe(parts.flatMap((p) => p.profiles.members).reduce((n, m) => n + m.profile.acts, 0));
  });

  it("a session's part holds in any study: computed with the session alone, reused where other sessions bring other codes outside the codebook", () => {
    const d = makeSession("d-1", "ai", "1", [
      { who: "Ann", code: "gives-opinion" },
      { who: "Bo", code: "jokes" },
      { who: "Ann", code: "puns" },
      { who: "Bo", code: "agrees" },
    ]);
    // e-1 uses d-1's two codes outside the codebook in the other order, and one more.
    const e = makeSession("e-1", "control", "2", [
      { who: "Bo", code: "puns" },
      { who: "Ann", code: "asks-opinion" },
      { who: "Ann", code: "riddles" },
      { who: "Bo", code: "jokes" },
      { who: "Bo" },
      { who: "Ann", code: "none" },
    ]);
    const { sessions, data } = study();
    const all = [...sessions, d.session, e.session];
    const records = [...recordsFor(d.session, d.codes), ...recordsFor(e.session, e.codes)];
    for (const cs of data.sessions)
      records.push(
        ...recordsFor(
          cs.session,
          Array.from(cs.primary, (i) => (i < 0 ? undefined : data.labels[i])),
        ),
      );
    const alone = new Map(
      all.map((session) => {
        const own = codedTurns([session], records, labels);
        return [session.id, roundTrip(statsCodesPart(own.sessions[0], own.labels, labels.length, bales))];
      }),
    );
    expect(alone.get("e-1")!.unknown).toEqual(["puns", "riddles", "jokes"]);
    for (const order of [all, [...all].reverse(), [all[4], all[0], all[3]]]) {
      const joined = codedTurns(order, records, labels);
      const fresh = buildStats(order, { data: joined, codebook: bales, coder: "rules" });
      const reused = buildStats(order, { data: joined, codebook: bales, coder: "rules", part: (cs) => alone.get(cs.session.id)! });
      expect(JSON.stringify(reused, null, 2)).toBe(JSON.stringify(fresh, null, 2));
      expect(reused).toStrictEqual(fresh);
      // And the whole-study functions, which count every session in the study's numbering.
      const frame = profileFrame(joined.labels, bales);
      expect(reused.codes!.profiles).toStrictEqual(balesProfiles(joined, frame));
      expect(reused.codes!.phases).toStrictEqual(phaseMovement(joined, frame));
      expect(reused.codes!.transitions).toStrictEqual(transitions(joined));
      expect(reused.codes!.segments).toStrictEqual(segmentDistributions(joined));
      expect(reused.codes!.sequences).toStrictEqual(codeSequences(joined));
    }
  });
});
