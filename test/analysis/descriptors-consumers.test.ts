// The report's loading of analysis files and `colloquy study`'s empty-view warnings iterate the
// list of analyses: a descriptor added to the list (a probe, here) is read and warned about
// without either of them naming it.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyses } from "../../src/analysis/analyses.js";
import { loadStudyData } from "../../src/report/load.js";
import { rememberedEmptyViewWarnings } from "../../src/pipeline/empty-views.js";
import { FileHasher } from "../../src/pipeline/fingerprint.js";
import { readState } from "../../src/pipeline/state.js";
import { openStudy } from "../../src/stages/context.js";
import { writeDashboardFixture } from "../../fixtures/dashboard/generate.js";
import { provenance } from "../../src/util/provenance.js";

vi.mock("../../src/analysis/analyses.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/analysis/analyses.js")>();
  const { z } = await import("zod");
  const { provenanceSchema } = await import("../../src/util/provenance-schema.js");
  const file = "probe.json";
  const result = {
    name: "probe",
    description: "a probe analysis of the test",
    writtenBy: "colloquy stats",
    folder: "analysis" as const,
    format: "json" as const,
    schema: z.object({ provenance: provenanceSchema, answer: z.number() }),
    file: () => file,
    relative: () => `analysis/${file}`,
    path: (study: string) => join(study, "analysis", file),
    match: (name: string) => (name === file ? [] : null),
  };
  const probe = {
    id: "probe",
    title: "probe numbers",
    stage: "stats",
    result,
    artifacts: [result],
    views: ["Probe view"],
    emptyWhen: () => "the probe says so.",
  };
  return { ...real, analyses: [...real.analyses, probe] };
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "colloquy-descriptors-"));
  await writeDashboardFixture(dir);
});

describe("consumers of the analysis list", () => {
  it("the probe is on the list", () => {
    expect(analyses.map((d) => d.id)).toContain("probe");
  });

  it("the report validates its result with its schema: a valid file is loaded, an invalid one is named with its analysis and stage", async () => {
    await writeFile(join(dir, "analysis", "probe.json"), JSON.stringify({ provenance: provenance({ command: "probe" }), answer: 42 }));
    const ok = await loadStudyData(dir);
    expect(ok.analysis.files.map((f) => f.file)).toContain("probe.json");
    expect(ok.warnings.filter((w) => w.includes("probe"))).toEqual([]);

    await writeFile(join(dir, "analysis", "probe.json"), JSON.stringify({ provenance: provenance({ command: "probe" }), answer: "many" }));
    const bad = await loadStudyData(dir);
    expect(bad.analysis.files.map((f) => f.file)).not.toContain("probe.json");
    expect(bad.warnings).toContainEqual(
      expect.stringMatching(/^analysis\/probe\.json: answer: .*\(probe numbers left out\); re-run `colloquy stats` to refresh it$/),
    );
    // The real analyses are still read alongside it.
    expect(bad.analysis.agreement.length).toBeGreaterThan(0);
  });

  it("the empty-view warnings ask each analysis", async () => {
    const context = await openStudy(dir);
    const warnings = await rememberedEmptyViewWarnings(context, new FileHasher(context.paths.root, {}), await readState(dir));
    expect(warnings).toContain('dashboard: "Probe view" will be empty: the probe says so.');
  });
});
