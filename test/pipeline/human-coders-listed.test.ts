import { describe, expect, it } from "vitest";
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "../support/cli.js";

const compact = fileURLToPath(new URL("../../fixtures/transcripts/slack-paste/edge/compact.md", import.meta.url));
const chatLog = fileURLToPath(new URL("../../fixtures/transcripts/csv/chat-log.csv", import.meta.url));
const humanCoders = async (study: string) => (JSON.parse(await readFile(join(study, "colloquy.json"), "utf8")) as { humanCoders: string[] }).humanCoders;

// People's codes that come in with transcripts count in `colloquy study`'s agreement without a hand
// edit of colloquy.json, as those from the coding page and coding sheets do (stages/human-coders.ts).
describe("human codes brought by an import are listed under humanCoders", () => {
  it("colloquy import: a --code-column coder and transcript labels are listed, and said so once", async () => {
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-listed-")), "s");
    const first = await runCli(["import", chatLog, "--study", study, "--code-column", "ipa_code=alice", "--codebook", "bales-ipa"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout + first.stderr).toContain('human:alice is now listed under "humanCoders" in colloquy.json');
    expect(await humanCoders(study)).toEqual(["human:alice"]);
    const again = await runCli(["import", chatLog, "--study", study, "--code-column", "ipa_code=alice", "--codebook", "bales-ipa"]);
    expect(again.stdout + again.stderr).not.toContain("is now listed");
    await runCli(["import", compact, "--study", study, "--codebook", "bales-ipa"]);
    expect(await humanCoders(study)).toEqual(["human:alice", "human:transcript"]);
  });

  it("colloquy import of several QDA projects: a project's listed coders are said even when a later project fails", async () => {
    const root = await mkdtemp(join(tmpdir(), "colloquy-listed-"));
    const [source, study] = [join(root, "source"), join(root, "s")];
    expect((await runCli(["import", chatLog, "--study", source, "--code-column", "ipa_code=alice", "--codebook", "bales-ipa"])).code).toBe(0);
    const project = join(root, "coded.qdpx");
    expect((await runCli(["export", source, "--format", "qdpx", "--out", project])).code).toBe(0);
    const broken = join(root, "broken.qdpx");
    await writeFile(broken, "not a zip");
    const run = await runCli(["import", project, broken, "--study", study]);
    expect(run.code).toBe(1);
    expect(await humanCoders(study)).toEqual(["human:alice"]);
    expect(run.stdout).toContain('human:alice is now listed under "humanCoders" in colloquy.json');
  });

  it("colloquy study: labels in an inbox transcript are compared with the machine coder in the same run", async () => {
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-listed-")), "s");
    expect((await runCli(["init", study])).code).toBe(0);
    await mkdir(join(study, "inbox"), { recursive: true });
    await copyFile(compact, join(study, "inbox", "compact.md"));
    const run = await runCli(["study", study, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const agree = (JSON.parse(run.stdout).stages as { name: string; status: string }[]).find((s) => s.name === "agree");
    expect(agree?.status).toBe("ran");
    expect(await humanCoders(study)).toEqual(["human:transcript"]);
    expect(await readFile(join(study, "analysis", "agreement-bales-ipa.json"), "utf8")).toContain("human:transcript");
    // The closing advice reads the config as it is now too: no "have people code a sample".
    expect(run.stdout + run.stderr).not.toContain("only one coder per codebook");
    // Nothing changed: the second run skips every stage (the listing is not a change to redo).
    const second = await runCli(["study", study, "--json"]);
    expect((JSON.parse(second.stdout).stages as { status: string }[]).every((s) => s.status === "skipped")).toBe(true);
  }, 120_000);
});
