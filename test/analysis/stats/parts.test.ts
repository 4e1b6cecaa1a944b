import { describe, expect, it } from "vitest";
import { deserialize, serialize } from "node:v8";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadCodebook } from "../../../src/coding/codebook/load.js";
import type { NominalCodebook } from "../../../src/coding/codebook/schema.js";
import type { Session } from "../../../src/transcript/schema.js";
import type { Provenance } from "../../../src/util/provenance.js";
import { codedTurns, type CodedSession } from "../../../src/analysis/shared/table.js";
import { buildStats, sessionCodeStats, type StatsCoded } from "../../../src/analysis/stats/report.js";
import {
  buildStatsParts,
  sessionMetricsPart,
  statsCodesPart,
  statsReportOf,
  writeStatsParts,
  type SessionMetricsPart,
  type StatsCodesPart,
  type StatsReportParts,
} from "../../../src/analysis/stats/parts.js";
import { writeStatsReport } from "../../../src/analysis/stats/output.js";
import { balesProfiles, phaseMovement, profileFrame, transitions } from "../../../src/analysis/stats/bales.js";
import { codeSequences, segmentDistributions } from "../../../src/analysis/stats/sequences.js";
import { sessionMetrics } from "../../../src/analysis/stats/metrics.js";
import { artifacts } from "../../../src/study/artifacts.js";
import { makeSession, recordsFor } from "../compare/fixture.js";

/**
 * Issue 11: the stats stage keeps what each session contributes (its metrics' figures, its Bales,
 * phase, transition and segment counts, and its entries of stats.json and rows of the tables as
 * rendered text) in memos stored with node:v8's serializer, pools the study-level figures from
 * them and splices the kept text into the files. The files must be byte for byte those
 * writeStatsReport writes for buildStats' report of the same study.
 */

const bales = (await loadCodebook("bales-ipa")) as NominalCodebook;
const labels = bales.categories.map((c) => c.id);
/** bales-ipa without its groups: no phases (codes.phases is null) and no Bales ratios. */
const ungrouped: NominalCodebook = {
  ...bales,
  id: "ungrouped",
  groups: [],
  categories: bales.categories.map((c) => ({ ...c, groups: undefined })),
};
const PROVENANCE: Provenance = { tool: "colloquy", version: "0.0.0", createdAt: "2026-01-01T00:00:00.000Z", command: "stats" };

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
      // A name a CSV cell quotes, and text beyond Latin-1.
      { who: 'Zoë "Z", Jr.', code: "agrees", start: 23, text: 'Oui, "d\'accord" — 好' },
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
  return { sessions, records, data: codedTurns(sessions, records, labels) };
}

const roundTrip = <T>(value: T): T => deserialize(serialize(value)) as T;

/** The three files stats writes, each as its bytes (decoded one character per byte: equal strings are equal bytes). */
async function written(write: (dir: string) => Promise<unknown>): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(tmpdir(), "colloquy-stats-parts-"));
  await write(dir);
  const files = [artifacts.stats, artifacts.statsSessions, artifacts.statsParticipants];
  return Object.fromEntries(await Promise.all(files.map(async (a) => [a.file(), (await readFile(a.path(dir))).toString("latin1")])));
}

const atOnce = (sessions: readonly Session[], coded?: StatsCoded) =>
  written((dir) => writeStatsReport(dir, { provenance: PROVENANCE, ...buildStats(sessions, coded) }));
const fromParts = (parts: StatsReportParts) => written((dir) => writeStatsParts(dir, PROVENANCE, parts));

/** Parts as a memo gives them back: through node:v8's serializer. */
const kept = {
  part: (_cs: CodedSession, compute: () => StatsCodesPart) => roundTrip(compute()),
  measure: (s: Session) => roundTrip(sessionMetricsPart(s)),
};

describe("stats from per-session parts", () => {
  it("writes the bytes of buildStats' report, from parts computed or read back through the memo's serializer", async () => {
    const { sessions, data } = study();
    for (const codebook of [bales, ungrouped]) {
      const coded = { data, codebook, coder: "rules" };
      const expected = await atOnce(sessions, coded);
      expect(await fromParts(buildStatsParts(sessions, coded))).toEqual(expected);
      const parts = buildStatsParts(sessions, { ...coded, part: kept.part }, kept.measure);
      expect(await fromParts(parts)).toEqual(expected);
      // The stats command's report: the same values, each session's entries parsed from its lines.
      expect(statsReportOf(PROVENANCE, parts)).toStrictEqual({ provenance: PROVENANCE, ...buildStats(sessions, coded) });
    }
    const plain = await atOnce(sessions);
    expect(await fromParts(buildStatsParts(sessions, undefined, kept.measure))).toEqual(plain);
    expect(plain["stats-participants.csv"]).toContain(Buffer.from('"Zoë ""Z"", Jr."').toString("latin1"));
    expect(plain["stats.json"]).toContain('"codes": null');
  });

  it("keeps a part's counts, lines, nulls and absent fields through the serializer", () => {
    const { data } = study();
    const part = statsCodesPart(data.sessions[1], data.labels, labels.length, bales);
    const back = roundTrip(part);
    expect(back).toStrictEqual(part);
    expect(back.transitions).toBeInstanceOf(Float64Array);
    expect(back.unknown).toEqual(["jokes"]);
    const member = JSON.parse(Buffer.from(back.lines.members[0]).toString("utf8"));
    expect(member.profile.ratios.agreementToDisagreement).toStrictEqual({ numerator: 1, denominator: 0, value: null });
    const empty = roundTrip(statsCodesPart(data.sessions[2], data.labels, labels.length, bales));
    expect(JSON.parse(Buffer.from(empty.lines.phases!).toString("utf8")).thirds[0].shares.orientation).toBeNull();
    const metrics: SessionMetricsPart = roundTrip(sessionMetricsPart(data.sessions[1].session));
    expect(metrics).toStrictEqual(sessionMetricsPart(data.sessions[1].session));
    expect(JSON.parse(Buffer.from(metrics.json).toString("utf8"))).toStrictEqual(sessionMetrics(data.sessions[1].session));
    expect(metrics.figures.durationSeconds).toBeNull();
  });

  it("pools parts by condition as the sum of the sessions' counts", () => {
    const { sessions, data } = study();
    const frame = profileFrame(data.labels, bales);
    const counted = data.sessions.map((cs) => sessionCodeStats(cs, frame));
    const { codes } = buildStats(sessions, { data, codebook: bales, coder: "rules" });
    const control = codes!.transitions.conditions.find((c) => c.condition === "control")!.matrix;
    const summed = counted[1].transitions.map((n, i) => n + counted[2].transitions[i]);
    expect(control.counts.flat()).toEqual(Array.from(summed));
    expect(codes!.profiles.overall.acts).toBe(counted.flatMap((p) => p.profiles.members).reduce((n, m) => n + m.profile.acts, 0));
  });

  it("a session's part holds in any study: computed with the session alone, reused where other sessions bring other codes outside the codebook", async () => {
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
    const { sessions, records } = study();
    const all = [...sessions, d.session, e.session];
    records.push(...recordsFor(d.session, d.codes), ...recordsFor(e.session, e.codes));
    const alone = new Map(
      all.map((session) => {
        const own = codedTurns([session], records, labels);
        return [session.id, roundTrip(statsCodesPart(own.sessions[0], own.labels, labels.length, bales))];
      }),
    );
    expect(alone.get("e-1")!.unknown).toEqual(["puns", "riddles", "jokes"]);
    // The last order numbers the study's codes outside the codebook as e-1 does: its lines are used as kept.
    for (const order of [all, [...all].reverse(), [all[4], all[0], all[3]], [all[0], all[4]]]) {
      const joined = codedTurns(order, records, labels);
      const coded = { data: joined, codebook: bales, coder: "rules" };
      const reused = buildStatsParts(order, { ...coded, part: (cs) => alone.get(cs.session.id)! }, kept.measure);
      expect(await fromParts(reused)).toEqual(await atOnce(order, coded));
      // And the whole-study functions, which count every session in the study's numbering.
      const frame = profileFrame(joined.labels, bales);
      const report = statsReportOf(PROVENANCE, reused);
      expect(report.codes!.profiles).toStrictEqual(balesProfiles(joined, frame));
      expect(report.codes!.phases).toStrictEqual(phaseMovement(joined, frame));
      expect(report.codes!.transitions).toStrictEqual(transitions(joined));
      expect(report.codes!.segments).toStrictEqual(segmentDistributions(joined));
      expect(report.codes!.sequences).toStrictEqual(codeSequences(joined));
    }
  });

  it("writes the kept text as it is: a part of another session, or one kept from before a recode, shows in the files", async () => {
    // Two sessions with codes inside the codebook only, so every part's lines are used as kept.
    const a = makeSession("a-1", "ai", "1", [
      { who: "Ann", code: "gives-opinion", start: 0 },
      { who: "Bo", code: "agrees", start: 5 },
      { who: "Ann", code: "asks-opinion", start: 9 },
    ]);
    const b = makeSession("b-1", "control", "1", [
      { who: "Cy", code: "disagrees", start: 0 },
      { who: "Di", code: "shows-tension", start: 3 },
    ]);
    const sessions = [a.session, b.session];
    const records = [...recordsFor(a.session, a.codes), ...recordsFor(b.session, b.codes)];
    const coded = { data: codedTurns(sessions, records, labels), codebook: bales, coder: "rules" };
    const expected = await atOnce(sessions, coded);
    const partOf = (cs: CodedSession) => statsCodesPart(cs, coded.data.labels, labels.length, bales);

    // b-1 given a-1's parts: a-1's entries and rows are written twice.
    const swapped = await fromParts(buildStatsParts(sessions, { ...coded, part: () => partOf(coded.data.sessions[0]) }, () => sessionMetricsPart(a.session)));
    expect(swapped["stats.json"]).not.toEqual(expected["stats.json"]);
    expect(swapped["stats.json"]).not.toContain('"session":"b-1"');
    expect(swapped["stats-sessions.csv"]).not.toContain("b-1");

    // b-1's part kept from before its second turn was recoded: its old counts and lines are written.
    const before = codedTurns(sessions, [...recordsFor(a.session, a.codes), ...recordsFor(b.session, ["disagrees", "agrees"])], labels);
    const stale = await fromParts(buildStatsParts(sessions, { ...coded, part: (cs) => (cs.session.id === "b-1" ? partOf(before.sessions[1]) : partOf(cs)) }));
    expect(stale["stats.json"]).not.toEqual(expected["stats.json"]);
    expect(stale["stats-sessions.csv"]).toEqual(expected["stats-sessions.csv"]);
  });
});
