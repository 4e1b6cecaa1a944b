import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../support/cli.js";

const chatLog = fileURLToPath(new URL("../../fixtures/transcripts/csv/chat-log.csv", import.meta.url));

// A study whose every turn a person coded: the uncertain sample has nothing left to offer, and
// says so (it said "ask for 0 or fewer", which read as a wrong --n to correct).
describe("sample --strategy uncertain with every turn coded by a person", () => {
  it("says none is left, not to ask for 0 turns", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-none-left-"));
    const csv = join(dir, "all-coded.csv");
    // The fixture's last turn carries "Cheers", no Bales code: given one, alice coded every turn.
    await writeFile(csv, (await readFile(chatLog, "utf8")).replace(",Great,Cheers,", ",Great,1,"));
    const study = join(dir, "s");
    expect((await runCli(["import", csv, "--study", study, "--code-column", "ipa_code=alice", "--codebook", "bales-ipa"])).code).toBe(0);
    const code = await runCli(["code", study, "--codebook", "bales-ipa", "--coder", "learned", "--train", "human:alice", "--allow-below-floor"]);
    expect(code.code, code.stderr).toBe(0);
    const run = await runCli(["sample", study, "--codebook", "bales-ipa", "--strategy", "uncertain", "--n", "1", "--out", join(dir, "next.csv")]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("every turn of bales-ipa that learned coded has a person's code already, so none is left to sample");
    expect(run.stderr).not.toContain("ask for 0");
  }, 60_000);
});
