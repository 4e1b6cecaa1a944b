import { describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePipelineStudy } from "../../bench/support/pipeline-study.js";
import { codeValue } from "../../src/coding/records.js";
import { sessionsOnly } from "../../src/pipeline/code-inputs.js";
import { openStudy } from "../../src/stages/context.js";

describe("the study seen as some of its sessions (sessionsOnly)", () => {
  it("gives only these sessions' code values, as it gives only their records", async () => {
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
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
