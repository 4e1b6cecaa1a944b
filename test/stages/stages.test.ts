import { describe, expect, it } from "vitest";
import { cp, mkdtemp } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStudy, runAgree, runBuild, runCode, runCompare, runImport, runStats, silentEffects, readArtifact } from "../../src/index.js";
import { compareFiles } from "../../src/analysis/compare/descriptor.js";
import { statsFiles } from "../../src/analysis/stats/descriptor.js";

const demo = join(import.meta.dirname, "../../fixtures/demo-study");

describe("stages as library functions", () => {
  it("run the study from a script with typed summaries, sharing one load of the data", async () => {
    const dir = join(await mkdtemp(join(tmpdir(), "colloquy-stages-")), "demo");
    await cp(demo, dir, { recursive: true });
    const study = await openStudy(dir);

    const imported = await runImport(study, { paths: [join(dir, "inbox")], pathPattern: study.config.import.pathPattern }, silentEffects);
    expect(imported.failed).toBe(0);
    expect(imported.sessions).toBeGreaterThan(0);

    // Loaded once and shared until a stage writes.
    const sessions = await study.sessions();
    expect(await study.sessions()).toBe(sessions);
    expect(sessions.length).toBeGreaterThanOrEqual(imported.sessions);

    const coded = await runCode(study, { codebook: "bales-ipa" }, silentEffects);
    expect(coded.jobs).toHaveLength(1);
    expect(coded.jobs[0]).toMatchObject({ codebook: "bales-ipa", coder: "rules", failed: 0 });
    expect(coded.jobs[0].coded).toBeGreaterThan(0);
    // The coding wrote records: the context reads them anew, and a second run codes nothing.
    const records = await study.codes("bales-ipa", "rules");
    expect(records.length).toBe(coded.jobs[0].coded + coded.jobs[0].alreadyCoded);
    const again = await runCode(study, { codebook: "bales-ipa" }, silentEffects);
    expect(again.jobs[0].coded).toBe(0);

    const humans = (await study.coders())["bales-ipa"]!.filter((c) => c.startsWith("human:"));
    const agreement = await runAgree(study, { codebook: "bales-ipa", coders: ["rules", humans[0]], bootstrap: 0 }, silentEffects);
    expect(agreement.report.coders).toEqual(["rules", humans[0]]);
    expect(existsSync(agreement.files.json)).toBe(true);

    const compared = await runCompare(study, { codebook: "bales-ipa", coder: "rules" }, silentEffects);
    expect(compared.files.json).toBe(compareFiles.compare.path(dir, "bales-ipa"));
    const stats = await runStats(study, { codebook: "bales-ipa", coder: "rules" }, silentEffects);
    // What the stage returns is what the registry reads back, validated.
    const stored = await readArtifact(statsFiles.stats, dir);
    expect(stored.sessions.length).toBe(stats.report.sessions.length);

    const site = await runBuild(study, {}, silentEffects);
    expect(existsSync(join(site.dir, "index.html"))).toBe(true);
  }, 120_000);
});
