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
    expect(known.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["Ana Müller", "Hi 👋🏽 team"],
      ["GPT", "Two lines:\nNote: this stays mine"],
      ["Ana Müller", "ok"],
    ]);
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

/** Every non-blank line's words are in some turn (a speaker line's after its label). */
function keepsEveryWord(text: string, turns: { text: string }[]) {
  const all = turns.map((t) => t.text).join("\n");
  for (const line of text.split(/\r?\n/).filter((l) => l.trim() !== "")) expect(all.includes(line) || all.includes(line.replace(/^[^:]+: /, ""))).toBe(true);
}

describe("a foreign text source is never cut short", () => {
  it("reads prose with one 'Note:' line as paragraphs, not as one turn by 'Note' that drops what came before", () => {
    const text = "The interviewer explained the study.\nWe all agreed to take part.\n\nNote: the recorder was on.\nLater paragraph about the plan.";
    const result = segmentText(text);
    expect(result).toMatchObject({ bySpeaker: false, unattributed: 0, labelLike: 1 });
    expect(result.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["", "The interviewer explained the study.\nWe all agreed to take part."],
      ["", "Note: the recorder was on.\nLater paragraph about the plan."],
    ]);
    expect(result.turns.map((t) => slice(text, t.start, t.end))).toEqual(result.turns.map((t) => t.text));
    keepsEveryWord(text, result.turns);
  });

  it("keeps the paragraphs before the first speaker line as turns of no speaker, at their own offsets", () => {
    const text = "Interview 3 — café 👋🏽\r\nRecorded in Leeds.\r\n\r\nIntro paragraph.\r\n\r\nAna: hi there\r\nBen: hello\r\nAna: bye";
    const result = segmentText(text);
    expect(result).toMatchObject({ bySpeaker: true, unattributed: 2, labelLike: 0 });
    expect(result.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["", "Interview 3 — café 👋🏽\nRecorded in Leeds."],
      ["", "Intro paragraph."],
      ["Ana", "hi there"],
      ["Ben", "hello"],
      ["Ana", "bye"],
    ]);
    expect(result.turns.map((t) => slice(text, t.start, t.end).replace(/\r\n/g, "\n"))).toEqual(result.turns.map((t) => t.text));
    expect(result.turns[2].lineStart).toBe(codePoints("Interview 3 — café 👋🏽\r\nRecorded in Leeds.\r\n\r\nIntro paragraph.\r\n\r\n"));
    keepsEveryWord(text, result.turns);
  });

  it("reads a Q/A interview whose answers run over several paragraphs as speaker turns (its labels recur)", () => {
    const text = "Q: How did it go?\nA: First part.\n\nSecond part.\n\nThird part.\n\nQ: Why?\nA: Because.\n\nMore.\n\nEven more.";
    const result = segmentText(text);
    expect(result.bySpeaker).toBe(true);
    expect(result.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["Q", "How did it go?"],
      ["A", "First part.\n\nSecond part.\n\nThird part."],
      ["Q", "Why?"],
      ["A", "Because.\n\nMore.\n\nEven more."],
    ]);
    expect(result.turns.map((t) => slice(text, t.start, t.end))).toEqual(result.turns.map((t) => t.text));
  });

  it("does not take two different one-off labels in prose for speakers", () => {
    const text = "Para one.\n\nPara two.\n\nNote: recorder on.\n\nPara four.\n\nUpdate: moved rooms.\n\nPara six.";
    const result = segmentText(text);
    expect(result).toMatchObject({ bySpeaker: false, labelLike: 2 });
    expect(result.turns).toHaveLength(6);
    keepsEveryWord(text, result.turns);
  });
});
