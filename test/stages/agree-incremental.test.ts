import { describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPipeline } from "../../src/pipeline/run.js";
import { studyStages } from "../../src/pipeline/stages.js";
import { memoryReporter } from "../../src/util/reporter.js";
import { openStudy } from "../../src/stages/context.js";
import { runAgree } from "../../src/stages/agree.js";

/**
 * Issue 11: the agree stage aligns each session once and keeps the parts and the statistics in
 * .cache/memo. After a session only a machine coder coded is added, the statistics are reused;
 * what the stage writes must be exactly what a run from scratch (no .cache) writes.
 */

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

async function demoCopy(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-agree-")), "demo");
  await cp(demo, dir, { recursive: true });
  return dir;
}

/** Run the code and agree stages; the agree stage's log lines. */
async function codeAndAgree(dir: string): Promise<string[]> {
  const reporter = memoryReporter();
  const run = await runPipeline(dir, studyStages, { only: ["code", "agree"] }, reporter);
  expect(run.stages.find((s) => s.name === "agree")?.status).toBe("ran");
  return reporter.lines.filter((line) => line.startsWith("agree:"));
}

/** The agreement files, with what differs between two folders by nature (creation times, the study's path) masked. */
async function agreementFiles(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of ["agreement-bales-ipa.json", "agreement-bales-ipa-disagreements.csv"]) {
    out[name] = (await readFile(join(dir, "analysis", name), "utf8")).replaceAll(dir, "<study>").replace(/"createdAt": "[^"]*"/g, '"createdAt": "<time>"');
  }
  return out;
}

/** A new session (a copy of control-1 as control-9, one turn reworded): the code stage codes it with rules only. */
async function addSession(dir: string): Promise<void> {
  const session = JSON.parse(await readFile(join(dir, "sessions", "control-1.json"), "utf8"));
  session.id = "control-9";
  session.metadata.run = "9";
  session.turns[2].text = "A new session's own words, never coded by a human.";
  await writeFile(join(dir, "sessions", "control-9.json"), JSON.stringify(session));
}

/** Give human:coder-a's first record of critical-1 another code than the one it has. */
async function changeHumanCode(dir: string): Promise<void> {
  const path = join(dir, "codes", "bales-ipa", "human%3Acoder-a.jsonl");
  const lines = (await readFile(path, "utf8")).split("\n");
  const at = lines.findIndex((line) => line.includes('"session":"critical-1"'));
  const record = JSON.parse(lines[at]);
  record.codes = [record.codes[0] === "shows-tension" ? "agrees" : "shows-tension"];
  lines[at] = JSON.stringify(record);
  await writeFile(path, lines.join("\n"));
}

async function fromScratch(change: (dir: string) => Promise<void>): Promise<Record<string, string>> {
  const dir = await demoCopy();
  await change(dir);
  await rm(join(dir, ".cache"), { recursive: true, force: true });
  await codeAndAgree(dir);
  return agreementFiles(dir);
}

describe("agree stage, per session", () => {
  it("after a session coded only by the machine is added, reuses the statistics and writes what a run from scratch writes", async () => {
    const dir = await demoCopy();
    expect((await codeAndAgree(dir)).join("\n")).not.toContain("reused");
    const before = JSON.parse(await readFile(join(dir, "analysis", "agreement-bales-ipa.json"), "utf8"));

    await addSession(dir);
    const log = (await codeAndAgree(dir)).join("\n");
    // One session aligned (the new one), the others and the statistics (bootstrap included) reused.
    expect(log).toMatch(/\(1 analysed, \d+ reused from \.cache\/memo\); statistics reused/);
    const after = JSON.parse(await readFile(join(dir, "analysis", "agreement-bales-ipa.json"), "utf8"));
    expect(after.variables).toEqual(before.variables);
    expect(after.coverage.unitsCodedByAny).toBeGreaterThan(before.coverage.unitsCodedByAny);
    expect(after.coverage.perCoder.rules).toBeGreaterThan(before.coverage.perCoder.rules);

    expect(await agreementFiles(dir)).toEqual(await fromScratch(addSession));
  }, 240_000);

  it("with the code digests kept, a new session's records are the only ones parsed: no coder's whole file is read", async () => {
    const dir = await demoCopy();
    await codeAndAgree(dir);
    await addSession(dir);
    await runPipeline(dir, studyStages, { only: ["code"] }, memoryReporter());
    const context = await openStudy(dir);
    let wholeFiles = 0;
    const codes = context.codes.bind(context);
    context.codes = (codebook, coder) => (wholeFiles++, codes(codebook, coder));
    // What the digests agree used had to parse: only what the code stage appended.
    const parsed: string[] = [];
    const digests = context.codeDigests!.bind(context);
    context.codeDigests = async (codebook, coder) => {
      const d = await digests(codebook, coder);
      parsed.push(`${coder}: ${d.parsed}`);
      return d;
    };
    const reporter = memoryReporter();
    await runAgree(context, { codebook: "bales-ipa", coders: ["rules", "human:coder-a", "human:coder-b"] }, reporter);
    expect(wholeFiles).toBe(0);
    expect(parsed.sort()).toEqual(["human:coder-a: appended", "human:coder-b: appended", "rules: appended"]);
    expect(reporter.lines.join("\n")).toMatch(/\(1 analysed, \d+ reused from \.cache\/memo\)/);
  }, 240_000);

  it("a changed human code changes the statistics, as in a run from scratch", async () => {
    const dir = await demoCopy();
    await codeAndAgree(dir);
    const before = JSON.parse(await readFile(join(dir, "analysis", "agreement-bales-ipa.json"), "utf8"));

    await changeHumanCode(dir);
    const log = (await codeAndAgree(dir)).join("\n");
    expect(log).toMatch(/\(1 analysed, \d+ reused from \.cache\/memo\)/);
    expect(log).not.toContain("statistics reused");
    const after = JSON.parse(await readFile(join(dir, "analysis", "agreement-bales-ipa.json"), "utf8"));
    expect(after.variables[0].pairs[0].kappa).not.toBe(before.variables[0].pairs[0].kappa);
    expect(after.variables[0].pairs[0].kappaCI).not.toEqual(before.variables[0].pairs[0].kappaCI);

    expect(await agreementFiles(dir)).toEqual(await fromScratch(changeHumanCode));
  }, 240_000);

  it("a run with the memo in place and nothing changed writes the same files", async () => {
    const dir = await demoCopy();
    await codeAndAgree(dir);
    const first = await agreementFiles(dir);
    const reporter = memoryReporter();
    await runPipeline(dir, studyStages, { only: ["agree"], force: ["agree"] }, reporter);
    expect(reporter.lines.join("\n")).toMatch(/\(0 analysed, \d+ reused from \.cache\/memo\); statistics reused/);
    expect(await agreementFiles(dir)).toEqual(first);
  }, 240_000);
});
