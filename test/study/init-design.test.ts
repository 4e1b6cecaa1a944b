import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import { loadStudyConfig } from "../../src/study/study.js";

describe("colloquy init: control condition and design", () => {
  it("writes --control and --design into colloquy.json and prints them", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-")), "study");
    const run = await runCli(["init", dir, "--control", "baseline", "--design", "between"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/control: +baseline/);
    expect(run.stdout).toMatch(/design: +between-subject \(declared\)/);
    expect((await loadStudyConfig(dir)).compare).toMatchObject({ control: "baseline", design: "between" });
  });
  it("without them says the view stays empty and sessions are the units; refuses an unknown design", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-")), "study");
    const run = await runCli(["init", dir]);
    expect(run.stdout).toMatch(/control: +none yet: the "Conditions vs control" view stays empty/);
    expect(run.stdout).toMatch(/design: +sessions as independent units \(the default\)/);
    const bad = await runCli(["init", dir, "--design", "paired"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--design "paired": expected within, between/);
  });
});

describe("colloquy study: empty dashboard views", () => {
  it("warns once, after the stages, when no control condition is set, and says how to fill the view", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-study-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const config = JSON.parse(await readFile(join(dir, "colloquy.json"), "utf8"));
    delete config.compare.control;
    delete config.compare.design;
    await writeFile(join(dir, "colloquy.json"), JSON.stringify(config));
    const run = await runCli(["study", dir, "--only", "import,code,compare"]);
    expect(run.code, run.stderr).toBe(0);
    const warnings = run.stderr.split("\n").filter((l) => l.includes("Conditions vs control"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /no control condition\. Set "compare": \{"control": "control"\} in .*colloquy\.json \(conditions: control, critical, socratic\)/,
    );
    expect(run.stderr).toMatch(/design: comparisons use sessions as independent units \(default: .*3 people took part in more than one condition/);
    // The compare file records the default design with its reason.
    const compare = JSON.parse(await readFile(join(dir, "analysis", "compare-bales-ipa.json"), "utf8"));
    expect(compare.design).toMatchObject({ design: "between", unit: "session", source: "default" });
  }, 60_000);
});

describe("colloquy study: a declared between design with people in several conditions", () => {
  it("says after the stages that the samples are not independent, as it says of the default design", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-study-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const config = JSON.parse(await readFile(join(dir, "colloquy.json"), "utf8"));
    config.compare.design = "between";
    config.compare.unit = "participant";
    await writeFile(join(dir, "colloquy.json"), JSON.stringify(config));
    const run = await runCli(["study", dir, "--only", "import,code,compare"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /design: declared \(colloquy\.json compare\): .*but 3 people .* so a comparison of two conditions they were both in does not have independent samples/,
    );
  }, 60_000);
});

describe("colloquy study: sessions that stopped before their end", () => {
  it("says which sessions are incomplete and how to continue them (and nothing when none is)", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-study-")), "demo");
    await cp(join(import.meta.dirname, "../../fixtures/demo-study"), dir, { recursive: true });
    const clean = await runCli(["study", dir, "--only", "import,code,compare"]);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stderr).not.toContain("stopped before their end");
    const [first] = (await readdir(join(dir, "sessions"))).filter((f) => f.endsWith(".json")).sort();
    const session = JSON.parse(await readFile(join(dir, "sessions", first), "utf8"));
    session.metadata.incomplete = true;
    await writeFile(join(dir, "sessions", first), JSON.stringify(session));
    const run = await runCli(["study", dir, "--only", "import,code,compare"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`sessions: 1 stopped before their end and are analysed as far as they got (metadata.incomplete): ${session.id};`);
    expect(run.stderr).toContain("--resume");
  });
});
