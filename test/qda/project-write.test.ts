import { describe, expect, it } from "vitest";
import { buildProject } from "../../src/qda/project-write.js";
import { segmentText } from "../../src/qda/text.js";
import { sessionSchema } from "../../src/transcript/schema.js";

const session = sessionSchema.parse({
  id: "s1",
  participants: [
    { id: "ana", name: "Ana", kind: "human" },
    { id: "bo", name: "Bo", kind: "human" },
  ],
  turns: [
    { id: "t0000", index: 0, speaker: "ana", text: "   indented, on purpose" },
    { id: "t0001", index: 1, speaker: "bo", text: "She said:\nAna: I never said that" },
    { id: "t0002", index: 2, speaker: "ana", text: "" },
  ],
});

describe("buildProject", () => {
  it("keeps a turn's own leading spaces (only one space after the colon is the label's) and an empty turn", () => {
    const plain = { ...session, turns: [session.turns[0], { ...session.turns[2], index: 1 }] };
    const { sources } = buildProject({ name: "p", sessions: [plain], codebooks: [], records: [], eol: "\n", createdAt: "2026-01-01T00:00:00Z" });
    const [text] = [...sources.values()];
    const { turns } = segmentText(text, new Set(["Ana", "Bo"]));
    expect(turns.map((t) => t.text)).toEqual(["   indented, on purpose", ""]);
  });

  it("warns when a line inside a turn starts like a speaker's line", () => {
    const { warnings } = buildProject({ name: "p", sessions: [session], codebooks: [], records: [], eol: "\n", createdAt: "2026-01-01T00:00:00Z" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^s1\/t0001: a line of this turn starts with a speaker's name/);
  });
});
