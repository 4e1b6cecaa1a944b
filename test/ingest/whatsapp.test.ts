import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { whatsappImporter } from "../../src/ingest/formats/whatsapp.js";
import { detectFormat } from "../../src/ingest/registry.js";
import { fixture, importFixture, importText, speakerName } from "./json/helpers.js";

describe("whatsapp importer", () => {
  it("Android, day-first 24-hour (German): multi-line messages verbatim, system lines as system turns", async () => {
    const { sessions, result } = await importFixture(whatsappImporter, "whatsapp/android-24h-day-first-multiline.txt");
    expect(result.warnings).toEqual([]);
    const [s] = sessions;
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([
      ["WhatsApp", "system"],
      ["Mia", "human"],
      ["Lukas", "human"],
    ]);
    expect(s.turns.map((t) => t.type)).toEqual(["system", "system", "message", "message", "message", "message"]);
    expect(s.turns[1].text).toBe("Lukas hat Mia hinzugefügt");
    expect(s.turns[3].text).toBe("Fast. Drei Dinge fehlen noch:\n1. die Einverständniserklärung\n2. der Fragebogen\n\n3. Snacks 🍪");
    expect(s.turns[3]).toMatchObject({ timestamp: "2020-12-31T23:45:00", start: 240 });
    // Across midnight and the year.
    expect(s.turns[4]).toMatchObject({ timestamp: "2021-01-01T00:02:00", start: 1260 });
    expect(s.turns[5].text).toBe("<Medien ausgeschlossen>");
  });

  it("Android, US month-first 12-hour: 12 AM is midnight, placeholders kept", async () => {
    const { sessions } = await importFixture(whatsappImporter, "whatsapp/android-us-12-hour.txt");
    const [s] = sessions;
    expect(s.turns.map((t) => t.timestamp)).toEqual([
      "2020-12-31T23:58:00",
      "2020-12-31T23:59:00",
      "2020-12-31T23:59:00",
      "2021-01-01T00:01:00",
      "2021-01-01T00:05:00",
    ]);
    expect(s.turns[2].text).toBe("Yes: ask me anything about the protocol.");
    expect(speakerName(s, 2)).toBe("Study Bot");
    expect(s.turns[4].text).toBe("This message was deleted");
  });

  it("iOS brackets with left-to-right marks: names clean, marks and attachments kept in the text", async () => {
    const { sessions } = await importFixture(whatsappImporter, "whatsapp/ios-brackets-left-to-right-marks.txt");
    const [s] = sessions;
    // The encryption notice under the group's name is WhatsApp's line, not the group speaking.
    expect(s.participants.map((p) => p.name)).toEqual(["WhatsApp", "Priya Nair", "Assistant"]);
    expect(s.turns[0]).toMatchObject({ type: "system", text: expect.stringMatching(/^Team Alpha: \u200eMessages and calls are end-to-end encrypted/) });
    expect(s.turns[2].text).toBe("\u200eimage omitted");
    expect(s.turns[3].text).toBe("It did: three decisions, two open questions.\nDecision 1: keep the pilot at 12 groups.");
    expect(s.turns[3].timestamp).toBe("2023-03-24T09:18:11");
    expect(s.turns[4].text).toBe("\u200e<attached: 00000012-PHOTO-2023-03-24-09-20-00.jpg>");
  });

  it("iOS with a narrow no-break space before AM/PM, and edited-message markers kept", async () => {
    const { sessions } = await importFixture(whatsappImporter, "whatsapp/ios-narrow-no-break-space-am-pm.txt");
    expect(sessions[0].turns.map((t) => [t.timestamp, t.text])).toEqual([
      ["2024-01-05T09:41:02", "Running late, start without me"],
      ["2024-01-05T09:43:30", "ok! <This message was edited>"],
      ["2024-01-05T12:00:00", "here now"],
    ]);
  });

  it("a system line quoting a subject with a colon is not mistaken for a sender", async () => {
    const { sessions } = await importFixture(whatsappImporter, "whatsapp/system-lines-with-colons.txt");
    const [s] = sessions;
    expect(s.participants.map((p) => p.name)).toEqual(["Ana", "WhatsApp", "Ben"]);
    expect(s.turns[1]).toMatchObject({ type: "system", text: 'Ana changed the subject from "Reading group" to "Reading group: week 3"' });
    expect(s.turns[3]).toMatchObject({ type: "system", text: "You removed Carl" });
    // 05/06: no evidence either way, 24-hour clock: day-first.
    expect(s.turns[0].timestamp).toBe("2022-06-05T18:30:00");
  });

  it("Finnish dotted times (8.05)", async () => {
    const { sessions } = await importFixture(whatsappImporter, "whatsapp/finnish-dotted-times.txt");
    expect(sessions[0].turns.map((t) => t.timestamp)).toEqual(["2022-07-13T08:05:00", "2022-07-13T08:07:00"]);
  });

  it("decides the date order from evidence anywhere in the file; an impossible date is a located warning", async () => {
    const { sessions } = await importText(whatsappImporter, "c.txt", "03/04/21, 10:00 - A: one\n03/25/21, 10:00 - B: two\n");
    expect(sessions[0].turns[0].timestamp).toBe("2021-03-04T10:00:00");
    const { sessions: bad, result } = await importText(whatsappImporter, "d.txt", "31/02/21, 10:00 - A: one\n01/03/21, 10:00 - B: two\n");
    expect(bad[0].turns[0]).toMatchObject({ text: "one" });
    expect(bad[0].turns[0].timestamp).toBeUndefined();
    expect(result.warnings).toEqual([expect.stringMatching(/^d\.txt:1: date "31\/02\/21, 10:00 - A: one" is not a calendar date/)]);
  });

  it("a header-looking line inside a message (a quoted message) stays in it when its time goes back or its shape and sender are foreign", async () => {
    const { sessions, result } = await importFixture(whatsappImporter, "whatsapp/header-looking-lines-inside-messages.txt");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.timestamp])).toEqual([
      [
        "Ana",
        "Morning! Here is what Carl wrote in the old group last week:\n05/03/2024, 18:42 - Carl: The room is booked until 6pm\nCan we still use it after that?",
        "2024-03-12T10:00:00",
      ],
      ["Ben", "Yes, I asked the office", "2024-03-12T10:02:00"],
      ["Ana", "Great. Zoe's reply from her iPhone:\n[12/03/2024, 10:03:30] Zoe: see you there", "2024-03-12T10:03:00"],
      // A newcomer in the file's header shape starts a message; so does a known sender 6 minutes back.
      ["Dana", "Hi all, joining late", "2024-03-12T10:04:00"],
      ["Ben", "(sent from the train, arrived late)", "2024-03-12T09:58:00"],
      ["Ana", "👍", "2024-03-12T10:05:00"],
    ]);
    expect(s.participants.map((p) => p.name)).toEqual(["Ana", "Ben", "Dana"]);
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /header-looking-lines-inside-messages\.txt:2: "05\/03\/2024, 18:42 - Carl: The room is bo…" looks like a message header, but its time is 7 days before the message above; kept as a line of the message from line 1$/,
      ),
      expect.stringMatching(
        /header-looking-lines-inside-messages\.txt:6: .* but "Zoe" has not written before and it is not in the file's header shape; kept as a line of the message from line 5$/,
      ),
    ]);
    expect(detectFormat("h.txt", await readFile(fixture("whatsapp/header-looking-lines-inside-messages.txt"), "utf8")).name).toBe("whatsapp");
  });

  it("a known sender's line in another header shape is still a message when its time fits; an hour back across a clock change too", async () => {
    // Local time goes back an hour when daylight saving ends (27/10/2024, 03:00 -> 02:00).
    const { sessions, result } = await importText(
      whatsappImporter,
      "dst.txt",
      "27/10/2024, 02:50 - A: before\n27/10/2024, 02:10 - B: after the change\n[27/10/2024, 02:11:05] A: from another phone\n",
    );
    expect(sessions[0].turns.map((t) => t.text)).toEqual(["before", "after the change", "from another phone"]);
    expect(result.warnings).toEqual([]);
    // A quoted line from long ago by a known sender stays quoted, even in the file's shape.
    const { sessions: quoted, result: warned } = await importText(
      whatsappImporter,
      "q.txt",
      "01/06/2024, 09:00 - A: hi\n02/06/2024, 09:00 - B: you said yesterday:\n01/06/2024, 09:00 - A: hi\n02/06/2024, 09:01 - A: I did\n",
    );
    expect(quoted[0].turns.map((t) => t.text)).toEqual(["hi", "you said yesterday:\n01/06/2024, 09:00 - A: hi", "I did"]);
    expect(warned.warnings).toEqual([
      expect.stringMatching(/^q\.txt:3: .*its time is 24 h before the message above; kept as a line of the message from line 2$/),
    ]);
  });

  it("a quoted month-first date does not turn a day-first file month-first", async () => {
    const { sessions } = await importText(
      whatsappImporter,
      "o.txt",
      "03/04/2021, 10:00 - A: quoting:\n[3/25/21, 9:00:00 AM] B: old\n03/04/2021, 10:05 - B: ok\n",
    );
    expect(sessions[0].turns.map((t) => t.timestamp)).toEqual(["2021-04-03T10:00:00", "2021-04-03T10:05:00"]);
  });

  it("is detected ahead of plain text for every fixture", async () => {
    for (const name of [
      "android-24h-day-first-multiline.txt",
      "android-us-12-hour.txt",
      "ios-brackets-left-to-right-marks.txt",
      "ios-narrow-no-break-space-am-pm.txt",
      "system-lines-with-colons.txt",
      "finnish-dotted-times.txt",
    ]) {
      expect(detectFormat(name, await readFile(fixture(`whatsapp/${name}`), "utf8")).name, name).toBe("whatsapp");
    }
    expect(whatsappImporter.detect("i.txt", "Alice: hi\nBob: hello\n")).toBe(0);
  });
});

describe("whatsapp: events under a sender, and exports pasted together", () => {
  it("makes iOS events named under a person or the group system turns, keeps media placeholders, and reads a pasted older export as messages", async () => {
    const { sessions, result } = await importFixture(whatsappImporter, "whatsapp/ios-system-events-and-pasted-export.txt");
    const [s] = sessions;
    const said = s.turns.filter((t) => t.type === "message").map((t) => [speakerName(s, t.index), t.text]);
    expect(said).toEqual([
      ["~\u202fMina", "Hi all, which book is next?"],
      ["Jon Reyes", "\u200eimage omitted"],
      ["Jon Reyes", "The one on the cover above"],
      ["Jon Reyes", "Older export starts here"],
      ["~\u202fMina", "and goes on for a while"],
      ["Jon Reyes", "until the end"],
    ]);
    expect(s.turns.filter((t) => t.type === "system")).toHaveLength(3);
    expect(s.participants.map((p) => p.name)).not.toContain("Book Club");
    expect(result.warnings).toEqual([expect.stringMatching(/:7: the dates go back 53 days here and go on as a chat \(two exports pasted together\?\)/)]);
  });
});
