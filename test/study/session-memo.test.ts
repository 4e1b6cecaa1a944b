import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { deserialize, serialize } from "node:v8";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStudy, runConcepts, runImport, runTopics, silentEffects, type StageEffects } from "../../src/index.js";
import { codesDigest, memoPath, openSessionMemo } from "../../src/study/session-memo.js";
import type { Session } from "../../src/transcript/schema.js";
import { learntWords, type WordInfo } from "../../src/analysis/concepts/tagger.js";
import { loadWordClasses } from "../../src/analysis/concepts/word-store.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

/** A copy of the demo study with its inbox imported. */
async function demoStudy(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-memo-")), "demo");
  await cp(demo, dir, { recursive: true });
  const study = await openStudy(dir);
  await runImport(study, { paths: [join(dir, "inbox")], pathPattern: study.config.import.pathPattern }, silentEffects);
  return dir;
}

/** Effects that keep the log lines. */
function logging(): StageEffects & { lines: string[] } {
  const lines: string[] = [];
  return { ...silentEffects, lines, log: (line: string) => lines.push(line) };
}

/** A report without its creation time, for comparing two runs. */
const timeless = <T extends { provenance: object }>(report: T) =>
  JSON.parse(JSON.stringify({ ...report, provenance: { ...report.provenance, createdAt: "" } }));

/** The JSON and CSV files of a run, without the JSON's creation time. */
async function timelessFiles(files: { json: string; csv: string }): Promise<string[]> {
  const json = (await readFile(files.json, "utf8")).replace(/"createdAt": "[^"]*"/, '"createdAt": ""');
  return [json, await readFile(files.csv, "utf8")];
}

/** Change the text of one turn of one session file (as a re-import of an edited transcript would). */
async function editOneTurn(dir: string): Promise<string> {
  const file = (await readdir(join(dir, "sessions"))).sort()[0];
  const path = join(dir, "sessions", file);
  const session = JSON.parse(await readFile(path, "utf8"));
  const turn = session.turns.find((t: { text: string }) => t.text.length > 10);
  turn.text = "The budget spreadsheet and the hiring plan need a new owner before the deadline.";
  await writeFile(path, JSON.stringify(session, null, 2));
  return session.id;
}

describe("per-session memo (adding or editing a session recomputes that session only)", () => {
  it("concepts: a re-run reuses every session, an edited session is analysed again, and the report equals a fresh one", async () => {
    const dir = await demoStudy();
    const first = await runConcepts(await openStudy(dir), {}, silentEffects);
    const n = first.report.sessions.length;
    expect(n).toBeGreaterThan(1);

    const again = logging();
    const second = await runConcepts(await openStudy(dir), {}, again);
    expect(again.lines.join("\n")).toContain(`(0 analysed, ${n} reused from .cache/memo)`);
    expect(timeless(second.report)).toEqual(timeless(first.report));

    const edited = await editOneTurn(dir);
    const third = logging();
    const incremental = await runConcepts(await openStudy(dir), {}, third);
    expect(third.lines.join("\n")).toContain(`(1 analysed, ${n - 1} reused from .cache/memo)`);
    // The same numbers as a run that starts from nothing.
    await writeFile(memoPath(dir, "concepts"), "");
    const written = await timelessFiles(incremental.files);
    // From nothing: no memo and no word classes of earlier runs either, in the store or in this process.
    await rm(join(dir, ".cache", "word-classes.v8"));
    learntWords().classes.clear();
    learntWords().singulars.clear();
    const fresh = await runConcepts(await openStudy(dir), {}, silentEffects);
    expect(timeless(incremental.report)).toEqual(timeless(fresh.report));
    // The files the memo's texts were spliced into: the same bytes as a run from scratch.
    expect(written).toEqual(await timelessFiles(fresh.files));
    expect(incremental.report.sessions.find((s) => s.session === edited)!.turns.some((t) => t.concepts.includes("budget spreadsheet"))).toBe(true);
  });

  it("concepts: other settings (speakers, lexicon) never reuse results computed under different ones", async () => {
    const dir = await demoStudy();
    await runConcepts(await openStudy(dir), { speakers: "human" }, silentEffects);
    const other = logging();
    await runConcepts(await openStudy(dir), { speakers: "all" }, other);
    expect(other.lines.join("\n")).not.toContain("reused");
    const lexicon = join(dir, "lexicon.txt");
    await writeFile(lexicon, "[terms]\nhiring plan\n");
    const withLexicon = logging();
    await runConcepts(await openStudy(dir), { speakers: "all", lexicon }, withLexicon);
    expect(withLexicon.lines.join("\n")).not.toContain("reused");
  });

  it("word classes: kept in .cache/word-classes.v8 for later runs, and used only under the version that wrote them", async () => {
    const dir = await demoStudy();
    await runConcepts(await openStudy(dir), {}, silentEffects);
    const path = join(dir, ".cache", "word-classes.v8");
    const stored = deserialize(await readFile(path)) as { version: string; maps: [[string, WordInfo][], [string, string][]] };
    expect(new Map(stored.maps[0]).get("garden")?.cls).toBe("nounVerb");
    // A word only the store knows is learnt from it; from a store of another version, nothing is.
    const extra = (word: string, version: string) =>
      writeFile(path, serialize({ version, maps: [[...stored.maps[0], [word, { cls: "noun", plural: false }]], stored.maps[1]] }));
    await extra("zzforeignword", "another compromise");
    await loadWordClasses(dir);
    expect(learntWords().classes.has("zzforeignword")).toBe(false);
    await extra("zzstoredword", stored.version);
    await loadWordClasses(dir);
    expect(learntWords().classes.get("zzstoredword")).toEqual({ cls: "noun", plural: false });
    // Not left for other tests in this process.
    learntWords().classes.delete("zzstoredword");
    // A torn file is ignored.
    await writeFile(path, "torn");
    await expect(loadWordClasses(dir)).resolves.toBeUndefined();
  });

  it("topics (rules): an edited session gets a new tree, the others are reused, the report equals a fresh one", async () => {
    const dir = await demoStudy();
    await runTopics(await openStudy(dir), { coder: "rules" }, silentEffects);
    await editOneTurn(dir);
    const log = logging();
    const incremental = await runTopics(await openStudy(dir), { coder: "rules" }, log);
    expect(log.lines.join("\n")).toMatch(/\(1 analysed, \d+ reused from \.cache\/memo\)/);
    // A torn memo file is a cache miss, not an error.
    await writeFile(memoPath(dir, "topics-rules"), '{"settings": "x", "entr');
    const fresh = await runTopics(await openStudy(dir), { coder: "rules" }, silentEffects);
    expect(timeless(incremental.report)).toEqual(timeless(fresh.report));
  });

  it("keeps NaN, Infinity and undefined exactly, and a session's other inputs (its codes) are part of the key", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-memo-values-"));
    const session = { id: "s1", turns: [], participants: [], metadata: {} } as unknown as Session;
    const value = { mean: Number.NaN, ratio: Number.POSITIVE_INFINITY, missing: undefined, list: [1, Number.NaN] };
    const first = await openSessionMemo<typeof value>(dir, "probe", { a: 1 });
    first.get("s1", session, () => value, codesDigest([]));
    await first.save();

    const second = await openSessionMemo<typeof value>(dir, "probe", { a: 1 });
    const reused = second.get("s1", session, () => ({ mean: 0, ratio: 0, missing: undefined, list: [] }), codesDigest([]));
    expect(second.stats).toEqual({ reused: 1, computed: 0 });
    expect(reused.mean).toBeNaN();
    expect(reused.ratio).toBe(Number.POSITIVE_INFINITY);
    expect(Object.hasOwn(reused, "missing") && reused.missing === undefined).toBe(true);
    expect(reused.list[1]).toBeNaN();
    // Other codes for the same session content: computed again.
    expect(second.has("s1", session, "other-codes")).toBe(false);
    // Other settings: nothing reused.
    expect((await openSessionMemo(dir, "probe", { a: 2 })).has("s1", session, codesDigest([]))).toBe(false);
  });

  it("adding a session appends its entry; a torn tail, a dropped session or many replaced entries rewrite the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-memo-log-"));
    const session = (id: string, text = "hello") => ({ id, turns: [{ id: "t1", speaker: "a", text }], participants: [], metadata: {} }) as unknown as Session;
    const run = async (sessions: Session[]) => {
      const memo = await openSessionMemo<string>(dir, ["probe", "a/b"], {});
      const values = sessions.map((s) => memo.get(s.id, s, () => `value of ${s.id} ${s.turns[0].text}`));
      await memo.save();
      return { values, stats: { ...memo.stats } };
    };
    const path = memoPath(dir, ["probe", "a/b"]);
    expect(path.endsWith(join("memo", "probe", "a%2Fb.v8"))).toBe(true);
    const three = ["s1", "s2", "s3"].map((id) => session(id));
    await run(three);
    const before = await readFile(path);
    const inode = (await stat(path)).ino;

    // One more session: the same file (not replaced by a rewrite), its old bytes and one appended frame.
    const four = [...three, session("s4")];
    expect((await run(four)).stats).toEqual({ reused: 3, computed: 1 });
    const after = await readFile(path);
    expect(after.length).toBeGreaterThan(before.length);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect((await stat(path)).ino).toBe(inode);
    expect((await run(four)).stats).toEqual({ reused: 4, computed: 0 });

    // A crash while appending leaves a torn frame: the entries before it stand, the rest is computed, the file rewritten whole.
    await writeFile(path, after.subarray(0, after.length - 3));
    expect((await run(four)).stats).toEqual({ reused: 3, computed: 1 });
    expect((await run(four)).stats).toEqual({ reused: 4, computed: 0 });

    // A session leaving the study: rewritten without it.
    const full = (await readFile(path)).length;
    await run(three);
    expect((await readFile(path)).length).toBeLessThan(full);
    expect((await run(three)).stats).toEqual({ reused: 3, computed: 0 });

    // A session edited again and again: replaced frames never pile up past the live ones.
    for (let i = 0; i < 12; i++) await run([...three.slice(0, 2), session("s3", `edit ${i}`)]);
    const edited = await run([...three.slice(0, 2), session("s3", "edit 11")]);
    expect(edited.stats).toEqual({ reused: 3, computed: 0 });
    expect(edited.values[2]).toBe("value of s3 edit 11");
    expect((await readFile(path)).length).toBeLessThan(full * 2);
  });

  it("memo names keep their ids apart: codebook a-b with coder c and codebook a with coder b-c are two files", () => {
    expect(memoPath("/s", ["compare", "a-b", "c"])).not.toBe(memoPath("/s", ["compare", "a", "b-c"]));
    expect(memoPath("/s", ["agree", "stats-x"])).not.toBe(memoPath("/s", ["agree-stats", "x"]));
  });

  it("two runs under other settings sharing a memo file, a file deleted during a run, a second save: never a wrong reuse, never a broken file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-memo-race-"));
    const session = (id: string) => ({ id, turns: [], participants: [], metadata: {} }) as unknown as Session;
    const [a, b] = [session("a"), session("b")];
    const seed = await openSessionMemo<string>(dir, "probe", { speakers: "human" });
    seed.get("a", a, () => "human:a");
    await seed.save();

    // Run 1 (human) opens; run 2 (all) rewrites the file under its settings; run 1 then appends.
    const human = await openSessionMemo<string>(dir, "probe", { speakers: "human" });
    const all = await openSessionMemo<string>(dir, "probe", { speakers: "all" });
    all.get("a", a, () => "all:a");
    await all.save();
    human.get("a", a, () => "human:a");
    human.get("b", b, () => "human:b");
    await human.save();
    const later = await openSessionMemo<string>(dir, "probe", { speakers: "all" });
    expect(later.find("b", b)).toBeUndefined();
    expect(later.get("a", a, () => "all:a (computed)")).toBe("all:a");

    // The memo file deleted while a run holds it open: the save writes it whole, readable.
    const run = await openSessionMemo<string>(dir, "probe", { speakers: "all" });
    run.get("a", a, () => "all:a");
    run.get("b", b, () => "all:b");
    await rm(join(dir, ".cache"), { recursive: true });
    await run.save();
    const reopened = await openSessionMemo<string>(dir, "probe", { speakers: "all" });
    expect([reopened.find("a", a), reopened.find("b", b)]).toEqual(["all:a", "all:b"]);

    // A second save of the same run writes nothing more.
    const size = (await stat(memoPath(dir, "probe"))).size;
    await run.save();
    expect((await stat(memoPath(dir, "probe"))).size).toBe(size);
  });
});
