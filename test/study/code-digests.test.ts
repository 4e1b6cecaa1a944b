import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFile, mkdtemp, readFile, rm, stat, truncate, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { FileHasher } from "../../src/pipeline/fingerprint.js";
import { withStudyLock } from "../../src/study/lock.js";
import { writeDashboardFixture } from "../../fixtures/dashboard/generate.js";
import { codeDigests, codesHashed, keptCodesSessions, recordReads, type CodeDigests } from "../../src/study/code-digests.js";
import { sha256 } from "../../src/util/hash.js";
import { appendCodes, codesPath, readCodes, replaceCodes } from "../../src/coding/store.js";
import { currentCodes } from "../../src/study/reader.js";
import { loadSessions, saveSession } from "../../src/study/study.js";
import { codesDigest } from "../../src/study/session-memo.js";
import { recordsBySession, type CodeRecord } from "../../src/coding/records.js";
import { indexCodes } from "../../src/report/load.js";
import { codeSetFacts } from "../../src/report/shape/overview.js";
import { seenIn } from "../../src/report/shape/common.js";
import { sessionFingerprints } from "../../src/transcript/fingerprint.js";
import type { Session } from "../../src/transcript/schema.js";

/**
 * The kept digests must always equal what reading every record gives (readCodes, then the
 * currency check), whichever way they were brought up to date: by parsing only what was appended,
 * or, when that cannot be trusted, everything.
 */

const CODEBOOK = "pragmatic-style";
const CODER = "rules";
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-code-digests-"));
  await writeDashboardFixture(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function digests(): Promise<CodeDigests> {
  return codeDigests(dir, CODEBOOK, CODER, await loadSessions(dir));
}

/** The digests, having parsed what `parsed` says, and agreeing with reading every record. */
async function digestsParsing(parsed: CodeDigests["parsed"]): Promise<CodeDigests> {
  const d = await digests();
  expect(d.parsed).toBe(parsed);
  await expectTruth(d);
  return d;
}

/** The digests agree with reading every record: per session, facts, codes and scales seen, and records. */
async function expectTruth(d: CodeDigests): Promise<void> {
  const sessions = await loadSessions(dir);
  const current = currentCodes(await readCodes(dir, CODEBOOK, CODER), sessions);
  const bySession = recordsBySession(current);
  for (const s of sessions) expect(d.digest(s.id), s.id).toBe(codesDigest(bySession.get(s.id) ?? []));
  for (const [id, list] of bySession) expect(d.digest(id), id).toBe(codesDigest(list));
  const set = indexCodes(CODEBOOK, CODER, current);
  const { codebook: _c, coder: _d, ...facts } = codeSetFacts(set);
  expect(d.facts()).toEqual(facts);
  const seen = seenIn([set]);
  expect([...d.codes]).toEqual([...seen.codes]);
  expect([...d.scales]).toEqual([...seen.scales]);
  expect(await d.records(new Set(bySession.keys()))).toEqual(current);
  expect(d.sessionIds()).toEqual([...bySession.keys()]);
  const versions = new Map<string, number>();
  for (const r of current) versions.set(r.codebookVersion, (versions.get(r.codebookVersion) ?? 0) + 1);
  expect([...d.versions]).toEqual([...versions]);
}

/** Ratings of every turn of a session, with the turns' fingerprints (as the rules coder writes them). */
function ratings(session: Session, score: number): CodeRecord[] {
  const prints = sessionFingerprints(session);
  return session.turns.map((t, i) => ({
    session: session.id,
    turn: t.id,
    fingerprint: prints.get(t.id),
    codebook: CODEBOOK,
    codebookVersion: score % 2 === 0 ? "1.0.0" : "1.1.0",
    coder: CODER,
    scores: { sentiment: score, formality: 1 + (i % 7) },
    provenance: { model: `m-${session.id}` },
    createdAt: `2026-11-2${score % 10}T10:00:00.000Z`,
  }));
}

async function addSession(id: string, score: number): Promise<Session> {
  const [base] = await loadSessions(dir);
  const session = { ...base, id, turns: base.turns.map((t) => ({ ...t, text: `${t.text} (${id})` })) };
  await saveSession(dir, session);
  await appendCodes(dir, ratings(session, score));
  return session;
}

describe("codeDigests: per-session digests of a codes file, kept and brought up to date from what was appended", () => {
  it("reads every record the first time; nothing when nothing changed", async () => {
    await digestsParsing("all");
    await digestsParsing("appended");
  });

  it("an unchanged file is hashed once per process: a later look with the same stamp reuses the hash", async () => {
    const path = codesPath(dir, CODEBOOK, CODER);
    const past = new Date(Date.now() - 10_000);
    await utimes(path, past, past);
    await digestsParsing("appended");
    const before = codesHashed.files;
    await digestsParsing("appended");
    await digestsParsing("appended");
    expect(codesHashed.files).toBe(before);
    // Touched (same bytes, another stamp): hashed again, and still nothing to parse.
    await utimes(path, new Date(Date.now() - 5_000), new Date(Date.now() - 5_000));
    await digestsParsing("appended");
    expect(codesHashed.files).toBe(before + 1);
    // Written just now (another write within the same clock tick would keep its stamp): hashed at every look.
    // (A time ahead of the clock keeps it "just written" however slowly the test runs.)
    const ahead = new Date(Date.now() + 60_000);
    await utimes(path, ahead, ahead);
    const fresh = codesHashed.files;
    await digestsParsing("appended");
    await digestsParsing("appended");
    expect(codesHashed.files).toBe(fresh + 2);
  });

  it("after this process appended to the file and the fingerprints hashed it, nothing is hashed again (util/known-bytes.ts)", async () => {
    const path = codesPath(dir, CODEBOOK, CODER);
    // Settled (the test before left it "just written"): its hash is remembered when the digests are checked.
    const past = new Date(Date.now() - 10_000);
    await utimes(path, past, past);
    await digestsParsing("appended");
    // What a pipeline run does, holding the study's writer lock: the code stage appends, then the stage fingerprints hash the whole file.
    await withStudyLock(dir, "test", async () => {
      await addSession("k1", 5);
      const hasher = new FileHasher(dir);
      await hasher.folder(join(dir, "codes"));
      expect(hasher.next[relative(dir, path)]).toHaveLength(5);
      const before = codesHashed.files;
      const d = await digestsParsing("appended");
      expect(codesHashed.files).toBe(before);
      expect(await d.records(new Set(["k1"]))).toHaveLength((await loadSessions(dir)).find((s) => s.id === "k1")!.turns.length);
      // Appended to by another program: its kept bytes are hashed to be checked.
      await appendFile(path, "\n");
      await digestsParsing("appended");
      expect(codesHashed.files).toBe(before + 1);
    });
  });

  it("a new session's appended records are the only ones parsed, and its records come from them", async () => {
    const session = await addSession("n1", 6);
    const d = await digestsParsing("appended");
    expect(await d.records(new Set(["n1"]))).toEqual(ratings(session, 6));
    // A session whose records were kept (not parsed now) is read from the file (the lines naming it).
    expect((await d.records(new Set(["d1"]))).length).toBeGreaterThan(0);
    await expectTruth(await digests());
  });

  it("a turn coded again (the latest record wins over one in the bytes not parsed) makes it read everything", async () => {
    const [session] = (await loadSessions(dir)).filter((s) => s.id === "n1");
    await appendCodes(dir, ratings(session, 2).slice(0, 1));
    await digestsParsing("all");
  });

  it("a session whose words changed: its records no longer apply, and everything is read", async () => {
    const [session] = (await loadSessions(dir)).filter((s) => s.id === "n1");
    await saveSession(dir, { ...session, turns: session.turns.map((t, i) => (i === 0 ? { ...t, text: "edited" } : t)) });
    const d = await digestsParsing("all");
    expect(d.digest("n1")).not.toBe(codesDigest(ratings(session, 2)));
  });

  it("a torn last line is no record; the append that heals it parses only what it added", async () => {
    await appendFile(codesPath(dir, CODEBOOK, CODER), '{"session":"n2","turn":"t0000","scor');
    const torn = await digests();
    await expectTruth(torn);
    await addSession("n2", 3);
    await digestsParsing("appended");
  });

  it("a file edited in place (same inode, its first bytes changed) or cut shorter is read whole", async () => {
    const path = codesPath(dir, CODEBOOK, CODER);
    await digests();
    const text = await readFile(path, "utf8");
    const { ino } = await stat(path);
    await writeFile(path, text.replace('"sentiment":4', '"sentiment":5'));
    expect((await stat(path)).ino).toBe(ino);
    await digestsParsing("all");
    await writeFile(path, text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1));
    await digestsParsing("all");
    await writeFile(path, text);
  });

  it("a session whose every record was withheld (its words edited) gets its codes back when the edit is undone", async () => {
    const [session] = (await loadSessions(dir)).filter((s) => s.id === "n1");
    await digests();
    await saveSession(dir, { ...session, turns: session.turns.map((t) => ({ ...t, text: `${t.text} (edited)` })) });
    const withheld = await digests();
    await expectTruth(withheld);
    expect(withheld.digest("n1")).toBe(codesDigest([]));
    expect(withheld.sessionIds()).not.toContain("n1");
    await saveSession(dir, session);
    const back = await digestsParsing("all");
    expect(back.digest("n1")).not.toBe(codesDigest([]));
  });

  it("a turn coded again with a record that does not apply (other words) replaces the kept one: everything is read", async () => {
    const [session] = (await loadSessions(dir)).filter((s) => s.id === "n1");
    await digests();
    const [first] = ratings(session, 4);
    await appendCodes(dir, [{ ...first, fingerprint: "0000000000000000" }]);
    await digestsParsing("all");
  });

  it("a last line without its newline is read, but not kept: when it is cut off again the digests say so", async () => {
    const path = codesPath(dir, CODEBOOK, CODER);
    const before = await readFile(path, "utf8");
    const [session] = (await loadSessions(dir)).filter((s) => s.id === "n1");
    await digests();
    // A run written by hand whose only record has no "\n" yet.
    const header = `${before.split("\n").find((l) => l.startsWith('{"run"'))}\n`;
    await appendFile(path, `${header}${JSON.stringify({ session: "n3", turn: session.turns[0].id, scores: { sentiment: 2 } })}`);
    const withTail = await digests();
    await expectTruth(withTail);
    expect(withTail.digest("n3")).not.toBe(codesDigest([]));
    // The record cut off in place (same inode; the header line stays).
    await truncate(path, Buffer.byteLength(before + header));
    const without = await digests();
    await expectTruth(without);
    expect(without.digest("n3")).toBe(codesDigest([]));
    await writeFile(path, before);
  });

  it("records of a session the study does not have are kept: they do not make every run read the whole file", async () => {
    const [session] = (await loadSessions(dir)).filter((s) => s.id === "n1");
    await appendCodes(dir, ratings({ ...session, id: "gone" }, 5));
    const first = await digests();
    await expectTruth(first);
    expect(first.sessionIds()).toContain("gone");
    await addSession("n4", 6);
    const d = await digestsParsing("appended");
    // The orphan's and the new session's records without reading the file again: move it away meanwhile.
    const path = codesPath(dir, CODEBOOK, CODER);
    const text = await readFile(path, "utf8");
    await rm(path);
    const records = await d.records(new Set(["gone", "n4"]));
    await writeFile(path, text);
    expect(records.map((r) => r.session)).toEqual(
      [
        ...ratings({ ...session, id: "gone" }, 5),
        ...ratings(
          (await loadSessions(dir)).find((s) => s.id === "n4")!,
          6,
        ),
      ].map((r) => r.session),
    );
  });

  it("what follows a run left open is never read on its own: a wrong end line there fails as reading the whole file does", async () => {
    const path = codesPath(dir, CODEBOOK, CODER);
    const before = await readFile(path, "utf8");
    const [session] = (await loadSessions(dir)).filter((s) => s.id === "n1");
    const header = before.split("\n").find((l) => l.startsWith('{"run"'));
    const line = (turn: number) => JSON.stringify({ session: "n5", turn: session.turns[turn].id, scores: { sentiment: 3 } });
    // A run cut short (no end line): its records count, and the run is still open at the end.
    await appendFile(path, `${header}\n${line(0)}\n${line(1)}\n`);
    const open = await digests();
    await expectTruth(open);
    // An end line counting other lines than the run has: reading it whole names the problem; so must the digests.
    await appendFile(path, '\n{"end":5}\n');
    await expect(readCodes(dir, CODEBOOK, CODER)).rejects.toThrow(/ends here after 5 code line/);
    await expect(digests()).rejects.toThrow(/ends here after 5 code line/);
    await writeFile(path, before);
  });

  it("an end line appended after a closed run reads on its own as in the whole file", async () => {
    const path = codesPath(dir, CODEBOOK, CODER);
    const before = await readFile(path, "utf8");
    await digests();
    await appendFile(path, '{"end":"cut"}\n');
    await digestsParsing("appended");
    await writeFile(path, before);
  });

  it("records of several sessions the study lacks come grouped, in the order of their first record, whatever order they are asked in", async () => {
    const [session] = (await loadSessions(dir)).filter((s) => s.id === "n1");
    await appendCodes(dir, [...ratings({ ...session, id: "zz-gone" }, 3), ...ratings({ ...session, id: "aa-gone" }, 3)]);
    await digests();
    await addSession("n6", 2);
    const d = await digestsParsing("appended");
    const sessions = (await d.records(new Set(["aa-gone", "n6", "zz-gone"]))).map((r) => r.session);
    expect([...new Set(sessions)]).toEqual(["zz-gone", "aa-gone", "n6"]);
  });

  it("sessions come in the order of their first current record, a withheld first record not counting", async () => {
    const [base] = (await loadSessions(dir)).filter((s) => s.id === "n1");
    const [p, q] = [
      { ...base, id: "pp" },
      { ...base, id: "qq" },
    ];
    for (const s of [p, q]) await saveSession(dir, s);
    // pp's first turn, then qq, then pp's other turns; then pp's first turn edited: its first current record comes after qq's.
    await appendCodes(dir, ratings(p, 4).slice(0, 1));
    await appendCodes(dir, ratings(q, 4));
    await appendCodes(dir, ratings(p, 4).slice(1));
    await digests();
    await saveSession(dir, { ...p, turns: p.turns.map((t, i) => (i === 0 ? { ...t, text: `${t.text}, said again` } : t)) });
    const d = await digests();
    await expectTruth(d);
    expect(d.sessionIds().indexOf("qq")).toBeLessThan(d.sessionIds().indexOf("pp"));
  });

  it("records of sessions digested on an earlier run come from the lines that name them (however spaced), as reading every record gives them", async () => {
    const n7 = await addSession("n7", 4);
    // Another session's records as a hand-written file may hold them: full records, spaced.
    const [base] = await loadSessions(dir);
    const n8 = { ...base, id: "n8", turns: base.turns.map((t) => ({ ...t, text: `${t.text} (n8)` })) };
    await saveSession(dir, n8);
    const spaced = ratings(n8, 3).map((r) => JSON.stringify(r, null, 1).replaceAll("\n", ""));
    await appendFile(codesPath(dir, CODEBOOK, CODER), spaced.join("\n") + "\n");
    await digestsParsing("appended");
    // Nothing appended since: every record asked for is in bytes digested on the run before.
    const d = await digestsParsing("appended");
    const current = currentCodes(await readCodes(dir, CODEBOOK, CODER), await loadSessions(dir));
    const before = { ...recordReads };
    for (const ids of [["n7"], ["n8"], ["d1", "n7", "n8"]]) {
      expect(await d.records(new Set(ids)), ids.join()).toEqual(current.filter((r) => ids.includes(r.session)));
    }
    expect(recordReads).toEqual({ lines: before.lines + 3, whole: before.whole });
    expect((await d.records(new Set(["n7"]))).map((r) => r.turn)).toEqual(n7.turns.map((t) => t.id));
    // A byte changed in what was digested: the whole file is read.
    const path = codesPath(dir, CODEBOOK, CODER);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace('"model":"m-n7"', '"model":"m-n_"'));
    expect((await d.records(new Set(["n7"]))).length).toBe(n7.turns.length);
    expect(recordReads.whole).toBe(before.whole + 1);
    await writeFile(path, text);
  });

  it("a line read on its own gets the header of its run however the header is spaced; a header written another way makes it read everything", async () => {
    const path = codesPath(dir, CODEBOOK, CODER);
    const original = await readFile(path, "utf8");
    const header = JSON.parse(original.split("\n").find((l) => l.startsWith('{"run"'))!) as { run: Record<string, unknown> };
    const line = (session: Session, turn: number) =>
      JSON.stringify({
        session: session.id,
        turn: session.turns[turn].id,
        fingerprint: sessionFingerprints(session).get(session.turns[turn].id),
        scores: { sentiment: 5 },
      });
    const [base] = await loadSessions(dir);
    const made = async (id: string) => {
      const session = { ...base, id, turns: base.turns.map((t) => ({ ...t, text: `${t.text} (${id})` })) };
      await saveSession(dir, session);
      return session;
    };
    const [p1, p2, p3] = [await made("p1"), await made("p2"), await made("p3")];
    const run = (version: string, model: string) => ({ run: { ...header.run, codebookVersion: version, provenance: { model } } });
    await appendFile(
      path,
      [
        // A run cut short (no end line), then one written by hand with spaces, its end line too ...
        JSON.stringify(run("1.0.0", "A")),
        line(p1, 0),
        JSON.stringify(run("9.9.9", "B"), null, 1).replaceAll("\n", ""),
        line(p2, 0),
        line(p2, 1),
        '{ "end" : 2 }',
        // ... and a header whose "run" is not its first key: only parsing the line tells it is one.
        JSON.stringify({ note: "by hand", ...run("7.7.7", "C") }),
        line(p3, 0),
        '{"end":1}',
      ].join("\n") + "\n",
    );
    await digests();
    const d = await digestsParsing("appended");
    const current = currentCodes(await readCodes(dir, CODEBOOK, CODER), await loadSessions(dir));
    const before = { ...recordReads };
    const p2Records = await d.records(new Set(["p2"]));
    expect(p2Records).toEqual(current.filter((r) => r.session === "p2"));
    expect(p2Records.map((r) => [r.codebookVersion, r.provenance])).toEqual([
      ["9.9.9", { model: "B" }],
      ["9.9.9", { model: "B" }],
    ]);
    expect(recordReads).toEqual({ lines: before.lines + 1, whole: before.whole });
    const p3Records = await d.records(new Set(["p3"]));
    expect(p3Records).toEqual(current.filter((r) => r.session === "p3"));
    expect(p3Records[0].codebookVersion).toBe("7.7.7");
    expect(recordReads.whole).toBe(before.whole + 1);
    // A header whose key is spelled with an escape ({"\u0072un": …}) after a run cut short: read whole too.
    const p4 = await made("p4");
    await appendFile(
      path,
      [JSON.stringify(run("1.0.0", "A")), line(p1, 1), JSON.stringify(run("5.5.5", "D")).replace('"run"', '"\\u0072un"'), line(p4, 0), '{"end":1}'].join("\n") +
        "\n",
    );
    await digests();
    const kept = await digestsParsing("appended");
    const wholeReads = recordReads.whole;
    const escaped = await kept.records(new Set(["p4"]));
    expect(escaped.map((r) => [r.codebookVersion, r.provenance])).toEqual([["5.5.5", { model: "D" }]]);
    expect(recordReads.whole).toBe(wholeReads + 1);
    await writeFile(path, original);
  });

  it("a rewritten file (another inode, other first bytes) is read whole", async () => {
    const records = await readCodes(dir, CODEBOOK, CODER);
    await replaceCodes(
      dir,
      CODEBOOK,
      CODER,
      records.filter((r) => r.session !== "n2"),
    );
    const d = await digestsParsing("all");
    expect(d.digest("n2")).toBe(codesDigest([]));
  });

  it("name every session a record names (orphans included) while they describe the file as it is, and nothing for a file they do not", async () => {
    const path = codesPath(dir, CODEBOOK, CODER);
    await digests();
    const info = await stat(path);
    const file = { ino: info.ino, size: info.size, sha256: sha256(await readFile(path)) };
    const named = [...new Set((await readCodes(dir, CODEBOOK, CODER)).map((r) => r.session))].sort();
    expect(named).toContain("gone");
    expect(await keptCodesSessions(dir, CODEBOOK, CODER, file)).toEqual(named);
    // Another size, other bytes or another inode: the kept digests say nothing of that file.
    expect(await keptCodesSessions(dir, CODEBOOK, CODER, { ...file, size: file.size + 1 })).toBeUndefined();
    expect(await keptCodesSessions(dir, CODEBOOK, CODER, { ...file, sha256: sha256("other") })).toBeUndefined();
    expect(await keptCodesSessions(dir, CODEBOOK, CODER, { ...file, ino: file.ino + 1 })).toBeUndefined();
    expect(await keptCodesSessions(dir, CODEBOOK, "human:nobody", file)).toBeUndefined();
  });

  it("deleted digests are made again from every record; a coder without a file has none", async () => {
    await rm(join(dir, ".cache"), { recursive: true, force: true });
    await digestsParsing("all");
    const none = await codeDigests(dir, CODEBOOK, "human:nobody", await loadSessions(dir));
    expect(none.facts()).toEqual({ turns: 0, models: new Set() });
    expect(none.digest("d1")).toBe(codesDigest([]));
  });
});
