import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, readdir, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../support/cli.js";

const chatLog = fileURLToPath(new URL("../../fixtures/transcripts/csv/chat-log.csv", import.meta.url));

// A report written by `colloquy report` is not redone by the pipeline: once the analyses it reports
// change, `colloquy study` says so rather than leave an out-of-date report.md for a paper.
describe("colloquy study and an earlier report", () => {
  it("warns when analysis/report.md is older than the analyses, and not when it is current", async () => {
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-stale-")), "s");
    expect((await runCli(["import", chatLog, "--study", study, "--code-column", "ipa_code=alice", "--codebook", "bales-ipa"])).code).toBe(0);
    expect((await runCli(["study", study])).code).toBe(0);
    expect((await runCli(["report", study])).code).toBe(0);
    const stale = "analysis/report.md was written before the analyses it reports changed";
    expect((await runCli(["study", study])).stderr).not.toContain(stale);

    const path = join(study, "colloquy.json");
    const config = JSON.parse(await readFile(path, "utf8")) as { codebooks: { codebook: string; analysisCoder?: string }[] };
    config.codebooks[0].analysisCoder = "human:alice";
    await writeFile(path, JSON.stringify(config));
    const changed = await runCli(["study", study]);
    expect(changed.stderr).toContain(`${stale}; run \`colloquy report ${study}\` again`);
    // Until the report is made again, every run says so.
    expect((await runCli(["study", study])).stderr).toContain(stale);
    expect((await runCli(["report", study])).code).toBe(0);
    expect((await runCli(["study", study])).stderr).not.toContain(stale);
  }, 120_000);

  // A copy (cp -r, git checkout, unzip) sets every file's mtime in the order it writes them: a
  // current report.md written before stats.json is not out of date, and a run that changed nothing says nothing.
  it("does not warn about a current report whose analysis files were copied after it", async () => {
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-stale-copy-")), "s");
    expect((await runCli(["import", chatLog, "--study", study, "--code-column", "ipa_code=alice", "--codebook", "bales-ipa"])).code).toBe(0);
    expect((await runCli(["study", study])).code).toBe(0);
    expect((await runCli(["report", study])).code).toBe(0);
    const later = new Date(Date.now() + 60_000);
    for (const name of await readdir(join(study, "analysis"))) if (name.endsWith(".json")) await utimes(join(study, "analysis", name), later, later);
    const run = await runCli(["study", study]);
    expect(run.stdout).toContain("0 stage(s) ran");
    expect(run.stderr).not.toContain("analysis/report.md was written before the analyses it reports changed");
  }, 120_000);
});
