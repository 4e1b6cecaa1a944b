import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { claudeExportImporter } from "../../../src/ingest/formats/claude-export.js";
import { discordImporter } from "../../../src/ingest/formats/discord.js";
import { revJsonImporter } from "../../../src/ingest/formats/rev-json.js";
import { detectFormat } from "../../../src/ingest/registry.js";
import { textInput } from "../../../src/ingest/input.js";
import { fixture, importErrorOf, importFixture, speakerName } from "./helpers.js";

describe("rev-json", () => {
  it("joins elements verbatim into one turn per monologue, times from the first and last timed element", async () => {
    const { sessions } = await importFixture(revJsonImporter, "rev-json/monologues-with-punct-elements.json");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start, t.end])).toEqual([
      ["Interviewer", "So, how was the chatbot?", 0.48, 1.6],
      ["Speaker 1", "Honestly <inaudible> helpful.", 2.05, 3.5],
    ]);
    expect((s.turns[0].metadata?.elements as unknown[]).length).toBe(10);
  });

  it("names speakers from a speakers list and keeps an empty monologue as an empty turn", async () => {
    const { sessions } = await importFixture(revJsonImporter, "rev-json/speakers-list-and-empty-monologue.json");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text])).toEqual([
      ["Dr. Okafor", "Let's begin."],
      ["Participant 7", ""],
      ["Participant 7", "Ready when you are"],
    ]);
  });

  it("names the element whose value is not a string", async () => {
    const error = await importErrorOf(revJsonImporter, "r.json", '{"monologues": [{"speaker": 0, "elements": [{"type": "text", "value": 3}]}]}');
    expect(error.message).toBe("r.json: $.monologues[0].elements[0].value: found a number (3); expected the element's words as a string");
  });

  it("names a speaker that is not a number or a string (an object without a usable toString: found by the property test)", async () => {
    const error = await importErrorOf(revJsonImporter, "r.json", '{"monologues": [{"speaker": [{"toString": false}], "elements": []}]}');
    expect(error.message).toMatch(/^r\.json: \$\.monologues\[0\]\.speaker: found an array.*expected the speaker's number \(or a string\)$/);
    // In the speakers list such an id is passed over, as any entry it cannot use.
    const { sessions } = await revJsonImporter.parse(
      textInput("r.json", '{"speakers": [{"id": {"toString": false}, "name": "Ann"}], "monologues": [{"speaker": 1, "elements": []}]}'),
      {},
    );
    expect(sessions[0].participants.map((p) => p.name)).toEqual(["Speaker 1"]);
  });
});

describe("discord (DiscordChatExporter JSON)", () => {
  it("reads messages with nicknames, bots as AI, replies linked, join notices as system turns, extras kept", async () => {
    const { sessions } = await importFixture(discordImporter, "discord/channel-with-bot-reply-and-join.json");
    const [s] = sessions;
    expect(s.title).toBe("team-4");
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([
      ["Wren", "human"],
      ["Muse", "ai"],
      ["dev.ansel", "human"],
    ]);
    expect(s.turns.map((t) => t.type)).toEqual(["system", "message", "message", "message"]);
    expect(s.turns[2].text).toBe("Here you go:\n1. Wave mark\n2. Monogram\n3. Hand-drawn wordmark");
    expect(s.turns[2].metadata).toMatchObject({
      replyTo: "t0001",
      embeds: [{ title: "Moodboard", description: "Warm palette, rounded shapes" }],
      attachments: [{ fileName: "sketches.png" }],
    });
    // A reply to a message outside the export keeps its raw reference.
    expect(s.turns[3].metadata?.replyTo).toBeUndefined();
    expect(s.turns[3].metadata?.reference).toMatchObject({ messageId: "8999999999999999" });
    expect(s.turns[2]).toMatchObject({ timestamp: "2024-04-02T15:01:14.900+00:00", start: 74.9 });
    expect(s.metadata).toMatchObject({ guild: { name: "Design Studio Lab" }, messageCount: 4 });
  });

  it("with --agents, only listed bots are AI and other bots are system", async () => {
    const { sessions } = await importFixture(discordImporter, "discord/channel-with-bot-reply-and-join.json", { agents: ["Wren"] });
    expect(sessions[0].participants.map((p) => p.kind)).toEqual(["ai", "system", "human"]);
  });
});

describe("claude-export (conversations.json)", () => {
  it("one session per conversation; thinking, tool use and results as their own turns; attachments kept", async () => {
    const { sessions } = await importFixture(claudeExportImporter, "claude-export/conversations-with-thinking-tools-attachment.json");
    expect(sessions.map((s) => [s.id, s.title])).toEqual([
      ["5b1e0c7a-0000-4000-8000-000000000001", "Survey item wording"],
      ["5b1e0c7a-0000-4000-8000-000000000002", ""],
    ]);
    const [s] = sessions;
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([
      ["human", "human"],
      ["assistant", "ai"],
    ]);
    expect(s.turns.map((t) => [t.type, t.text])).toEqual([
      ["message", "Can you check these items for double-barrelled questions?"],
      ["reasoning", "Q1 asks two things at once; Q2 is fine."],
      ["message", "Q1 is double-barrelled: split satisfaction and engagement."],
      ["action", 'web_search({"query":"double-barrelled survey question"})'],
      ["action", "A double-barrelled question asks about two issues."],
    ]);
    expect(s.turns[0].metadata?.attachments).toEqual([
      expect.objectContaining({ file_name: "items.txt", extracted_content: "Q1. How satisfied and engaged are you?\nQ2. How often do you use the tool?" }),
    ]);
    expect(s.turns[2]).toMatchObject({ start: 8, metadata: { text: "" } });
    expect(sessions[1].turns[0].text).toBe("hello from an older export without content blocks");
  });

  it("says what it expected for another shape", async () => {
    const error = await importErrorOf(claudeExportImporter, "c.json", '{"chat_messages": 3}');
    expect(error.message).toMatch(/^c\.json: \$\.chat_messages: found a number \(3\); expected an array of chat messages/);
  });
});

describe("detection of the JSON exports", () => {
  it("picks each format for its fixture", async () => {
    for (const [name, rel] of [
      ["rev-json", "rev-json/monologues-with-punct-elements.json"],
      ["discord", "discord/channel-with-bot-reply-and-join.json"],
      ["claude-export", "claude-export/conversations-with-thinking-tools-attachment.json"],
    ]) {
      expect(detectFormat(rel, await readFile(fixture(rel), "utf8")).name).toBe(name);
    }
  });
});
