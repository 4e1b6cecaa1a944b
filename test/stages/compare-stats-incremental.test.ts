import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStudy, type StudyContext } from "../../src/stages/context.js";
import { appendCodes, readCodes } from "../../src/coding/store.js";
import type { CodeDigests } from "../../src/study/code-digests.js";
import { memoPath } from "../../src/study/session-memo.js";
import { runCompare } from "../../src/stages/compare.js";
import { runStats } from "../../src/stages/stats.js";
import { memoryReporter } from "../../src/util/reporter.js";
import { loadCodedStudy } from "../../src/analysis/compare/load.js";
import { buildStats } from "../../src/analysis/stats/report.js";
import { writeStatsReport } from "../../src/analysis/stats/output.js";
import { artifacts } from "../../src/study/artifacts.js";

/**
 * Issue 11: compare and stats keep each session's join of turns and codes, and its metrics, in
 * .cache/memo and recombine the study-level results from them. Whatever was reused, the files
 * they write must be byte for byte those of a run from scratch (creation times aside).
 */

const demo = join(import.meta.dirname, "../../fixtures/demo-study");
const CODER = "human:coder-a";
const codesFile = (dir: string) => join(dir, "codes", "bales-ipa", `${encodeURIComponent(CODER)}.jsonl`);

async function demoCopy(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-compare-stats-")), "demo");
  await cp(demo, dir, { recursive: true });
  return dir;
}

/** Run compare and stats on the whole study; their files, creation times and the study's path masked. */
async function run(dir: string, through: (context: StudyContext) => StudyContext = (c) => c): Promise<{ files: Record<string, string>; lines: string[] }> {
  const context = through(await openStudy(dir));
  const effects = memoryReporter();
  await runCompare(context, { codebook: "bales-ipa", coder: CODER }, effects);
  await runStats(context, { codebook: "bales-ipa", coder: CODER }, effects);
  const files = await analysisFiles(dir, dir, /^(compare-|stats)/);
  // The stage writes stats from the parts it keeps per session: the bytes of buildStats' report of the study.
  expect(await analysisFiles(await statsAtOnce(dir), dir, /^stats/)).toEqual(
    Object.fromEntries(Object.entries(files).filter(([name]) => name.startsWith("stats"))),
  );
  return { files, lines: effects.lines };
}

/** The analysis files of `dir` whose names match, creation times and the study's path (`study`) masked. */
async function analysisFiles(dir: string, study: string, names: RegExp): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of (await readdir(join(dir, "analysis"))).sort()) {
    if (!names.test(name)) continue;
    files[name] = (await readFile(join(dir, "analysis", name), "utf8")).replaceAll(study, "<study>").replace(/"createdAt": "[^"]*"/g, '"createdAt": "<time>"');
  }
  return files;
}

/** A folder holding stats' files as writeStatsReport writes buildStats' report of the study in `dir` (under the provenance of its stats.json). */
async function statsAtOnce(dir: string): Promise<string> {
  const loaded = await loadCodedStudy(dir, "bales-ipa", CODER);
  const { provenance } = JSON.parse(await readFile(artifacts.stats.path(dir), "utf8"));
  const out = await mkdtemp(join(tmpdir(), "colloquy-stats-at-once-"));
  await writeStatsReport(out, { provenance, ...buildStats(loaded.sessions, loaded) });
  return out;
}

/** The same study run from scratch: a copy without .cache/ (and without earlier analysis files). */
async function fromScratch(dir: string, through?: (context: StudyContext) => StudyContext): Promise<Record<string, string>> {
  const copy = join(await mkdtemp(join(tmpdir(), "colloquy-compare-stats-scratch-")), "demo");
  await cp(dir, copy, { recursive: true });
  await rm(join(copy, ".cache"), { recursive: true, force: true });
  await rm(join(copy, "analysis"), { recursive: true, force: true });
  const { files } = await run(copy, through);
  return Object.fromEntries(Object.entries(files).map(([name, text]) => [name, text.replaceAll(copy, "<study>")]));
}

/** Rewrite the coder's records (JSONL lines after the run header, or whole records). */
async function editRecords(dir: string, edit: (record: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  const lines = (await readFile(codesFile(dir), "utf8")).split("\n");
  const out = lines.map((line) => {
    if (!line.trim()) return line;
    const value = JSON.parse(line) as Record<string, unknown>;
    return "session" in value ? JSON.stringify(edit(value)) : line;
  });
  await writeFile(codesFile(dir), out.join("\n"));
}

/**
 * Add a session: a copy of control-1 as `id` (run `run`, one turn reworded), coded by the same
 * coder as control-1 except where `recode` (the record's index in the session) gives other codes.
 */
async function addSession(dir: string, id: string, run: string, recode: (index: number) => string[] | undefined): Promise<void> {
  const session = JSON.parse(await readFile(join(dir, "sessions", "control-1.json"), "utf8"));
  session.id = id;
  session.metadata.run = run;
  session.turns[2].text = `${id}'s own words.`;
  await writeFile(join(dir, "sessions", `${id}.json`), JSON.stringify(session));
  const copied = (await readFile(codesFile(dir), "utf8"))
    .split("\n")
    .filter((line) => line.includes('"session":"control-1"'))
    .map((line, i) => {
      const record = JSON.parse(line.replace('"session":"control-1"', `"session":"${id}"`));
      const codes = recode(i);
      return JSON.stringify(codes ? { ...record, codes } : record);
    });
  await writeFile(codesFile(dir), (await readFile(codesFile(dir), "utf8")).replace(/\n?$/, "\n") + copied.join("\n") + "\n");
}

describe("compare and stats, per session", () => {
  it("write the same files as a run from scratch after sessions are added or edited and codes change", async () => {
    const dir = await demoCopy();
    const fresh = await run(dir);
    expect(Object.keys(fresh.files)).toEqual(
      expect.arrayContaining(["compare-bales-ipa.json", "compare-bales-ipa-tests.csv", "stats.json", "stats-sessions.csv", "stats-participants.csv"]),
    );
    for (const name of [["coded", "bales-ipa", CODER], "stats-metrics", ["compare", "bales-ipa", CODER], ["stats-codes", "bales-ipa", CODER]] as const) {
      expect(existsSync(memoPath(dir, name))).toBe(true);
    }

    // Nothing changed: everything is reused and the files are the same.
    const again = await run(dir);
    expect(again.files).toEqual(fresh.files);
    expect(again.lines.join("\n")).toMatch(/stats: 12 session\(s\) \(0 analysed, 12 reused/);

    // A new session (a copy of control-1 as run 9, one turn reworded), coded by the same coder.
    const session = JSON.parse(await readFile(join(dir, "sessions", "control-1.json"), "utf8"));
    session.id = "control-9";
    session.metadata.run = "9";
    session.turns[2].text = "A new session's own words.";
    await writeFile(join(dir, "sessions", "control-9.json"), JSON.stringify(session));
    const copied = (await readFile(codesFile(dir), "utf8"))
      .split("\n")
      .filter((line) => line.includes('"session":"control-1"'))
      .map((line) => line.replace('"session":"control-1"', '"session":"control-9"'));
    await writeFile(codesFile(dir), (await readFile(codesFile(dir), "utf8")).replace(/\n?$/, "\n") + copied.join("\n") + "\n");
    const added = await run(dir);
    expect(added.files).toEqual(await fromScratch(dir));
    expect(added.files).not.toEqual(fresh.files);
    expect(added.lines.join("\n")).toMatch(/stats: 13 session\(s\) \(1 analysed, 12 reused/);

    // One turn of critical-1 edited: another speaker, other words.
    const path = join(dir, "sessions", "critical-1.json");
    const edited = JSON.parse(await readFile(path, "utf8"));
    edited.turns[1].text += " (edited after coding)";
    edited.turns[1].speaker = edited.turns[0].speaker;
    await writeFile(path, JSON.stringify(edited, null, 2));
    const afterEdit = await run(dir);
    expect(afterEdit.files).toEqual(await fromScratch(dir));
    expect(afterEdit.files["stats.json"]).not.toEqual(added.files["stats.json"]);

    // One record recoded to another code of the codebook: the labels stay the same, so only the
    // session's codes digest can tell its memo entries are out of date.
    await editRecords(dir, (r) => (r.session === "critical-2" && r.turn === "t0003" ? { ...r, codes: ["shows-tension"] } : r));
    const recodedInside = await run(dir);
    expect(recodedInside.files).toEqual(await fromScratch(dir));
    expect(recodedInside.files["compare-bales-ipa-tests.csv"]).not.toEqual(afterEdit.files["compare-bales-ipa-tests.csv"]);

    // Codes change: one code outside the codebook, one record of a session the study lacks.
    let first = true;
    await editRecords(dir, (r) => {
      if (r.session === "control-2" && first) {
        first = false;
        return { ...r, codes: ["not-in-the-codebook"] };
      }
      return r;
    });
    const text = await readFile(codesFile(dir), "utf8");
    const stray = text
      .split("\n")
      .find((line) => line.includes('"session":"control-1"'))!
      .replace('"session":"control-1"', '"session":"gone-1"');
    await writeFile(codesFile(dir), text.replace(/\n?$/, "\n") + stray + "\n");
    const recoded = await run(dir);
    expect(recoded.files).toEqual(await fromScratch(dir));
    expect(recoded.files["stats.json"]).toContain("not-in-the-codebook");
    expect(recoded.files["compare-bales-ipa.json"]).toContain("gone-1/t0000");
    expect(recoded.lines.join("\n")).toMatch(/stats: 13 session\(s\) \(0 analysed, 13 reused/);
  });

  it("a new session bringing codes outside the codebook is analysed alone: the other sessions' compare and stats entries are reused", async () => {
    const dir = await demoCopy();
    await run(dir);
    const reused = (lines: string[], analysed: number, kept: number) => {
      const log = lines.join("\n");
      const note = `\\(${analysed} analysed, ${kept} reused from \\.cache/memo\\)`;
      expect(log).toMatch(new RegExp(`compare: bales-ipa \\(${CODER}\\), \\d+ session\\(s\\) ${note}`));
      expect(log).toMatch(new RegExp(`stats: \\d+ session\\(s\\) ${note}; bales-ipa codes of ${CODER} ${note}`));
    };

    // control-9 uses a code the codebook lacks: the study's labels grow, the other 12 sessions' parts stand.
    await addSession(dir, "control-9", "9", (i) => (i === 1 ? ["not-in-the-codebook"] : undefined));
    const one = await run(dir);
    reused(one.lines, 1, 12);
    expect(one.files).toEqual(await fromScratch(dir));
    expect(one.files["stats.json"]).toContain("not-in-the-codebook");

    // control-10 uses that code and another one, first use in the other order: its own numbering
    // of the two differs from the study's, and control-9's part is reused under the study's.
    await addSession(dir, "control-10", "10", (i) => (i === 0 ? ["also-not-in-it"] : i === 3 ? ["not-in-the-codebook", "also-not-in-it"] : undefined));
    const two = await run(dir);
    reused(two.lines, 1, 13);
    expect(two.files).toEqual(await fromScratch(dir));
    expect(two.files["compare-bales-ipa.json"]).toContain("also-not-in-it");

    // control-9 leaves the study: the unknown codes are numbered otherwise, nothing is analysed again.
    await rm(join(dir, "sessions", "control-9.json"));
    const left = await run(dir);
    reused(left.lines, 0, 13);
    expect(left.files).toEqual(await fromScratch(dir));
  });

  it("a session whose codes were appended (as `colloquy code` does) is joined from the kept code digests: no coder's records read whole, the files of a run from scratch", async () => {
    const dir = await demoCopy();
    await run(dir);
    // control-9: control-1's turns and records under a new id, one record with a code the codebook lacks, appended.
    const session = JSON.parse(await readFile(join(dir, "sessions", "control-1.json"), "utf8"));
    await writeFile(join(dir, "sessions", "control-9.json"), JSON.stringify({ ...session, id: "control-9", metadata: { ...session.metadata, run: "9" } }));
    const own = (await readCodes(dir, "bales-ipa", CODER)).filter((r) => r.session === "control-1");
    await appendCodes(
      dir,
      own.map((r, i) => ({ ...r, session: "control-9", codes: i === 1 ? ["not-in-the-codebook"] : r.codes })),
    );

    // What the stages ask of the context: every record (codes), or the digests (and how they were brought up to date).
    const calls = { codes: 0, digests: [] as CodeDigests[] };
    const watched = (context: StudyContext): StudyContext => ({
      ...context,
      codes: (codebook, coder) => (calls.codes++, context.codes(codebook, coder)),
      codeDigests: async (codebook, coder) => {
        const digests = await context.codeDigests!(codebook, coder);
        calls.digests.push(digests);
        return digests;
      },
    });
    const added = await run(dir, watched);
    expect(calls.codes).toBe(0);
    expect(calls.digests.map((d) => d.parsed)).toEqual(["appended", "appended"]);
    // One digests object for the run: compare and stats share one join.
    expect(calls.digests[1]).toBe(calls.digests[0]);
    // No record of a session the study lacks either (those records would be read whole to count them as orphans).
    expect(calls.digests[0].sessionIds().filter((id) => !existsSync(join(dir, "sessions", `${id}.json`)))).toEqual([]);
    expect(added.lines.join("\n")).toMatch(/stats: 13 session\(s\) \(1 analysed, 12 reused/);
    expect(added.files["stats.json"]).toContain("not-in-the-codebook");
    // The same files as from scratch, whether the scratch run reads the digests or every record.
    expect(added.files).toEqual(await fromScratch(dir));
    expect(added.files).toEqual(await fromScratch(dir, (context) => ({ ...context, codeDigests: undefined })));
  });
});
