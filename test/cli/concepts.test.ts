import { describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../support/cli.js";
import { gardenLines, makeSession, makeStudy } from "../analysis/topics/fixture.js";
import type { ConceptsReport } from "../../src/analysis/concepts/report.js";

describe("colloquy concepts", () => {
  it("writes analysis/concepts.json and .csv with per-condition comparisons", async () => {
    const study = await makeStudy([
      makeSession("a1", "A", gardenLines),
      makeSession("b1", "B", gardenLines.slice(0, 4)),
      makeSession(
        "b2",
        "B",
        gardenLines.map(([s, t]) => [s, t] as [string, string]),
      ),
    ]);
    const lexicon = join(study, "lexicon.txt");
    await writeFile(lexicon, "[terms]\nsolar pump\n[ignore]\nherb\n");
    const run = await runCli(["concepts", study, "--lexicon", lexicon, "--rate", "active"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Concept rate by condition (between-subject, unit: session; default: each session is one observation");
    expect(run.stdout).toMatch(/\d+ people took part in more than one condition/);
    expect(run.stdout).toMatch(/B vs A: permutation test of the difference in means \(two-sided\) \(n = 2\): not tested: 1 vs 1 sessions: too few to test/);
    expect(run.stdout).toContain("no turn times");
    const report = JSON.parse(await readFile(join(study, "analysis", "concepts.json"), "utf8")) as ConceptsReport;
    expect(report.provenance).toMatchObject({ tool: "colloquy", rateBasis: "active", lexicon: { source: lexicon, terms: 1, ignore: 1 } });
    const a1 = report.sessions.find((s) => s.session === "a1")!;
    const alice = a1.participants.find((p) => p.participant === "alice")!;
    expect(a1.turns.find((t) => t.turn === "t0005")!.concepts).toEqual(["solar pump", "rain barrel"]);
    expect(a1.turns.find((t) => t.turn === "t0003")!.concepts).toEqual(["child", "tomato", "bed"]);
    expect(alice.totalConcepts).toBe(7);
    const rate = report.conditions.find((c) => c.measure === "conceptRate")!;
    // n counts units (sessions, the default): B has one; missing counts the values without times.
    expect(rate.byCondition.B).toMatchObject({ n: 1, missing: 2 });
    const csv = await readFile(join(study, "analysis", "concepts.csv"), "utf8");
    expect(csv.trim().split("\n")).toHaveLength(1 + 6);

    const json = await runCli(["concepts", study, "--json", "--speakers", "Alice"]);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as ConceptsReport;
    expect(parsed.sessions[0].participants.map((p) => p.name)).toEqual(["Alice"]);
  });

  it("fails with a clear message on a bad speaker, rate basis or lexicon", async () => {
    const study = await makeStudy([makeSession("a1", "A", gardenLines)]);
    const who = await runCli(["concepts", study, "--speakers", "Zed"]);
    expect(who.code).not.toBe(0);
    expect(who.stderr).toMatch(/no participant named "Zed"; known: Agent, Alice, Bob/);
    const rate = await runCli(["concepts", study, "--rate", "hourly"]);
    expect(rate.stderr).toMatch(/--rate: "hourly" is not "session" or "active"/);
    const lexicon = join(study, "bad.txt");
    await writeFile(lexicon, "[terms]\nok\n[nope]\n");
    const lex = await runCli(["concepts", study, "--lexicon", lexicon]);
    expect(lex.stderr).toContain(`${lexicon}:3: unknown section [nope]`);
  });
});
