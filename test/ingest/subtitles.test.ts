import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseSubtitles, srtImporter, vttImporter } from "../../src/ingest/formats/subtitles.js";
import { ImportError } from "../../src/ingest/types.js";
import { assertNothingDropped } from "../support/coverage.js";

const read = (name: string) => readFile(new URL(`../../fixtures/transcripts/${name}`, import.meta.url), "utf8");
/** Cue numbers and timing lines are markup (kept as turn metadata and start/end). */
const cueMarkup = [/^\d+$/, /-->/];

describe("WebVTT and SRT importers", () => {
  it("reads Teams voice tags, strips caption markup (keeping the raw cue) and keeps NOTE blocks", async () => {
    const text = await read("vtt/teams.vtt");
    const result = parseSubtitles("teams.vtt", text, "vtt");
    const s = result.sessions[0]!;
    expect(s.metadata!.notes).toEqual(["NOTE exported from Microsoft Teams"]);
    expect(s.turns.map((t) => [t.speaker, t.start, t.end, t.timestamp, t.text])).toEqual([
      ["alice-smith", 1, 4.2, "00:00:01.000", "Good morning everyone."],
      ["alice-smith", 4.5, 7, "00:00:04.500", "Let's review the agenda."],
      ["copilot", 7.1, 9.8, "00:00:07.100", "I have summarised last week's notes.\nThere are three open items."],
      ["bob-de-vries", 10, 12, "00:00:10.000", "Thanks."],
    ]);
    expect(s.turns[2]!.metadata!.raw).toBe("<v Copilot>I have summarised last week's notes.\nThere are <i>three</i> open items.</v>");
    // Voice tags are markup (the speaker is the participant); the words must all survive.
    assertNothingDropped(text.replace(/<v [^>]*>|<\/v>/g, ""), result, [...cueMarkup, /^WEBVTT$/]);
  });

  it("merges consecutive cues of one speaker with --merge-cues, keeping cue boundaries", async () => {
    const s = parseSubtitles("teams.vtt", await read("vtt/teams.vtt"), "vtt", { mergeCues: true }).sessions[0]!;
    expect(s.turns).toHaveLength(3);
    expect(s.turns[0]).toMatchObject({ text: "Good morning everyone.\nLet's review the agenda.", start: 1, end: 7 });
    expect(s.turns[0]!.metadata!.cues).toEqual([
      { start: 1, end: 4.2, offset: 0, line: 5, id: "1" },
      { start: 4.5, end: 7, offset: 23, line: 9, id: "2" },
    ]);
  });

  it("reads Zoom `Name: text` cues with CRLF line ends, keeping later colons in the text", async () => {
    const s = parseSubtitles("zoom.vtt", await read("vtt/zoom.vtt"), "vtt").sessions[0]!;
    expect(s.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["alice-smith", "Hi, can you hear me?"],
      ["bob", "Yes: loud and clear."],
      ["bob", "Shall we start?"],
    ]);
  });

  it("reads SRT with comma milliseconds", async () => {
    const text = await read("srt/meeting.srt");
    const result = parseSubtitles("meeting.srt", text, "srt", { agents: ["Agent"] });
    const s = result.sessions[0]!;
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([
      ["Alice", "human"],
      ["Agent", "ai"],
    ]);
    expect(s.turns.map((t) => [t.start, t.end, t.timestamp])).toEqual([
      [1, 3.5, "00:00:01,000"],
      [3.6, 6, "00:00:03,600"],
      [6.1, 8, "00:00:06,100"],
    ]);
  });

  it("attributes unlabelled cues to an unknown speaker and says so", () => {
    const result = parseSubtitles("x.vtt", "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\njust words\n", "vtt");
    expect(result.sessions[0]!.participants[0]!.name).toBe("Unknown speaker");
    expect(result.warnings[0]).toMatch(/1 cue\(s\) name no speaker/);
  });

  it("names the line of a broken timing, and a missing WEBVTT header", async () => {
    expect(() => parseSubtitles("bad-timing.vtt", "WEBVTT\n\n1\n00:00:01.000 -> 00:00:04.000\nHello\n", "vtt")).toThrow(/^bad-timing\.vtt:4: .* is not a cue timing line/);
    expect(() => parseSubtitles("x.vtt", "1\n00:00:01.000 --> 00:00:02.000\nhi", "vtt")).toThrow(ImportError);
    expect(() => parseSubtitles("x.srt", "", "srt")).toThrow(/no cues/);
  });

  it("detects VTT by its header and SRT by its first cue", async () => {
    expect(vttImporter.detect("x.txt", "WEBVTT\n\n")).toBeGreaterThan(0.9);
    expect(srtImporter.detect("x.srt", await read("srt/meeting.srt"))).toBeGreaterThan(0.9);
    expect(srtImporter.detect("x.txt", "Alice: hi")).toBe(0);
  });
});
