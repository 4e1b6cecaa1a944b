import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readStaleCodes } from "../../src/coding/stale.js";
import { appendCodes, readCodeHistory, readCodes } from "../../src/coding/store.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { loadSessions } from "../../src/study/study.js";
import { sessionFingerprints, turnFingerprint } from "../../src/transcript/fingerprint.js";
import type { Session } from "../../src/transcript/schema.js";
import { runCli } from "../support/cli.js";

/**
 * Fault injection, edited re-imports: a transcript is imported and coded (rules coder and a human
 * coder), then edited in the ways researchers edit transcripts and imported again. Afterwards no
 * code sits on a turn whose words it was not given, and no human code is lost.
 */

const LINES = [
  "Moderator: Welcome everyone, let's start with the budget.",
  "Ana: I agree with the proposal.",
  "Ben: This plan is terrible.",
  "Ana: Could you suggest an alternative?",
  "Ben: We could cut the travel costs.",
  "Moderator: Good idea, thank you.",
  "Ana: What do you think about the timeline?",
  "Ben: I don't know, maybe two weeks.",
];

const EDITS: Record<string, (lines: string[]) => string[]> = {
  "a line added at the top": (l) => ["Moderator: (recording started)", ...l],
  "a line removed": (l) => l.filter((_, i) => i !== 2),
  "a truncated copy": (l) => l.slice(0, 5),
  "a line edited in place": (l) => l.map((x, i) => (i === 2 ? "Ben: This plan is fine." : x)),
  "two lines swapped": (l) => [l[0], l[2], l[1], ...l.slice(3)],
};

/** A human coder's codes, naming the words they were given (so a misplaced one is visible). */
function humanCodes(session: Session): CodeRecord[] {
  return session.turns.map((t) => ({
    session: session.id,
    turn: t.id,
    fingerprint: turnFingerprint(t),
    codebook: "bales-ipa",
    codebookVersion: "1",
    coder: "human:alice",
    codes: ["gives-opinion"],
    rationale: t.text,
    provenance: { via: "coding sheet" },
    createdAt: "2026-11-01T10:00:00.000Z",
  }));
}

describe("fault injection: edited transcripts imported again", () => {
  let dir: string;
  let study: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-reimport-"));
    study = join(dir, "study");
    file = join(dir, "meeting.txt");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  for (const [name, edit] of Object.entries(EDITS)) {
    it(`${name}: codes follow their words, the rest are stale, nothing is lost`, async () => {
      await writeFile(file, LINES.join("\n") + "\n");
      expect((await runCli(["import", file, "--study", study])).code).toBe(0);
      expect((await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "rules"])).code).toBe(0);
      const [before] = await loadSessions(study);
      await appendCodes(study, humanCodes(before));
      const rulesBefore = await readCodes(study, "bales-ipa", "rules");
      const rulesByWords = new Map(rulesBefore.map((r) => [r.fingerprint, r.codes]));

      await writeFile(file, edit(LINES).join("\n") + "\n");
      const reimport = await runCli(["import", file, "--study", study]);
      expect(reimport.code).toBe(0);
      const [after] = await loadSessions(study);
      expect(after.id).toBe(before.id);
      const fingerprints = sessionFingerprints(after);

      // 0 codes on a turn whose words they were not given, for every coder.
      for (const coder of ["rules", "human:alice"]) {
        for (const r of await readCodes(study, "bales-ipa", coder)) expect(r.fingerprint).toBe(fingerprints.get(r.turn));
      }
      const human = await readCodes(study, "bales-ipa", "human:alice");
      for (const r of human) expect(r.rationale).toBe(after.turns.find((t) => t.id === r.turn)!.text);
      // 0 human codes lost: on a turn, or on the stale list with the words they were attached to.
      const stale = await readStaleCodes(study, "bales-ipa", "human:alice");
      expect(human.length + stale.length).toBe(before.turns.length);
      for (const s of stale) expect(s.attachedTo.text).toBe(s.record.rationale);
      // Only words that are gone (or changed) are stale; a moved line keeps its codes.
      const survivors = new Set(after.turns.map((t) => fingerprints.get(t.id)));
      expect(stale.filter((s) => survivors.has(s.record.fingerprint))).toEqual([]);

      if (stale.length > 0) {
        expect(reimport.stdout).toMatch(/code\(s\) stale/);
        const listed = await runCli(["sessions", study, "--stale"]);
        expect(listed.stdout).toContain(JSON.stringify(stale[0].attachedTo.text));
        expect(listed.stdout).toContain("human:alice");
      }

      // The rules coder codes only what is new, and a moved code keeps the code its words got.
      const coded = await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "rules", "--json"]);
      const [job] = JSON.parse(coded.stdout).jobs;
      const unchanged = after.turns.filter((t) => rulesByWords.has(fingerprints.get(t.id))).length;
      expect(job.alreadyCoded).toBe(unchanged);
      for (const r of await readCodes(study, "bales-ipa", "rules")) {
        if (rulesByWords.has(r.fingerprint)) expect(r.codes).toEqual(rulesByWords.get(r.fingerprint));
      }
    });
  }

  it("a session file edited by hand: its changed turn's codes are withheld from analyses and listed", async () => {
    await writeFile(file, LINES.join("\n") + "\n");
    await runCli(["import", file, "--study", study]);
    const [session] = await loadSessions(study);
    await appendCodes(study, humanCodes(session));
    const path = join(study, "sessions", `${session.id}.json`);
    await writeFile(path, (await readFile(path, "utf8")).replace("This plan is terrible.", "This plan is wonderful."));
    const listed = await runCli(["sessions", study]);
    expect(listed.stdout).toContain("stale codes");
    expect(listed.stdout).toMatch(/1 code\(s\) apply to no turn any more/);
    const stale = await runCli(["sessions", study, "--stale", "--json"]);
    const entries = JSON.parse(stale.stdout).staleCodes;
    const edited = session.turns.find((t) => t.text === "This plan is terrible.")!.id;
    expect(entries.map((e: { turn: string; where: string; reason: string }) => [e.turn, e.where, e.reason])).toEqual([[edited, "withheld", "turn-changed"]]);
    // Exports and analyses see only the codes that still describe their turn.
    const exported = await runCli(["export", study, "--what", "codes", "--format", "jsonl"]);
    const turns = exported.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).turn);
    expect(turns).toHaveLength(session.turns.length - 1);
    expect(turns).not.toContain(edited);
  });

  it("re-importing a file with a code column replaces only the codes it brought: the coder's codes from sheets stay", async () => {
    const csv = join(dir, "coded.csv");
    await writeFile(csv, "speaker,text,code\nAna,I agree with the proposal.,agrees\nBen,This plan is terrible.,disagrees\n");
    const args = ["import", csv, "--study", study, "--code-column", "code=human:alice", "--codebook", "bales-ipa"];
    expect((await runCli(args)).code).toBe(0);
    const [session] = await loadSessions(study);
    const fromSheet = {
      ...humanCodes(session)[1],
      coder: "human:alice",
      codes: ["shows-tension"],
      provenance: { via: "colloquy codes import", source: "sheet.csv", line: 3 },
    };
    await appendCodes(study, [fromSheet]);
    expect((await runCli(args)).code).toBe(0);
    // Every record stays on file (the sheet's one too); for the turn both coded, the latest counts.
    const history = await readCodeHistory(study, "bales-ipa", "human:alice");
    expect(history.filter((r) => r.provenance.via === "colloquy codes import")).toHaveLength(1);
    expect(history.filter((r) => r.provenance.via === "colloquy import")).toHaveLength(2);
  });

  it("a file whose sessions are keyed differently on re-import: the sessions it no longer makes are named", async () => {
    const csv = join(dir, "runs.csv");
    await writeFile(csv, "group,trial,speaker,text\na,1,Ann,hello\na,2,Ben,hi\n");
    expect((await runCli(["import", csv, "--study", study, "--columns", "session=group"])).code).toBe(0);
    const again = await runCli(["import", csv, "--study", study, "--columns", "session=group+trial"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/an earlier import of this file made session\(s\) \S+, which it no longer makes/);
  });

  it("two sessions with one id in one file: the file is refused, nothing collapses", async () => {
    const native = (text: string) => ({
      schemaVersion: 1,
      id: "pilot",
      metadata: {},
      participants: [{ id: "a", name: "A", kind: "human" }],
      turns: [{ id: "t1", index: 0, speaker: "a", text }],
    });
    const path = join(dir, "two.jsonl");
    await writeFile(path, [native("first"), native("second")].map((s) => JSON.stringify(s)).join("\n") + "\n");
    const result = await runCli(["import", path, "--study", study]);
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('two sessions in this file have the id "pilot"');
    expect(await loadSessions(study)).toEqual([]);
  });
});
