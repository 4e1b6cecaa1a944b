import { describe, expect, it } from "vitest";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sessionsInCodesFile } from "../../src/pipeline/code-inputs.js";

describe("sessionsInCodesFile (which sessions a codes file names, without parsing its records)", () => {
  it("finds the session of every code line and full record, escaped ids included, and none in a torn line or a missing file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-scan-"));
    const path = join(dir, "rules.jsonl");
    const lines = [
      { run: { codebook: "bales-ipa", codebookVersion: "1.0.0", coder: "rules", createdAt: "2026-11-23T18:25:50.757Z", provenance: {} } },
      { session: "s1", turn: "t0000", codes: ["agrees"] },
      { session: 'odd "quoted" \\ id é', turn: "t0001", codes: ["agrees"] },
      { end: 2 },
      { session: "full-record", turn: "t1", codebook: "bales-ipa", coder: "rules", codebookVersion: "1.0.0", createdAt: "x", provenance: {} },
    ];
    await writeFile(path, lines.map((l) => JSON.stringify(l)).join("\n") + '\n{"session":"torn-sess');
    expect(await sessionsInCodesFile(path)).toEqual(["full-record", 'odd "quoted" \\ id é', "s1"].sort());
    expect(await sessionsInCodesFile(join(dir, "missing.jsonl"))).toEqual([]);
  });
});
