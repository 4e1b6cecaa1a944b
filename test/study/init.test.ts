import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import { initStudy, loadStudyConfig, registerHumanCoders } from "../../src/study/study.js";

describe("colloquy init", () => {
  it("creates the study folder with a valid default config", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-")), "study");
    const run = await runCli(["init", dir, "--title", "Pilot"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Study ready");
    for (const sub of ["sessions", "codes", "analysis", "inbox"]) expect((await stat(join(dir, sub))).isDirectory()).toBe(true);
    const config = await loadStudyConfig(dir);
    expect(config.title).toBe("Pilot");
    expect(config.codebooks.map((c) => c.codebook)).toEqual(["bales-ipa", "pragmatic-style"]);
    expect(JSON.parse(await readFile(join(dir, "colloquy.json"), "utf8")).version).toBe(1);
    expect(run.stdout).not.toContain("kept");
    // Again: the existing config is kept, and the command says so (and that --title was not applied).
    const again = await runCli(["init", dir, "--title", "Other"]);
    expect(again.stdout).toContain("(already there: kept as it was; --title not applied)");
    expect((await loadStudyConfig(dir)).title).toBe("Pilot");
  });

  it("reports an invalid config field by name", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-"));
    await runCli(["init", dir]);
    const { writeFile } = await import("node:fs/promises");
    await writeFile(join(dir, "colloquy.json"), JSON.stringify({ version: 1, model: { temperature: "hot" } }));
    await expect(loadStudyConfig(dir)).rejects.toThrow(/colloquy\.json: model\.temperature/);
  });

  it("prints help and exits 0, and fails on an unknown command", async () => {
    expect((await runCli(["--help"])).code).toBe(0);
    expect((await runCli(["nonsense"])).code).not.toBe(0);
  });

  it("people listed at the same moment (two coding pages saving at once) are all kept in colloquy.json", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-")), "study");
    await initStudy(dir);
    const people = ["human:ana", "human:bo", "human:cy", "human:di"];
    const added = await Promise.all(people.map((person) => registerHumanCoders(dir, [person])));
    expect(added).toEqual(people.map((person) => [person]));
    expect((await loadStudyConfig(dir)).humanCoders.sort()).toEqual(people);
  });
});
