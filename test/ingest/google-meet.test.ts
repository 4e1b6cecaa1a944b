import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { googleMeetImporter, parseGoogleMeet } from "../../src/ingest/formats/google-meet.js";
import { fileInput } from "../../src/ingest/input.js";
import { detectFormat } from "../../src/ingest/registry.js";

const dir = fileURLToPath(new URL("../../fixtures/transcripts/google-meet/", import.meta.url));
const older = `${dir}older-attendees-and-name-lines.txt`;
const newer = `${dir}newer-name-then-time-crlf.txt`;

describe("Google Meet transcript importer", () => {
  it("is detected from its headings and time lines, ahead of plain text", async () => {
    for (const path of [older, newer]) expect(detectFormat("meeting.txt", await readFile(path, "utf8")).name).toBe("google-meet");
    expect(googleMeetImporter.detect("chat.txt", "Alice: hi\nBob: hello\nAlice: bye\n")).toBe(0);
  });

  it("reads the older shape: attendees start turns, a time line dates the turn after it, other lines continue the turn", async () => {
    const result = await googleMeetImporter.parse(fileInput(older), {});
    const session = result.sessions[0]!;
    expect(session.title).toBe("Design review with the agent (2024-03-05 10:02 GMT+1) - Transcript");
    expect(session.metadata?.attendees).toEqual(["Amara Okafor", "Jonas Berg", "Planner Bot"]);
    expect(session.turns.map((t) => [t.speaker, t.start, t.text])).toEqual([
      ["amara-okafor", 0, "Okay, the bot is in the call. Can everyone hear it?"],
      ["planner-bot", undefined, "Yes. I have the agenda from the invite."],
      ["jonas-berg", undefined, "Let's start with the budget.\nNote: the bot only sees the first page."],
      ["amara-okafor", undefined, "Agreed."],
      ["planner-bot", 300, "Summary so far: budget first,\nthen the timeline."],
      ["jonas-berg", undefined, "Über-good."],
    ]);
    expect(session.metadata?.footer).toMatch(/^Meeting ended after 00:06:41 👋\nThis editable transcript/);
    expect(result.warnings).toEqual([expect.stringMatching(/older-attendees-and-name-lines\.txt:11: "Note" is not in the Attendees list/)]);
  });

  it("reads the newer shape: a name line, its time line, then the words", async () => {
    const session = (await googleMeetImporter.parse(fileInput(newer), {})).sessions[0]!;
    expect(session.turns.map((t) => [t.speaker, t.start, t.text])).toEqual([
      ["lena-fischer", 3, "Morning. Yesterday I fixed the login page.\nToday: the export."],
      ["sam-lee", 21, "Nothing from me."],
      ["lena-fischer", 62, "Thanks, that's all."],
    ]);
  });

  it("names the line of words that have no speaker, and refuses a file with no time line", async () => {
    await expect(googleMeetImporter.parse(fileInput(`${dir}bad-words-before-any-speaker.txt`), {})).rejects.toThrow(
      /bad-words-before-any-speaker\.txt:6: words before any speaker: "these words have no speaker"/,
    );
    expect(() => parseGoogleMeet("x.txt", "Call - Transcript\nAttendees\nAna\nTranscript\nAna: hi\n")).toThrow(/x\.txt:1: no `00:00:00` time line/);
  });

  it("without an Attendees list, a label that looks like a name starts a turn", () => {
    const session = parseGoogleMeet("x.txt", "Call - Transcript\nTranscript\n00:00:00\nAna Ruiz: hi\nBen: hello, how are you\n").sessions[0]!;
    expect(session.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["ana-ruiz", "hi"],
      ["ben", "hello, how are you"],
    ]);
  });
});
