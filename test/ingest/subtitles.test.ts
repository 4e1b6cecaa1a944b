import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseCueTime, parseSubtitles, sbvImporter, srtImporter, vttImporter } from "../../src/ingest/formats/subtitles.js";
import { importFiles } from "../../src/ingest/registry.js";
import { ImportError } from "../../src/ingest/types.js";
import { assertNothingDropped } from "../support/coverage.js";
import { importFixture, importText, speakerName } from "./json/helpers.js";

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
    expect(() => parseSubtitles("bad-timing.vtt", "WEBVTT\n\n1\n00:00:01.000 -> 00:00:04.000\nHello\n", "vtt")).toThrow(
      /^bad-timing\.vtt:4: .* is not a cue timing line/,
    );
    expect(() => parseSubtitles("x.vtt", "1\n00:00:01.000 --> 00:00:02.000\nhi", "vtt")).toThrow(ImportError);
    expect(() => parseSubtitles("x.srt", "", "srt")).toThrow(/no cues/);
  });

  it("detects VTT by its header and SRT by its first cue", async () => {
    expect(vttImporter.detect("x.txt", "WEBVTT\n\n")).toBeGreaterThan(0.9);
    expect(srtImporter.detect("x.srt", await read("srt/meeting.srt"))).toBeGreaterThan(0.9);
    expect(srtImporter.detect("x.txt", "Alice: hi")).toBe(0);
  });

  it("accepts Microsoft Teams timings like `0:0:0.0 --> 0:0:0.570` (a short fraction there counts milliseconds)", async () => {
    const s = parseSubtitles("teams-short-timings.vtt", await read("vtt/teams-short-timings.vtt"), "vtt").sessions[0]!;
    expect(s.turns.map((t) => [t.timestamp, t.start, t.end, t.text])).toEqual([
      ["0:0:0.0", 0, 0.57, "Morning."],
      ["0:0:2.90", 2.09, 4.48, "Morning, Harriet. Shall I share the draft?"],
      ["0:0:6.90", 6.09, 6.5, "Please."],
      ["0:1:5.120", 65.12, 69.007, "Here is a summary of the first minute."],
    ]);
    // Seconds past 59 run into the next minute, as players read them.
    expect([parseCueTime("01:02.500"), parseCueTime("00:00:01,5"), parseCueTime("1:02:03.004"), parseCueTime("00:00:60.000")]).toEqual([
      62.5, 1.5, 3723.004, 60,
    ]);
  });

  it("reads YouTube automatic captions: a line of spaces is cue text (only an empty line ends a cue), karaoke timestamps are markup", async () => {
    const result = parseSubtitles("youtube-auto-captions.vtt", await read("vtt/youtube-auto-captions.vtt"), "vtt");
    const s = result.sessions[0]!;
    expect(s.metadata!.vttHeader).toBe("Kind: captions\nLanguage: en");
    expect(s.turns.map((t) => [t.start, t.end, t.text])).toEqual([
      [0, 2.31, "so today we try the new"],
      [2.31, 2.32, "so today we try the new"],
      [2.32, 4.87, "so today we try the new\nplanning board with the team"],
      [4.87, 4.88, "planning board with the team"],
    ]);
    expect(s.turns[0]!.metadata!.raw).toBe(
      "so<00:00:00.400><c> today</c><00:00:00.720><c> we</c><00:00:00.960><c> try</c><00:00:01.280><c> the</c><00:00:01.600><c> new</c>",
    );
  });

  it("reads files with CR-only line endings", async () => {
    const s = parseSubtitles("cr-line-endings.srt", await read("srt/cr-line-endings.srt"), "srt").sessions[0]!;
    expect(s.turns.map((t) => [t.speaker, t.start, t.text])).toEqual([
      ["priya", 1, "Can everyone see my screen?"],
      ["tomas", 2.7, "Yes, it's clear."],
      ["priya", 4.2, "Good. Let's look at the numbers."],
    ]);
  });

  it("starts a new cue at a timing line with no blank line before it (with or without its cue number)", async () => {
    const s = parseSubtitles("no-blank-before-timing.srt", await read("srt/no-blank-before-timing.srt"), "srt").sessions[0]!;
    expect(s.turns.map((t) => [t.speaker, t.start, t.text, t.metadata!.cue])).toEqual([
      ["lena", 1, "Did the export finish?", "1"],
      ["omar", 3.1, "It did, twenty minutes ago.", "2"],
      ["lena", 5.2, "Then let's open it.", undefined],
    ]);
  });

  it("decodes HTML character references and removes <font>, <i>, <b> and {\\an8} markup, keeping the cue as written", async () => {
    const result = parseSubtitles("entities-and-markup.srt", await read("srt/entities-and-markup.srt"), "srt");
    const s = result.sessions[0]!;
    expect(s.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["rosa", "Fish & chips for lunch?"],
      ["kwame", "Yes \u2013 if it's before\u00A01\u00A0pm."],
      ["rosa", "Deal. And I <3 the new menu \u2014 really."],
      ["kwame", "Note that 2 < 3 > 1, and &bogus; stays."],
    ]);
    expect(s.turns.map((t) => t.metadata!.raw)).toEqual([
      '<font color="#ffff00">Rosa:</font> Fish &amp; chips for lunch?',
      "{\\an8}Kwame: <i>Yes</i> &ndash; if it&#39;s before&nbsp;1&nbsp;pm.",
      "Rosa: Deal. And I &lt;3 the new <b>menu</b> &#x2014; really.",
      "Kwame: Note that 2 &lt; 3 &gt; 1, and &bogus; stays.",
    ]);
    // Unchanged text keeps no raw copy.
    expect(parseSubtitles("x.srt", "1\n00:00:01,000 --> 00:00:02,000\nAnn: I <3 it\n", "srt").sessions[0]!.turns[0]!.metadata!.raw).toBeUndefined();
  });

  it("splits voice spans anywhere in a cue; text after </v> keeps its speaker; an unclosed <v> runs to the cue's end", async () => {
    const s = parseSubtitles("voice-spans.vtt", await read("vtt/voice-spans.vtt"), "vtt").sessions[0]!;
    expect(s.turns.map((t) => [t.speaker, t.start, t.text])).toEqual([
      ["mira-chen", 1, "I checked the logs this morning."],
      ["mira-chen", 3.2, "Nothing odd."],
      ["sam-ruiz", 3.2, "Same here."],
      ["sam-ruiz", 5.2, "Then we ship\non Friday."],
      ["assistant-bot", 8.2, "Shall I draft the release note?"],
    ]);
  });

  it("recognises Zoom labels in lower case and with pronouns, and a one-off speaker in a file that labels every cue", async () => {
    const result = parseSubtitles("zoom-lowercase-pronouns.vtt", await read("vtt/zoom-lowercase-pronouns.vtt"), "vtt");
    const s = result.sessions[0]!;
    expect(s.participants.map((p) => p.name)).toEqual(["conor healy", "Srijani Ghosh (she/her)", "Yuki Tanaka"]);
    expect(s.turns.map((t) => t.text)).toEqual([
      "Hi everyone, can you hear me?",
      "Loud and clear, Conor.",
      "Great. Let's get going.",
      "I'll share my screen.",
      "Sorry I'm late.",
    ]);
    expect(result.warnings).toEqual([]);
  });

  it("skips a malformed block with a warning naming its line, keeping its text; refuses only a file with no readable cue", async () => {
    const result = parseSubtitles("malformed-block.srt", await read("srt/malformed-block.srt"), "srt");
    const s = result.sessions[0]!;
    expect(s.turns.map((t) => t.text)).toEqual(["Let's begin with the survey results.", "That's higher than last year.", "It is."]);
    expect(result.warnings).toEqual([
      expect.stringMatching(/^malformed-block\.srt:5: skipped a block that is not a cue \("00:00:03,200 -> 00:00:05,000" is not a timing line/),
    ]);
    expect(s.metadata!.skippedBlocks).toEqual([{ line: 5, text: "2\n00:00:03,200 -> 00:00:05,000\nInes: Response rate was sixty percent." }]);
    expect(() => parseSubtitles("only-bad.srt", "1\n00:00:01,000 -> 00:00:02,000\nHi\n", "srt")).toThrow(
      /^only-bad\.srt:2: .* is not a cue timing line, and no cue of the file could be read/,
    );
  });

  it("keeps one-off `Name:` prefixes as text with a warning, and never reads a label on a cue's later lines", async () => {
    const result = parseSubtitles("one-off-label.srt", await read("srt/one-off-label.srt"), "srt");
    const s = result.sessions[0]!;
    expect(s.participants.map((p) => p.name)).toEqual(["Alice", "Bob", "Unknown speaker"]);
    expect(s.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["alice", "We should decide on the venue today."],
      ["bob", "I booked two options.\nReminder: both need a deposit."],
      ["alice", "Which one is cheaper?"],
      ["bob", "The second one."],
      ["unknown-speaker", "and the first one is closer."],
      ["unknown-speaker", "Note: the deposit is refundable until May."],
    ]);
    expect(result.warnings).toContainEqual(
      expect.stringMatching(/^one-off-label\.srt:24: "Note:" looks like a speaker label but starts no other cue; kept as text/),
    );
    // A label --agents names is believed even once.
    expect(
      parseSubtitles("one-off-label.srt", await read("srt/one-off-label.srt"), "srt", { agents: ["Note"] }).sessions[0]!.participants.map((p) => p.name),
    ).toContain("Note");
  });

  it("keeps words written on the timing line after the end time, reads 60-second fields, and hints at --merge-cues", async () => {
    const { sessions, result } = await importFixture(vttImporter, "vtt/words-after-end-time-and-sixty-seconds.vtt");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.end])).toEqual([
      ["Dana Whitfield", "Thanks for coming in today.", 58, 60],
      ["Dana Whitfield", "Where did you grow up?", 60, 64.5],
      ["Omar", "By the coast, in a small town.", 65, 70],
      ["Omar", "We fished most mornings.", 70.5, 74],
    ]);
    expect(result.warnings).toEqual([
      expect.stringContaining("3 cue timing(s) count 60 or more seconds or minutes in a field"),
      expect.stringContaining("2 cue(s) continue the previous cue's speaker; each is a turn (pass --merge-cues"),
    ]);
    // Cue settings after the end time stay settings.
    const settings = await importText(vttImporter, "s.vtt", "WEBVTT\n\n00:00:01.000 --> 00:00:02.000 align:start position:10%\nHello\n");
    expect(settings.sessions[0].turns.map((t) => t.text)).toEqual(["Hello"]);
  });
});

describe("YouTube .sbv", () => {
  it("reads `start,end` timing lines and `Name:` prefixes like SRT, and is detected by content", async () => {
    const path = new URL("../../fixtures/transcripts/sbv/design-review.sbv", import.meta.url).pathname;
    expect(sbvImporter.detect("captions.txt", await readFile(path, "utf8"))).toBeGreaterThanOrEqual(0.9);
    const [file] = await importFiles([path]);
    expect(file.format).toBe("sbv");
    const session = file.result!.sessions[0];
    expect(session.metadata?.source).toMatchObject({ format: "sbv" });
    expect(session.turns.map((t) => [t.speaker, t.start, t.text])).toEqual([
      ["unknown-speaker", 0.599, ">> MAYA: Okay, we are recording.\nWelcome to the design review."],
      ["unknown-speaker", 3.21, ">> Thanks, Maya."],
      ["maya", 5, "First item is the onboarding flow,\nthe assistant drafted three variants."],
      ["assistant", 9.48, "Variant B tested best with new users."],
      ["maya", 12.02, "Good, let's go with B."],
      ["assistant", 13.9, "I will prepare variant B for the next sprint."],
    ]);
  });
});
