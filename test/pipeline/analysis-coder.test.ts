import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../support/cli.js";

const chatLog = fileURLToPath(new URL("../../fixtures/transcripts/csv/chat-log.csv", import.meta.url));

async function setAnalysisCoder(study: string, coder: string): Promise<void> {
  const path = join(study, "colloquy.json");
  const config = JSON.parse(await readFile(path, "utf8")) as { codebooks: { codebook: string; analysisCoder?: string }[] };
  config.codebooks.find((p) => p.codebook === "bales-ipa")!.analysisCoder = coder;
  await writeFile(path, JSON.stringify(config, null, 2));
}

const statsCoder = async (study: string) =>
  (JSON.parse(await readFile(join(study, "analysis", "stats.json"), "utf8")) as { provenance: { coder?: string } }).provenance.coder;

// People who coded every turn: the study's comparisons and Bales analyses can rest on their codes
// rather than the rule coder's, and `colloquy study` keeps using them (it used the first machine coder).
describe("codebooks[].analysisCoder: whose codes compare and stats analyse", () => {
  it("colloquy study and colloquy stats analyse the named coder; one without codes, or a machine coder not run, is refused naming the field", async () => {
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-analysed-")), "s");
    expect((await runCli(["import", chatLog, "--study", study, "--code-column", "ipa_code=alice", "--codebook", "bales-ipa"])).code).toBe(0);
    expect((await runCli(["study", study])).code).toBe(0);
    expect(await statsCoder(study)).toBe("rules");

    await setAnalysisCoder(study, "human:alice");
    const run = await runCli(["study", study]);
    expect(run.code, run.stderr).toBe(0);
    expect(await statsCoder(study)).toBe("human:alice");
    // The command alone, with two coders and no --coder, takes the configured one too.
    expect((await runCli(["stats", study])).code).toBe(0);
    expect(await statsCoder(study)).toBe("human:alice");

    await setAnalysisCoder(study, "human:nobody");
    const missing = await runCli(["study", study]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('codebooks[0].analysisCoder: human:nobody has no codes for "bales-ipa" yet (coders with codes: human:alice, rules)');

    await setAnalysisCoder(study, "llm");
    const notRun = await runCli(["study", study]);
    expect(notRun.code).toBe(1);
    expect(notRun.stderr).toContain('codebooks[0].analysisCoder: "llm" is not among this codebook\'s coders');
  }, 120_000);

  // colloquy study plans every stage before the code stage runs: a machine coder named as
  // analysisCoder has no codes yet in a new study, and the run must make them, not refuse.
  it("a machine analysisCoder of a new study, not coded yet, is coded and analysed", async () => {
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-analysed-")), "s");
    expect((await runCli(["import", chatLog, "--study", study])).code).toBe(0);
    await setAnalysisCoder(study, "rules");
    const run = await runCli(["study", study]);
    expect(run.code, run.stderr).toBe(0);
    expect(await statsCoder(study)).toBe("rules");
  }, 120_000);

  // A misspelt or not yet imported analysisCoder: colloquy compare and stats refuse it as
  // colloquy study does, rather than analysing another coder's codes unsaid.
  it("colloquy compare and stats without --coder refuse an analysisCoder that has no codes", async () => {
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-analysed-")), "s");
    expect((await runCli(["import", chatLog, "--study", study, "--code-column", "ipa_code=alice", "--codebook", "bales-ipa"])).code).toBe(0);
    expect((await runCli(["code", study, "--codebook", "bales-ipa"])).code).toBe(0);
    await setAnalysisCoder(study, "human:Alice");
    for (const command of ["compare", "stats"]) {
      const run = await runCli([command, study, "--codebook", "bales-ipa"]);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr).toContain('codebooks[0].analysisCoder: human:Alice has no codes for "bales-ipa" (coders with codes: human:alice, rules)');
    }
    expect((await runCli(["compare", study, "--codebook", "bales-ipa", "--coder", "rules"])).code).toBe(0);
  }, 120_000);
});
