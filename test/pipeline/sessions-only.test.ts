import { describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePipelineStudy } from "../../bench/support/pipeline-study.js";
import { codeValue } from "../../src/coding/records.js";
import { sessionsOnly } from "../../src/pipeline/code-inputs.js";
import { openStudy } from "../../src/stages/context.js";
import { selectedContext } from "../../src/stages/selection.js";

describe("the study seen as some of its sessions (sessionsOnly, selectedContext)", () => {
  it("gives only these sessions' code values and cuts, as it gives only their records", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-part-"));
    try {
      // Every session human-coded, so any session chosen has codes.
      await writePipelineStudy(dir, 500, 7, 1);
      const study = await openStudy(dir);
      const all = await study.codeValues("bales-ipa", "human:alice");
      const first = all[0].session;
      const part = sessionsOnly(study, [first], { coded: {}, loaded: new Set() });
      const values = await part.codeValues("bales-ipa", "human:alice");
      expect(new Set(all.map((v) => v.session)).size).toBeGreaterThan(1);
      expect(values.length).toBeGreaterThan(0);
      expect(values.every((v) => v.session === first)).toBe(true);
      expect(values).toEqual((await part.codes("bales-ipa", "human:alice")).map(codeValue));
      // The cut too, and its summary counts these sessions' records only.
      const cut = await part.codeCut("bales-ipa", "human:alice");
      expect(cut.values).toEqual(values);
      expect([...cut.summary.versions.values()].reduce((a, b) => a + b, 0)).toBe(values.length);
      // A selection of the study (--sessions) the same way.
      const selected = selectedContext(study, { sessions: [first] });
      const selectedCut = await selected.codeCut("bales-ipa", "human:alice");
      expect(selectedCut.values).toEqual(await selected.codeValues("bales-ipa", "human:alice"));
      expect(selectedCut.values.every((v) => v.session === first)).toBe(true);
      expect([...selectedCut.summary.versions.values()].reduce((a, b) => a + b, 0)).toBe(selectedCut.values.length);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
