import { describe, expect, it } from "vitest";
import { codePoints, renderSession, segmentText } from "../../src/qda/text.js";
import { sessionSchema } from "../../src/transcript/schema.js";

const session = sessionSchema.parse({
  id: "s1",
  participants: [
    { id: "ana", name: "Ana Müller", kind: "human" },
    { id: "gpt", name: "GPT", kind: "ai" },
  ],
  turns: [
    { id: "t0000", index: 0, speaker: "ana", text: "Hi 👋🏽 team" },
    { id: "t0001", index: 1, speaker: "gpt", text: "Two lines:\nNote: this stays mine" },
    { id: "t0002", index: 2, speaker: "ana", text: "ok" },
  ],
});

/** The code points [start, end) of a text, as REFI-QDA counts them. */
const slice = (text: string, start: number, end: number) => Array.from(text).slice(start, end).join("");

describe("sessions as REFI-QDA text sources", () => {
  it("places every turn's words at code-point offsets (an emoji with a skin tone is two characters, not four)", () => {
    const { text, spans } = renderSession(session);
    expect(text).toBe("Ana Müller: Hi 👋🏽 team\nGPT: Two lines:\nNote: this stays mine\nAna Müller: ok\n");
    expect(codePoints("👋🏽")).toBe(2);
    expect(spans.map((s) => slice(text, s.start, s.end))).toEqual(session.turns.map((t) => t.text));
    expect(spans[1]).toMatchObject({ lineStart: codePoints("Ana Müller: Hi 👋🏽 team\n") });
  });

  it("counts a CRLF line break as two characters, as MAXQDA does", () => {
    const { text, spans } = renderSession(session, "\r\n");
    expect(text).toContain("Two lines:\r\nNote:");
    expect(spans.map((s) => slice(text, s.start, s.end).replace(/\r\n/g, "\n"))).toEqual(session.turns.map((t) => t.text));
    // Three line breaks come before the last turn (two between turns, one inside the second).
    expect(spans[2].start - renderSession(session).spans[2].start).toBe(3);
  });

  it("reads speaker lines back, keeping a turn's own 'Note:' line when the speakers are known", () => {
    const { text } = renderSession(session, "\r\n");
    const known = segmentText(text, new Set(["Ana Müller", "GPT"]));
    expect(known.turns.map((t) => [t.speaker, t.text])).toEqual([["Ana Müller", "Hi 👋🏽 team"], ["GPT", "Two lines:\nNote: this stays mine"], ["Ana Müller", "ok"]]);
    expect(known.turns.map((t) => slice(text, t.start, t.end).replace(/\r\n/g, "\n"))).toEqual(known.turns.map((t) => t.text));
    // Without the list, "Note:" reads as a speaker: the reason Colloquy exports list the speakers.
    expect(segmentText(text).turns.map((t) => t.speaker)).toEqual(["Ana Müller", "GPT", "Note", "Ana Müller"]);
  });

  it("makes one turn per paragraph when no line names a speaker, and never reads a clock time as one", () => {
    const text = "Interview 3\n\nWe met at 10:30 and talked.\nIt went well.\n\n\nSecond paragraph.";
    const { turns, bySpeaker } = segmentText(text);
    expect(bySpeaker).toBe(false);
    expect(turns.map((t) => t.text)).toEqual(["Interview 3", "We met at 10:30 and talked.\nIt went well.", "Second paragraph."]);
    expect(turns.map((t) => slice(text, t.start, t.end))).toEqual(turns.map((t) => t.text));
    expect(segmentText("10: ten o'clock\n12: noon").bySpeaker).toBe(false);
  });
});
