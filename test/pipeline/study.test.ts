import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, writeFile, readdir, utimes } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import { readState } from "../../src/pipeline/state.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

async function demoCopy(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-study-")), "demo");
  await cp(demo, dir, { recursive: true });
  return dir;
}

/** Set every file's mtime an hour back: past the window in which a fresh hash is not trusted. */
async function ageFiles(dir: string): Promise<void> {
  const past = new Date(Date.now() - 3_600_000);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) await utimes(join(entry.parentPath, entry.name), past, past);
  }
}

describe("colloquy study", () => {
  it("runs every stage on the demo study offline, then skips every stage on a second run", async () => {
    const dir = await demoCopy();
    const first = await runCli(["study", dir, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const outcomes = JSON.parse(first.stdout).stages as { name: string; status: string }[];
    expect(outcomes.map((o) => `${o.name}:${o.status}`)).toEqual([
      "import:ran",
      "code:ran",
      "agree:ran",
      "compare:ran",
      "stats:ran",
      "topics:ran",
      "concepts:ran",
      "build:ran",
    ]);
    for (const file of ["agreement-bales-ipa.json", "compare-bales-ipa.json", "stats.json", "topics.json", "concepts.json"]) {
      expect(existsSync(join(dir, "analysis", file)), file).toBe(true);
    }
    expect(existsSync(join(dir, "site", "index.html"))).toBe(true);
    // The inbox's Slack pastes were imported with condition and run from their paths.
    const sessions = await readdir(join(dir, "sessions"));
    expect(sessions).toContain("critical-3-run-3.json");
    const imported = JSON.parse(await readFile(join(dir, "sessions", "critical-3-run-3.json"), "utf8"));
    expect(imported.metadata).toMatchObject({ condition: "critical", run: "3" });

    const second = await runCli(["study", dir, "--json"]);
    expect(second.code, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout).stages as { status: string }[]).every((o) => o.status === "skipped")).toBe(true);
  }, 180_000);

  it("a re-run with nothing changed reads no file to fingerprint it; an edited session is read and re-runs its stages", async () => {
    const dir = await demoCopy();
    expect((await runCli(["study", dir])).code).toBe(0);
    await ageFiles(dir);
    const remembered = JSON.parse((await runCli(["study", dir, "--json"])).stdout);
    expect(remembered.stages.every((o: { status: string }) => o.status === "skipped")).toBe(true);
    expect(remembered.filesRead).toBeGreaterThan(0);
    const noop = JSON.parse((await runCli(["study", dir, "--json"])).stdout);
    expect(noop.stages.every((o: { status: string }) => o.status === "skipped")).toBe(true);
    expect(noop.filesRead).toBe(0);

    const path = join(dir, "sessions", "control-1.json");
    const session = JSON.parse(await readFile(path, "utf8"));
    session.turns[0].text += " (edited)";
    await writeFile(path, JSON.stringify(session, null, 2));
    const edited = JSON.parse((await runCli(["study", dir, "--json"])).stdout);
    expect(edited.filesRead).toBeGreaterThanOrEqual(1);
    const ran = edited.stages.filter((o: { status: string }) => o.status === "ran").map((o: { name: string }) => o.name);
    expect(ran).toEqual(expect.arrayContaining(["code", "stats", "topics", "concepts", "build"]));
  }, 180_000);

  it("adding one session recodes only that session; a failing stage does not stop the stages that do not need it", async () => {
    const dir = await demoCopy();
    expect((await runCli(["study", dir])).code).toBe(0);
    const session = JSON.parse(await readFile(join(dir, "sessions", "control-1.json"), "utf8"));
    session.id = "control-9";
    session.metadata.run = "9";
    await writeFile(join(dir, "sessions", "control-9.json"), JSON.stringify(session));
    // Break the compare settings: the control condition does not exist.
    const config = JSON.parse(await readFile(join(dir, "colloquy.json"), "utf8"));
    config.compare.control = "no-such-condition";
    await writeFile(join(dir, "colloquy.json"), JSON.stringify(config));

    const broken = await runCli(["study", dir]);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toMatch(/stage "compare" failed: .*no-such-condition/);
    expect(broken.stderr).toMatch(/The other stages ran \(.*stats.*topics.*concepts.*build.*\) and keep their outputs/);
    // Only the new session was looked at and its turns coded; the finished stages' records survive the failure.
    const state = await readState(dir);
    expect(state.stages.code.summary).toMatch(
      new RegExp(`^bales-ipa/rules: ${session.turns.length} coded, 0 already coded.*\\(only the 1 new or changed session\\(s\\)\\)$`),
    );
    expect(state.stages.agree).toBeDefined();

    config.compare.control = "control";
    await writeFile(join(dir, "colloquy.json"), JSON.stringify(config));
    const fixed = await runCli(["study", dir, "--json"]);
    expect(fixed.code, fixed.stderr).toBe(0);
    const statuses = Object.fromEntries((JSON.parse(fixed.stdout).stages as { name: string; status: string }[]).map((o) => [o.name, o.status]));
    expect(statuses).toMatchObject({ import: "skipped", code: "skipped", agree: "skipped", compare: "ran", build: "ran" });
  }, 180_000);

  it("--only and --force select stages; bad stage names are reported", async () => {
    const dir = await demoCopy();
    const only = await runCli(["study", dir, "--only", "import,code", "--json"]);
    expect(only.code, only.stderr).toBe(0);
    expect((JSON.parse(only.stdout).stages as { name: string; status: string }[]).filter((o) => o.status === "ran").map((o) => o.name)).toEqual([
      "import",
      "code",
    ]);
    const forced = await runCli(["study", dir, "--only", "code", "--force", "code", "--json"]);
    expect((JSON.parse(forced.stdout).stages as { name: string; status: string }[]).find((o) => o.name === "code")!.status).toBe("ran");
    const bad = await runCli(["study", dir, "--only", "coding"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown stage "coding"/);
  }, 180_000);
});

describe("colloquy demo", () => {
  it("copies the bundled demo study once and runs the pipeline on it", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-demo-")), "work");
    const run = await runCli(["demo", "--dir", dir, "--only", "import"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Copied the demo study");
    expect(existsSync(join(dir, "sessions", "control-3-run-3.json"))).toBe(true);
    const again = await runCli(["demo", "--dir", dir, "--only", "import"]);
    expect(again.stdout).not.toContain("Copied the demo study");
  }, 120_000);
});

describe("colloquy study: regenerating what is missing", () => {
  it("re-runs an analysis stage when one of its tables is missing (its descriptor lists them); files beside the results do not rebuild the dashboard", async () => {
    const dir = await demoCopy();
    expect((await runCli(["study", dir])).code).toBe(0);
    const statuses = async () => {
      const run = await runCli(["study", dir, "--json"]);
      expect(run.code, run.stderr).toBe(0);
      return Object.fromEntries((JSON.parse(run.stdout).stages as { name: string; status: string }[]).map((o) => [o.name, o.status]));
    };
    const { rm } = await import("node:fs/promises");
    await rm(join(dir, "analysis", "stats-sessions.csv"));
    expect(await statuses()).toMatchObject({ compare: "skipped", stats: "ran", topics: "skipped" });
    expect(existsSync(join(dir, "analysis", "stats-sessions.csv"))).toBe(true);
    // A researcher's notes and the study report in analysis/ are not what the dashboard reads.
    await writeFile(join(dir, "analysis", "notes.md"), "# what we saw\n");
    await writeFile(join(dir, "analysis", "report.md"), "# report\n");
    expect(await statuses()).toMatchObject({ build: "skipped" });
  }, 240_000);

  it("re-runs a stage whose output was deleted, recodes deleted codes, and --force with an empty inbox does not fail", async () => {
    const dir = await demoCopy();
    expect((await runCli(["study", dir])).code).toBe(0);
    const { rm } = await import("node:fs/promises");
    await rm(join(dir, "analysis", "topics.json"));
    await rm(join(dir, "codes", "bales-ipa", "rules.jsonl"));
    const again = await runCli(["study", dir, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const statuses = Object.fromEntries((JSON.parse(again.stdout).stages as { name: string; status: string }[]).map((o) => [o.name, o.status]));
    expect(statuses).toMatchObject({ import: "skipped", code: "ran", topics: "ran" });
    expect(existsSync(join(dir, "analysis", "topics.json"))).toBe(true);
    expect(existsSync(join(dir, "codes", "bales-ipa", "rules.jsonl"))).toBe(true);
    const forced = await runCli(["study", dir, "--force", "--json"]);
    expect(forced.code, forced.stderr).toBe(0);
  }, 240_000);
});
