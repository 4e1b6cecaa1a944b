import { describe, expect, it } from "vitest";
import fc from "fast-check";
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

  it("names every session a JSON line names, however its ids are escaped and its lines spaced (checked against a regular expression over the text)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-scan-"));
    const path = join(dir, "codes.jsonl");
    const reference = (text: string) =>
      [
        ...new Set(
          [...text.matchAll(/"session"[ \t\n\r]*:[ \t\n\r]*("(?:[^"\\\n]|\\.)*")/g)].flatMap((m) => {
            try {
              return [JSON.parse(m[1]) as string];
            } catch {
              return [];
            }
          }),
        ),
      ].sort();
    const record = fc.record({ session: fc.oneof(fc.string(), fc.constantFrom("s1", "s2", 'a"b', "a\\b", "é\u2028")), turn: fc.string() });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(record, fc.constantFrom(0, 1, 2)), { maxLength: 12 }), fc.string(), async (records, tail) => {
        const text = records.map(([r, spacing]) => (spacing === 0 ? JSON.stringify(r) : JSON.stringify(r, null, spacing))).join("\n") + "\n" + tail;
        await writeFile(path, text);
        const found = await sessionsInCodesFile(path);
        expect(found).toEqual(reference(text));
        for (const [r] of records) expect(found).toContain(r.session);
      }),
    );
  });
});
