import { describe, expect, it } from "vitest";
import { meetingSegmentsImporter } from "../../../src/ingest/formats/meeting-segments.js";
import { detectFormat } from "../../../src/ingest/registry.js";
import { importErrorOf, importFixture, importText, speakerName } from "./helpers.js";

describe("meeting-segments (AMI/ICSI rows)", () => {
  it("groups AMI rows by meeting, sorts them by time, keeps audio ids, skips a broken line with its line number", async () => {
    const { sessions, result } = await importFixture(meetingSegmentsImporter, "meeting-segments/ami-rows-two-meetings-out-of-order-bad-line.jsonl");
    expect(sessions.map((s) => s.id)).toEqual(["en2001a", "es2002b"]);
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.end])).toEqual([
      ["MEE068", "OKAY", 5.57, 5.94],
      ["FEO065", "SO WHAT DO WE THINK", 9.12, 10.24],
      ["MEE068", "YEAH", 10.3, 11],
    ]);
    expect(s.turns[0].metadata).toEqual({ audio_id: "AMI_EN2001a_H00_MEE068_0000557_0000594", microphone_id: "H00" });
    expect(result.warnings).toEqual([expect.stringMatching(/ami-rows-two-meetings-out-of-order-bad-line\.jsonl:4: invalid JSON.*; line 4 skipped$/)]);
  });

  it("reads an ICSI-style {meeting_id, segments} object with speaker/start/end", async () => {
    const { sessions } = await importFixture(meetingSegmentsImporter, "meeting-segments/icsi-segments-object.json");
    const [s] = sessions;
    expect(s.id).toBe("bmr013");
    expect(s.participants.map((p) => p.name)).toEqual(["me011", "fe008"]);
    expect(s.turns[2]).toMatchObject({
      text: "Good, um, first item is the digits task.",
      start: 3.4,
      end: 6.9,
      metadata: { channel: "chan1", words: [{ w: "Good" }] },
    });
  });

  it("names the row whose text is not a string, and refuses a file with no readable row", async () => {
    const error = await importErrorOf(meetingSegmentsImporter, "m.jsonl", '{"meeting_id": "a", "speaker_id": "x", "begin_time": 1, "text": 5}\n');
    expect(error.message).toBe("m.jsonl: (line 1) $.text: found a number (5); expected the segment's words as a string");
    const none = await importErrorOf(meetingSegmentsImporter, "n.jsonl", "{oops\n");
    expect(none.message).toMatch(/^n\.jsonl:1: no line is a segment/);
    const { sessions } = await importText(meetingSegmentsImporter, "e.jsonl", "");
    expect(sessions).toEqual([]);
  });

  it("names a meeting or speaker id that is neither a string nor a number (found by the property test: an object id crashed String())", async () => {
    const objectMeeting = await importErrorOf(
      meetingSegmentsImporter,
      "o.json",
      '{"meeting_id": {"toString": null}, "segments": [{"speaker_id": "x", "begin_time": 1, "text": "hi"}]}',
    );
    expect(objectMeeting.message).toMatch(/^o\.json: \$\.meeting_id: found an object.*; expected an id \(a string or a number\)$/);
    const listSpeaker = await importErrorOf(meetingSegmentsImporter, "s.jsonl", '{"meeting_id": 7, "speaker_id": ["x"], "begin_time": 1, "text": "hi"}\n');
    expect(listSpeaker.message).toMatch(/^s\.jsonl: \(line 1\) \$\.speaker_id: found an array.*; expected an id \(a string or a number\)$/);
    const { sessions } = await importText(meetingSegmentsImporter, "n.jsonl", '{"meeting_id": 7, "speaker_id": 12, "begin_time": 1, "text": "hi"}\n');
    expect([sessions[0].id, speakerName(sessions[0], 0)]).toEqual(["7", "12"]);
  });

  it("is detected from its rows", () => {
    expect(detectFormat("ami.jsonl", '{"meeting_id": "EN2001a", "text": "OKAY", "begin_time": 5.57, "end_time": 5.94, "speaker_id": "MEE068"}\n').name).toBe(
      "meeting-segments",
    );
  });
});
