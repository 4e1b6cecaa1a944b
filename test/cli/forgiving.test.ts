// Commands that forgive (issue 39): a folder that is not a study is named at once with the way
// to make one; `-` is standard output wherever --out takes a file; a mistyped value gets a guess;
// the study is the argument everywhere, --study its alias; provenance names the study relatively.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

const fixtures = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));
const NOT_A_STUDY = /not a Colloquy study.*create one with `colloquy init /;

describe("commands that forgive", () => {
  let root: string;
  let study: string;
  let plain: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "colloquy-forgive-"));
    study = join(root, "study");
    plain = join(root, "plain");
    await mkdir(plain);
    await writeFile(join(plain, "notes.txt"), "my own files\n");
    const imported = await runCli(["import", join(fixtures, "slack-paste/dataset"), "--study", study, "--path-pattern", "{condition}/{run}/*"]);
    expect(imported.code, imported.stderr).toBe(0);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("every command that needs a study refuses a folder without colloquy.json at once, naming init", async () => {
    const commands = [
      ["serve", plain, "--port", "0"],
      ["study", plain],
      ["sessions", plain],
      ["export", plain],
      ["report", plain],
      ["compare", plain],
      ["stats", plain],
      ["code", plain],
      ["build", plain],
      ["sample", plain, "--n", "2", "--out", join(root, "s.csv")],
      ["codes", "import", join(root, "x.csv"), plain, "--codebook", "bales-ipa", "--coder", "alice"],
      ["topics", "import", plain, join(root, "x.csv")],
    ];
    for (const args of commands) {
      const run = await runCli(args);
      expect(run.code, args.join(" ")).not.toBe(0);
      expect(run.stderr, args.join(" ")).toMatch(NOT_A_STUDY);
      expect(run.stdout, args.join(" ")).toBe("");
    }
    // Nothing was built or written into the folder.
    expect(await readdir(plain)).toEqual(["notes.txt"]);
    const missing = await runCli(["export", join(root, "no-such")]);
    expect(missing.stderr).toMatch(/no such study folder: not a Colloquy study; create one with `colloquy init /);
  }, 60_000);

  it("takes the study as the argument or as --study, and refuses two different ones", async () => {
    const positional = await runCli(["sessions", study]);
    const flag = await runCli(["sessions", "--study", study]);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toBe(positional.stdout);
    const both = await runCli(["sessions", study, "--study", plain]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/two studies named/);
    const none = await runCli(["sessions"]);
    expect(none.stderr).toMatch(/name the study folder: colloquy sessions <study>/);
  });

  it("run makes a study only in a new or empty folder (saying so) or with --create", async () => {
    const scenario = join(root, "missing-scenario.yaml");
    const refused = await runCli(["run", scenario, plain]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/plain: not a Colloquy study \(no colloquy.json\) and not empty; .*colloquy init .*--create/);
    expect(await readdir(plain)).toEqual(["notes.txt"]);
    const fresh = await runCli(["run", scenario, join(root, "typo-study")]);
    expect(fresh.stderr).toMatch(/Creating a new study at .*typo-study/);
    const created = await runCli(["run", scenario, "--study", plain, "--create"]);
    expect(created.stderr).toMatch(/Making .*plain a study \(--create\)/);
  });

  it("- is standard output for report, sample, sheet and export: no file named -, nothing beside /dev/null", async () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const report = await runCli(["report", study, "--out", "-"]);
      expect(report.code, report.stderr).toBe(0);
      expect(report.stdout).toMatch(/^# /m);
      // Its figures would be files beside it: on standard output it names them instead of linking nowhere.
      expect(report.stdout).not.toMatch(/!\[/);
      expect(report.stderr).toMatch(/CSV table\(s\) are written only beside a report file/);
      const sample = await runCli(["sample", study, "--n", "3", "--out", "-"]);
      expect(sample.code, sample.stderr).toBe(0);
      expect(sample.stdout.trim().split("\n")).toHaveLength(4);
      expect(sample.stdout).toMatch(/^session,turn,fingerprint,stratum/);
      const sheet = await runCli(["sheet", study, "--codebook", "bales-ipa", "--out", "-"]);
      expect(sheet.code, sheet.stderr).toBe(0);
      expect(sheet.stdout).toMatch(/^session,/);
      const exported = await runCli(["export", study, "--out", "-"]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toMatch(/^session/);
      const devNull = await runCli(["sample", study, "--n", "3", "--out", "/dev/null"]);
      expect(devNull.code, devNull.stderr).toBe(0);
      expect(existsSync("/dev/null.provenance.json")).toBe(false);
      expect(existsSync(join(root, "-"))).toBe(false);
      expect(existsSync(join(root, "--tables"))).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  }, 60_000);

  it("- is standard output for agree --csv, codebook import, topics export and export --format qdc; a device gets no side files", async () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const ratings = join(root, "ratings.csv");
      await writeFile(ratings, "a,b\nx,x\ny,y\nx,y\ny,y\n");
      const agree = await runCli(["agree", "--csv", ratings, "--raters", "a,b", "--bootstrap", "0", "--out", "-"]);
      expect(agree.code, agree.stderr).toBe(0);
      // The JSON report alone, parseable (no summary mixed in).
      expect(JSON.parse(agree.stdout).variables[0].pairs[0].n).toBe(4);
      const qdc = await runCli(["export", study, "--format", "qdc", "--codebook", "bales-ipa", "--out", "-"]);
      expect(qdc.code, qdc.stderr).toBe(0);
      expect(qdc.stdout).toMatch(/^<\?xml/);
      await writeFile(join(root, "book.qdc"), qdc.stdout);
      const imported = await runCli(["codebook", "import", join(root, "book.qdc"), "--out", "-"]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout).categories.length).toBeGreaterThan(5);
      expect(imported.stderr).toMatch(/Wrote standard output: "bales-ipa"/);
      expect((await runCli(["topics", study])).code).toBe(0);
      const topics = await runCli(["topics", "export", study, "--out", "-"]);
      expect(topics.code, topics.stderr).toBe(0);
      expect(topics.stdout).toMatch(/judgement/);
      expect(topics.stderr).toMatch(/sub-topic row\(s\) to standard output/);
      const devNull = await runCli(["export", study, "--out", "/dev/null"]);
      expect(devNull.code, devNull.stderr).toBe(0);
      expect((await runCli(["export", study, "--format", "qdc", "--codebook", "bales-ipa", "--out", "/dev/null"])).code).toBe(0);
      expect(existsSync("/dev/null.dictionary.csv")).toBe(false);
      expect(existsSync("/dev/null.provenance.json")).toBe(false);
      expect(await readdir(root)).not.toContain("-");
    } finally {
      process.chdir(cwd);
    }
  }, 60_000);

  it('says "did you mean" for a mistyped design, format, strategy, coder, stage or table', async () => {
    const cases: [string[], RegExp][] = [
      [["init", join(root, "new"), "--design", "withn"], /--design "withn": expected within, between; did you mean "within"\?/],
      [["init", join(root, "new"), "--desing", "within"], /unknown option .--desing.[\s\S]*Did you mean --design\?/],
      [["compare", study, "--design", "whitin"], /did you mean "within"\?/],
      [["report", study, "--format", "mdd"], /--format "mdd": expected md, html; did you mean "md"\?/],
      [["sample", study, "--n", "2", "--out", join(root, "s.csv"), "--strategy", "uncertian"], /did you mean "uncertain"\?/],
      [["code", study, "--coder", "lerned"], /--coder "lerned": expected .*; did you mean "learned"\?/],
      [["study", study, "--only", "agre"], /unknown stage "agre".*did you mean "agree"\?/],
      [["export", study, "--what", "turn"], /did you mean "turns"\?/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args);
      expect(run.code, args.join(" ")).not.toBe(0);
      expect(run.stderr, args.join(" ")).toMatch(message);
    }
    // Far from every choice: no guess.
    expect((await runCli(["report", study, "--format", "docx"])).stderr).not.toMatch(/did you mean/);
  });

  it("writes the study into provenance relative to the file, never as an absolute path", async () => {
    const out = join(root, "samples", "s.csv");
    expect((await runCli(["sample", study, "--n", "2", "--out", out])).code).toBe(0);
    const sampled = JSON.parse(await readFile(`${out}.provenance.json`, "utf8"));
    expect(sampled.study).toBe(join("..", "study"));
    expect((await runCli(["stats", study])).code).toBe(0);
    const stats = JSON.parse(await readFile(join(study, "analysis", "stats.json"), "utf8"));
    expect(stats.provenance.study).toBe(".");
  });
});
