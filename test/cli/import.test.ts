import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Papa from "papaparse";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readCodeHistory, readCodes } from "../../src/coding/store.js";
import { loadSessions } from "../../src/study/study.js";
import { runCli } from "../support/cli.js";

const fixtures = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));

describe("colloquy import", () => {
  let dir: string;
  let study: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "colloquy-import-"));
    study = join(dir, "study");
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("done when: a <condition>/<run>/run-<n>.md Slack-paste folder exports one CSV row per speaker header", async () => {
    const dataset = join(dir, "published");
    await cp(join(fixtures, "slack-paste/dataset"), dataset, { recursive: true });
    const imported = await runCli(["import", dataset, "--study", study, "--path-pattern", "{condition}/{run}/*"]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain("Imported 4 session(s), 18 turns from 4 of 4 input(s)");

    const exported = await runCli(["export", study, "--format", "csv"]);
    expect(exported.code).toBe(0);
    const rows = Papa.parse<Record<string, string>>(exported.stdout.trim(), { header: true }).data;
    // Expected rows straight from the sources: every `Name (Role)` header followed by a time line.
    const expected: { condition: string; run: string; speaker: string; kind: string }[] = [];
    for (const condition of ["flat", "hierarchical"]) {
      for (const run of ["1", "2"]) {
        const lines = (await readFile(join(dataset, condition, run, `run-${run}.md`), "utf8")).split("\n");
        lines.forEach((line, i) => {
          const header = /^(.+) \(([^()]+)\)$/.exec(line);
          const time = /^(APP)?\s+\d{1,2}:\d{2} [AP]M$/.exec(lines[i + 1] ?? "");
          if (header && time) expected.push({ condition, run, speaker: header[1]!, kind: time[1] ? "ai" : "human" });
        });
      }
    }
    expect(expected).toHaveLength(18);
    expect(rows.map((r) => ({ condition: r.condition!, run: r.run!, speaker: r.speaker!, kind: r.kind! }))).toEqual(expected);
    expect(Object.keys(rows[0]!)).toEqual(
      expect.arrayContaining(["session", "condition", "run", "turn", "index", "speaker", "role", "kind", "time", "type", "text"]),
    );
    // The human client's words survive quoting intact, including embedded quotes and line breaks.
    expect(rows.find((r) => r.session === "hierarchical-1-run-1" && r.index === "4")!.text).toContain(
      '<form action="/order" method="post">\n  <label>Cake</label>',
    );
  });

  it("re-importing the same files replaces their sessions instead of duplicating them", async () => {
    const file = join(fixtures, "slack-paste/dataset/flat/1/run-1.md");
    expect((await runCli(["import", file, "--study", study, "--condition", "flat", "--run", "1"])).code).toBe(0);
    expect((await runCli(["import", file, "--study", study, "--condition", "flat", "--run", "1", "--split-continuations"])).code).toBe(0);
    const sessions = await loadSessions(study);
    expect(sessions.map((s) => s.id)).toEqual(["flat-1-run-1"]);
    expect(sessions[0]!.turns).toHaveLength(6);
    // A different file with the same stem gets its own readable id.
    await cp(file, join(dir, "run-1.md"));
    await runCli(["import", join(dir, "run-1.md"), "--study", study, "--condition", "flat", "--run", "1"]);
    expect((await loadSessions(study)).map((s) => s.id)).toEqual(["flat-1-run-1", "flat-1-run-1-2"]);
  });

  it("imports the good files, reports the broken one by file and line, and exits non-zero", async () => {
    await writeFile(join(dir, "good.csv"), "speaker,text\nAnn,hello\n");
    await writeFile(join(dir, "bad.csv"), 'speaker,text\nAnn,"never closed\n');
    const run = await runCli(["import", join(dir, "good.csv"), join(dir, "bad.csv"), "--study", study]);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toMatch(/✓ .*good\.csv \[csv\]: 1 session\(s\)/);
    expect(run.stdout).toMatch(/✗ .*bad\.csv:2: malformed quoting/);
    // The path once per line (errors already name their file), and "the others" only when there are.
    const failure = run.stdout.split("\n").find((l) => l.startsWith("✗"))!;
    expect(failure.split(join(dir, "bad.csv")).length - 1).toBe(1);
    expect(run.stderr).toMatch(/1 of 2 input\(s\) failed to import \(the other 1 were imported\)/);
    expect((await loadSessions(study)).map((s) => s.id)).toEqual(["good"]);
    const alone = await runCli(["import", join(dir, "bad.csv"), "--study", study]);
    expect(alone.stderr).toContain("1 of 1 input(s) failed to import; fix them");
  });

  it("stores CSV code columns as human codes matched by id, label or alias, and reports unmatched labels with their line", async () => {
    const run = await runCli([
      "import",
      join(fixtures, "csv/chat-log.csv"),
      "--study",
      study,
      "--code-column",
      "ipa_code=alice",
      "--codebook",
      "bales-ipa",
      "--json",
    ]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.provenance.tool).toBe("colloquy");
    expect(report.summary).toMatchObject({ sessions: 2, turns: 6, codes: 5, failed: 0 });
    expect(report.files[0].warnings).toEqual([
      expect.stringMatching(
        /chat-log\.csv: no speaker is marked as an AI, but "Designer Bot", "Planner Bot" look like an assistant; if so, import again with --agents "Designer Bot,Planner Bot"/,
      ),
      expect.stringMatching(/chat-log\.csv:9: code label "Cheers" matches no category/),
    ]);
    const codes = await readCodes(study, "bales-ipa", "human:alice");
    expect(codes.map((c) => [c.session, c.turn, c.codes])).toEqual([
      ["control-1-chat-log-1", "t0000", ["shows-solidarity"]],
      ["control-1-chat-log-1", "t0001", ["gives-suggestion"]],
      ["control-1-chat-log-1", "t0002", ["disagrees"]],
      ["treatment-2-chat-log-2", "t0000", ["asks-orientation"]],
      ["treatment-2-chat-log-2", "t0001", ["gives-orientation"]],
    ]);
    expect(codes[0]!.codebookVersion).toBe("1.0.0");
    expect(codes[0]!.provenance).toMatchObject({ label: "1", line: 2 });
    // Re-import replaces these sessions' codes rather than appending duplicates.
    await runCli(["import", join(fixtures, "csv/chat-log.csv"), "--study", study, "--code-column", "ipa_code=alice", "--codebook", "bales-ipa"]);
    expect(await readCodeHistory(study, "bales-ipa", "human:alice")).toHaveLength(5);
    // Re-imported without --code-column: alice's codes are kept (nothing said they changed).
    await runCli(["import", join(fixtures, "csv/chat-log.csv"), "--study", study, "--codebook", "bales-ipa"]);
    expect(await readCodes(study, "bales-ipa", "human:alice")).toHaveLength(5);
    // Re-imported with the column now empty: the codes it once brought lose their source and go.
    const own = join(study, "own.csv");
    await writeFile(own, "speaker,text,code\nAnn,Thanks all,1\nBo,I think so,5\n");
    await runCli(["import", own, "--study", study, "--code-column", "code=bob", "--codebook", "bales-ipa"]);
    expect(await readCodes(study, "bales-ipa", "human:bob")).toHaveLength(2);
    await writeFile(own, "speaker,text,code\nAnn,Thanks all,\nBo,I think so,\n");
    await runCli(["import", own, "--study", study, "--code-column", "code=bob", "--codebook", "bales-ipa"]);
    expect(await readCodes(study, "bales-ipa", "human:bob")).toEqual([]);
    expect(await readCodes(study, "bales-ipa", "human:alice")).toHaveLength(5);
  });

  it("stores labels written in a compact Slack transcript under human:transcript", async () => {
    const run = await runCli(["import", join(fixtures, "slack-paste/edge/compact.md"), "--study", study, "--codebook", "bales-ipa"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/compact\.md:9: code label "Rambles" matches no category/);
    const codes = await readCodes(study, "bales-ipa", "human:transcript");
    expect(codes.map((c) => c.codes![0])).toEqual(["gives-opinion", "agrees", "asks-opinion"]);
  });

  it("fails clearly on an unknown --format or a bad --path-pattern, writing nothing", async () => {
    const a = await runCli(["import", join(fixtures, "csv/chat-log.csv"), "--study", study, "--format", "docx"]);
    expect(a.code).not.toBe(0);
    expect(a.stderr).toMatch(/unknown format "docx"; known formats: slack-paste, csv/);
    const b = await runCli(["import", join(fixtures, "csv/chat-log.csv"), "--study", study, "--path-pattern", "*/*"]);
    expect(b.stderr).toMatch(/--path-pattern "\*\/\*": it captures nothing/);
    expect(await readdir(join(study, "sessions"))).toEqual([]);
  });

  it("imports a folder of mixed formats, detecting each, and lists every broken file", async () => {
    const run = await runCli(["import", join(fixtures, "csv"), join(fixtures, "plain"), join(fixtures, "vtt"), join(fixtures, "srt"), "--study", study]);
    expect(run.code).not.toBe(0);
    const formats = [...run.stdout.matchAll(/^✓ .*\/([^/]+) \[([a-z-]+)\]/gm)].map((m) => `${m[1]}=${m[2]}`);
    // Every fixture not broken on purpose is detected as the format of its folder.
    const expected: string[] = [];
    for (const folder of ["csv", "plain", "vtt", "srt"]) {
      const names = (await readdir(join(fixtures, folder))).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      expected.push(...names.filter((n) => !/broken|bad/.test(n)).map((n) => `${n}=${folder}`));
    }
    expect(formats).toEqual(expected);
    expect(formats).toContain("windows-1252.srt=srt");
    expect(run.stdout).toMatch(/✗ .*broken-row\.csv:5: empty speaker cell/);
    expect(run.stdout).toMatch(/✗ .*bad-timing\.vtt:4: /);
    expect(run.stdout).toMatch(/✗ .*broken-mixed-encoding\.txt:2: byte 52 \(0xE9\) is not valid UTF-8/);
    expect(run.stderr).toMatch(new RegExp(`3 of ${expected.length + 3} input\\(s\\) failed`));
    // chat-log.csv holds two sessions, condition-run-no-session-column.csv four (condition x run).
    expect((await loadSessions(study)).length).toBe(expected.length + 1 + 3);
  });

  it("--encoding decodes every file with the encoding named; an unknown name stops before anything is read", async () => {
    const file = join(fixtures, "plain/windows-1252.txt");
    const detected = await runCli(["import", file, "--study", study]);
    expect(detected.code).toBe(0);
    expect(detected.stdout).toMatch(/warning: .*windows-1252\.txt: not valid UTF-8; read as windows-1252 \(detected/);
    const forced = await runCli(["import", file, "--study", study, "--encoding", "windows-1252"]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).not.toMatch(/read as/);
    const [session] = await loadSessions(study);
    expect(session!.turns[1]!.text).toBe("It proposed a “crème brûlée” theme for the menu.\nI thought: naïve, but fun.");
    expect(session!.metadata.source).toMatchObject({ encoding: "windows-1252" });
    const wrong = await runCli(["import", file, "--study", study, "--encoding", "utf-8"]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toMatch(/✗ .*windows-1252\.txt:1: byte 12 \(0x96\) is not valid UTF-8, but --encoding utf-8 was given/);
    const unknown = await runCli(["import", file, "--study", study, "--encoding", "klingon-8"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown encoding "klingon-8"/);
  });

  it("saves each file's sessions before it parses the next file (a corpus is never held in memory at once)", async () => {
    // The second file is a named pipe: reading it blocks until the test writes to it, so while
    // the command waits on it we can look at what the first file already left in the study.
    const folder = join(dir, "corpus");
    await mkdir(folder);
    await writeFile(join(folder, "a.csv"), "speaker,text\nAnn,hello\nBob,hi Ann\n");
    const pipe = join(folder, "b.csv");
    execFileSync("mkfifo", [pipe]);
    const run = runCli(["import", folder, "--study", study, "--format", "csv"]);
    const saved = join(study, "sessions", "a.json");
    const deadline = Date.now() + 10_000;
    while (!existsSync(saved) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(saved)).toBe(true);
    expect((await loadSessions(study)).map((s) => [s.id, s.turns.length])).toEqual([["a", 2]]);
    // Now the second file arrives, broken: it is reported, the first stays imported, exit non-zero.
    await writeFile(pipe, 'speaker,text\nAnn,"never closed\n');
    const result = await run;
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/✓ .*a\.csv \[csv\]: 1 session\(s\) \(a\), 2 turns/);
    expect(result.stdout).toMatch(/✗ .*b\.csv:2: malformed quoting/);
    expect(result.stderr).toMatch(/1 of 2 input\(s\) failed to import/);
    expect((await loadSessions(study)).map((s) => s.id)).toEqual(["a"]);
  });

  it("has --help", async () => {
    const help = await runCli(["import", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--path-pattern");
    expect(help.stdout).toContain("--encoding <name>");
    expect(help.stdout.replace(/\s+/g, " ")).toContain("slack-paste, csv, vtt, srt, sbv, whatsapp, zoom-chat, cha, textgrid, plain");
    expect(help.stdout).toContain("--humans <names>");
  });
});
