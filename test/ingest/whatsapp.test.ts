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
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([["WhatsApp", "system"], ["Mia", "human"], ["Lukas", "human"]]);
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
    expect(s.turns.map((t) => t.timestamp)).toEqual(["2020-12-31T23:58:00", "2020-12-31T23:59:00", "2020-12-31T23:59:00", "2021-01-01T00:01:00", "2021-01-01T00:05:00"]);
    expect(s.turns[2].text).toBe("Yes: ask me anything about the protocol.");
    expect(speakerName(s, 2)).toBe("Study Bot");
    expect(s.turns[4].text).toBe("This message was deleted");
  });

  it("iOS brackets with left-to-right marks: names clean, marks and attachments kept in the text", async () => {
    const { sessions } = await importFixture(whatsappImporter, "whatsapp/ios-brackets-left-to-right-marks.txt");
    const [s] = sessions;
    expect(s.participants.map((p) => p.name)).toEqual(["Team Alpha", "Priya Nair", "Assistant"]);
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

  it("is detected ahead of plain text for every fixture", async () => {
    for (const name of ["android-24h-day-first-multiline.txt", "android-us-12-hour.txt", "ios-brackets-left-to-right-marks.txt", "ios-narrow-no-break-space-am-pm.txt", "system-lines-with-colons.txt", "finnish-dotted-times.txt"]) {
      expect(detectFormat(name, await readFile(fixture(`whatsapp/${name}`), "utf8")).name, name).toBe("whatsapp");
    }
    expect(whatsappImporter.detect("i.txt", "Alice: hi\nBob: hello\n")).toBe(0);
  });
});
