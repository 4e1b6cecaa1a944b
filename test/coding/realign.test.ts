import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkCodeCurrency } from "../../src/coding/currency.js";
import { alignTurns, realignCodes } from "../../src/coding/realign.js";
import type { CodeRecord } from "../../src/coding/records.js";
import { studyStaleCodes, readStaleCodes } from "../../src/coding/stale.js";
import { appendCodes, readCodes } from "../../src/coding/store.js";
import { initStudy } from "../../src/study/study.js";
import { turnFingerprint, sessionFingerprints } from "../../src/transcript/fingerprint.js";
import type { Session } from "../../src/transcript/schema.js";

/** A session from [speaker, text] pairs; ids are positions, as every importer makes them. */
function session(lines: readonly (readonly [string, string])[], id = "s1"): Session {
  return {
    schemaVersion: 1,
    id,
    metadata: {},
    participants: [...new Set(lines.map(([p]) => p))].map((p) => ({ id: p, name: p, kind: "human" as const })),
    turns: lines.map(([speaker, text], index) => ({ id: `t${index + 1}`, index, speaker, text, type: "message" as const })),
  };
}

/** One code per turn, naming the words it was given (so a misplaced code is visible). */
function codesFor(s: Session, coder: string, withFingerprint = true): CodeRecord[] {
  return s.turns.map((t) => ({
    session: s.id,
    turn: t.id,
    ...(withFingerprint ? { fingerprint: turnFingerprint(t) } : {}),
    codebook: "cb",
    codebookVersion: "1",
    coder,
    codes: [`said:${t.text}`],
    provenance: {},
    createdAt: "2026-01-01T00:00:00.000Z",
  }));
}

const textOf = (s: Session, turn: string) => s.turns.find((t) => t.id === turn)?.text;

describe("turn fingerprints", () => {
  it("depend on speaker and words, and on nothing but line endings beyond that", () => {
    const a = { speaker: "ana", text: "This plan is terrible\r\nreally" };
    expect(turnFingerprint(a)).toBe(turnFingerprint({ speaker: "ana", text: "This plan is terrible\nreally" }));
    expect(turnFingerprint(a)).toBe(turnFingerprint({ speaker: "ana", text: "This plan is terrible\rreally" }));
    expect(turnFingerprint(a)).not.toBe(turnFingerprint({ speaker: "ben", text: a.text }));
    expect(turnFingerprint(a)).not.toBe(turnFingerprint({ speaker: "ana", text: "This plan is terrible\r\nreally " }));
    expect(turnFingerprint(a)).not.toBe(turnFingerprint({ speaker: "ana", text: "this plan is terrible\r\nreally" }));
  });
});

describe("alignTurns", () => {
  const before = session([
    ["ana", "Hello"],
    ["ben", "This plan is terrible"],
    ["ana", "Any suggestions?"],
  ]);

  it("a line added at the top shifts every code by one", () => {
    const after = session([
      ["cal", "(joined)"],
      ["ana", "Hello"],
      ["ben", "This plan is terrible"],
      ["ana", "Any suggestions?"],
    ]);
    expect(Object.fromEntries(alignTurns(before, after))).toEqual({ t1: { to: "t2" }, t2: { to: "t3" }, t3: { to: "t4" } });
  });

  it("a removed line is stale as removed, an edited one as changed", () => {
    const removed = session([
      ["ana", "Hello"],
      ["ana", "Any suggestions?"],
    ]);
    expect(Object.fromEntries(alignTurns(before, removed))).toEqual({ t1: { to: "t1" }, t2: { stale: "turn-removed" }, t3: { to: "t2" } });
    const edited = session([
      ["ana", "Hello"],
      ["ben", "This plan is great"],
      ["ana", "Any suggestions?"],
    ]);
    expect(Object.fromEntries(alignTurns(before, edited))).toEqual({ t1: { to: "t1" }, t2: { stale: "turn-changed" }, t3: { to: "t3" } });
  });
});

describe("realignCodes on a study", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-realign-"));
    await initStudy(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("the issue's case: after a line is added at the top, 'This plan is terrible' keeps its own code", async () => {
    const before = session([
      ["ana", "Any suggestions?"],
      ["ben", "This plan is terrible"],
    ]);
    const after = session([
      ["cal", "Let's start."],
      ["ana", "Any suggestions?"],
      ["ben", "This plan is terrible"],
    ]);
    await appendCodes(dir, [...codesFor(before, "rules"), ...codesFor(before, "human:alice", false)]);
    const summary = await realignCodes(dir, [{ before, after }], "test");
    expect(summary).toMatchObject({ moved: 4, stale: 0 });
    for (const coder of ["rules", "human:alice"]) {
      const records = await readCodes(dir, "cb", coder);
      expect(records.map((r) => [textOf(after, r.turn), r.codes![0]])).toEqual([
        ["Any suggestions?", "said:Any suggestions?"],
        ["This plan is terrible", "said:This plan is terrible"],
      ]);
      // Older records without a fingerprint get the one of the words they were given.
      expect(records.every((r) => r.fingerprint === sessionFingerprints(after).get(r.turn))).toBe(true);
    }
  });

  it("human codes on an edited or removed turn go to the stale list with their words, never deleted", async () => {
    const before = session([
      ["ana", "Hello"],
      ["ben", "This plan is terrible"],
      ["ana", "Any suggestions?"],
      ["ben", "No."],
    ]);
    const after = session([
      ["ana", "Hello"],
      ["ben", "This plan is fine"],
      ["ana", "Any suggestions?"],
    ]);
    await appendCodes(dir, codesFor(before, "human:alice"));
    const summary = await realignCodes(dir, [{ before, after }], "colloquy import edited.txt");
    expect(summary).toMatchObject({ moved: 0, stale: 2, staleHuman: 2 });
    expect((await readCodes(dir, "cb", "human:alice")).map((r) => r.turn)).toEqual(["t1", "t3"]);
    const stale = await readStaleCodes(dir, "cb", "human:alice");
    expect(stale.map((s) => [s.reason, s.attachedTo.text, s.record.codes![0], s.via])).toEqual([
      ["turn-changed", "This plan is terrible", "said:This plan is terrible", "colloquy import edited.txt"],
      ["turn-removed", "No.", "said:No.", "colloquy import edited.txt"],
    ]);
    expect((await studyStaleCodes(dir, [after])).map((s) => [s.turn, s.where])).toEqual([
      ["t2", "stale list"],
      ["t4", "stale list"],
    ]);
  });

  it("running it twice (an import interrupted after the codes moved) moves nothing twice", async () => {
    const before = session([
      ["ana", "a"],
      ["ben", "b"],
      ["ana", "c"],
    ]);
    const after = session([
      ["x", "new"],
      ["ana", "a"],
      ["ben", "b"],
      ["ana", "c"],
    ]);
    await appendCodes(dir, codesFor(before, "rules"));
    await realignCodes(dir, [{ before, after }], "first");
    const once = await readFile(join(dir, "codes/cb/rules.jsonl"), "utf8");
    // The session file still holds `before` (the crash came before it was saved): run again.
    expect(await realignCodes(dir, [{ before, after }], "second")).toMatchObject({ moved: 0, stale: 0 });
    expect(await readFile(join(dir, "codes/cb/rules.jsonl"), "utf8")).toBe(once);
  });

  it("an import run again after it moved the codes but before the session was saved moves nothing twice, even between repeated lines", async () => {
    // Two identical "Yes." turns: after the first run, the code of the first "Yes." (now t3) also
    // matches the old session's t3 (the second "Yes."); it must not move again.
    const before = session([
      ["ben", "Shall we ship?"],
      ["ana", "Yes."],
      ["ana", "Yes."],
      ["ben", "ok"],
    ]);
    const after = session([
      ["cal", "(recording started)"],
      ["ben", "Shall we ship?"],
      ["ana", "Yes."],
      ["ana", "Yes."],
      ["ben", "ok"],
    ]);
    await appendCodes(
      dir,
      before.turns.map((t, i) => ({ ...codesFor(before, "human:alice")[i], codes: [`was-${t.id}`] })),
    );
    await realignCodes(dir, [{ before, after }], "first");
    await realignCodes(dir, [{ before, after }], "again");
    const placed = Object.fromEntries((await readCodes(dir, "cb", "human:alice")).map((r) => [r.turn, r.codes![0]]));
    expect(placed).toEqual({ t2: "was-t1", t3: "was-t2", t4: "was-t3", t5: "was-t4" });
  });

  it("readers withhold a code whose turn changed under it, even without a re-import", () => {
    const before = session([
      ["ana", "Hello"],
      ["ben", "This plan is terrible"],
    ]);
    const edited = session([
      ["ana", "Hello"],
      ["ben", "Any suggestions?"],
    ]);
    const { current, withheld } = checkCodeCurrency([...codesFor(before, "rules"), ...codesFor(before, "legacy", false)], [edited]);
    expect(current.map((r) => `${r.coder}:${r.turn}`)).toEqual(["rules:t1", "legacy:t1", "legacy:t2"]);
    expect(withheld.map((w) => [w.record.turn, w.reason])).toEqual([["t2", "turn-changed"]]);
    const shorter = session([["ana", "Hello"]]);
    expect(checkCodeCurrency(codesFor(before, "rules"), [shorter]).withheld.map((w) => [w.record.turn, w.reason])).toEqual([["t2", "turn-removed"]]);
  });

  it("property: after any edit, every code sits on a turn with the words it was given, and none is lost", async () => {
    // Few distinct words, so repeated lines ("ok", "yes") make the alignment ambiguous.
    const line = fc.tuple(fc.constantFrom("ana", "ben"), fc.constantFrom("ok", "yes", "no", "the plan", "why?"));
    const edit = fc.oneof(
      fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), line }),
      fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("change" as const), at: fc.nat(), line }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 12 }), fc.array(edit, { maxLength: 5 }), async (lines, edits) => {
        const id = `s${run++}`;
        const before = session(lines, id);
        const edited = lines.map((l) => [...l] as [string, string]);
        for (const e of edits) {
          const at = e.at % (edited.length + 1);
          if (e.kind === "insert") edited.splice(at, 0, [...e.line]);
          else if (edited.length > 0 && e.kind === "delete") edited.splice(at % edited.length, 1);
          else if (edited.length > 0 && e.kind === "change") edited[at % edited.length] = [...e.line];
        }
        const after = session(edited, id);
        const original = codesFor(before, "human:p");
        await appendCodes(dir, original);
        await realignCodes(dir, [{ before, after }], "property");
        const kept = (await readCodes(dir, "cb", "human:p")).filter((r) => r.session === id);
        const stale = (await readStaleCodes(dir, "cb", "human:p")).filter((s) => s.record.session === id);
        // Nothing lost: every original record is either on a turn or on the stale list.
        expect(kept.length + stale.length).toBe(original.length);
        // Never on words it was not given.
        for (const r of kept) expect(`said:${textOf(after, r.turn)}`).toBe(r.codes![0]);
        expect(checkCodeCurrency(kept, [after]).withheld).toEqual([]);
        // Pure insertions make nothing stale.
        if (edits.every((e) => e.kind === "insert")) expect(stale).toEqual([]);
      }),
      { numRuns: 150, seed: 12 },
    );
  });
});
