import { describe, expect, it } from "vitest";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { readSessionFile, writeSessionFile } from "../../src/transcript/io.js";
import { validateSession } from "../../src/transcript/validate.js";
import { turnTypes, type Session } from "../../src/transcript/schema.js";
import { turnId } from "../../src/transcript/ids.js";

const sample: Session = {
  schemaVersion: 1,
  id: "control-run-1",
  title: "Control, run 1",
  metadata: { condition: "control", run: "1", task: "game", source: { file: "control/1/run-1.md", format: "slack-paste" }, notes: "prompt v2" },
  participants: [
    { id: "alice", name: "Alice Smith", role: "Client", kind: "human" },
    { id: "ceo", name: "CEO", role: "Chief Executive", kind: "ai", persona: "You lead the team." },
  ],
  turns: [
    { id: "t0000", index: 0, speaker: "alice", text: "  Hi team!\n\n<b>not html</b>  ", start: 0, timestamp: "6:35 PM", type: "message" },
    { id: "t0001", index: 1, speaker: "ceo", text: "Hello Alice 👋", start: 60, end: 75, addressees: ["alice"], type: "message", metadata: { thread: "1.2" } },
  ],
};

describe("session model", () => {
  it("writes then reads a session losslessly, whitespace and unicode included", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-"));
    const path = join(dir, "s.json");
    await writeSessionFile(path, sample);
    expect(await readSessionFile(path)).toEqual(sample);
    expect(await readFile(path, "utf8")).toContain("Hello Alice 👋");
  });

  it("round-trips arbitrary texts and metadata", async () => {
    const dir = await mkdtemp(join(tmpdir(), "colloquy-"));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ text: fc.string({ unit: "grapheme" }), type: fc.constantFrom(...turnTypes), extra: fc.dictionary(fc.string(), fc.jsonValue()) }), {
          maxLength: 8,
        }),
        async (turns) => {
          const session: Session = {
            ...sample,
            turns: turns.map((t, i) => ({ id: turnId(i), index: i, speaker: "alice", text: t.text, type: t.type, metadata: { extra: t.extra } })),
          };
          const path = join(dir, "p.json");
          await writeSessionFile(path, session);
          expect(await readSessionFile(path)).toEqual(JSON.parse(JSON.stringify(session)));
        },
      ),
      { numRuns: 50 },
    );
  });

  it("names the field when a session is invalid", () => {
    const bad = { ...sample, turns: [{ ...sample.turns[0], speaker: "nobody" }] };
    expect(() => validateSession(bad, "x.json")).toThrow(/x\.json: turns\[0\]\.speaker "nobody" is not a participant id/);
    expect(() => validateSession({ ...sample, id: "bad id!" }, "y.json")).toThrow(/y\.json: invalid session: id:/);
    expect(() => validateSession({ ...sample, turns: [{ ...sample.turns[1], index: 0 }, sample.turns[1]] }, "z.json")).toThrow(/used twice/);
  });
});
