import { describe, expect, it } from "vitest";
import { chatJsonImporter } from "../../../src/ingest/formats/chat-json.js";
import { chatJsonlImporter } from "../../../src/ingest/formats/chat-jsonl.js";
import { claudeExportImporter } from "../../../src/ingest/formats/claude-export.js";
import { discordImporter } from "../../../src/ingest/formats/discord.js";
import { meetingSegmentsImporter } from "../../../src/ingest/formats/meeting-segments.js";
import { roundsLogImporter } from "../../../src/ingest/formats/rounds-log.js";
import { detectFormat } from "../../../src/ingest/registry.js";
import { readFileSync } from "node:fs";
import { fixture, importFixture, speakerName } from "./helpers.js";

/** The importer detection picks for a fixture, from its name and first bytes as the registry reads them. */
function detected(rel: string): string {
  return detectFormat(fixture(rel), readFileSync(fixture(rel), "utf8")).name;
}

describe("JSON shapes researchers bring (round 3)", () => {
  it("chat-json: an object of named conversations, one of them empty, is one session each", async () => {
    expect(detected("chat-json/named-conversations-object-with-empty.json")).toBe("chat-json");
    const { sessions, result } = await importFixture(chatJsonImporter, "chat-json/named-conversations-object-with-empty.json");
    expect(sessions.map((s) => [s.id, s.title, s.turns.length])).toEqual([
      ["g-1", "greeting", 2],
      ["g-2", "nothing yet", 0],
      ["follow-up", "follow up", 3],
    ]);
    expect(result.warnings).toEqual([expect.stringContaining('$["nothing yet"].messages: no messages')]);
  });

  it("chat-json: messages naming their sender by id with the words in content.text", async () => {
    expect(detected("chat-json/sender-id-and-content-text.json")).toBe("chat-json");
    const { sessions } = await importFixture(chatJsonImporter, "chat-json/sender-id-and-content-text.json");
    expect(sessions.map((s) => s.id)).toEqual(["desk-17", "desk-18"]);
    expect(sessions[0].turns.map((t) => t.text)).toEqual(["Hello, how can the venue team help?", "We need a hall for eighty people in June."]);
    expect([speakerName(sessions[0], 0), speakerName(sessions[0], 1)]).toEqual(["agent-9f", "guest-41"]);
    expect(sessions[0].turns[1].start).toBe(70);
  });

  it("chat-json: an LLM call log of {query, response} pairs is one two-turn session per call", async () => {
    expect(detected("chat-json/llm-call-log-query-response.json")).toBe("chat-json");
    const { sessions } = await importFixture(chatJsonImporter, "chat-json/llm-call-log-query-response.json");
    expect(sessions).toHaveLength(2);
    expect(sessions[1].turns.map((t) => [t.text.slice(0, 12), t.timestamp])).toEqual([
      ["You are Ada,", "2025-01-05T10:00:09.480000"],
      ["Option 1\nMes", "2025-01-05T10:00:09.480000"],
    ]);
    expect(sessions[1].participants.map((p) => [p.name, p.kind])).toEqual([
      ["user", "human"],
      ["assistant", "ai"],
    ]);
  });

  it("chat-jsonl: legacy {prompt, completion} lines are two turns each", async () => {
    expect(detected("chat-jsonl/legacy-prompt-completion.jsonl")).toBe("chat-jsonl");
    const { sessions } = await importFixture(chatJsonlImporter, "chat-jsonl/legacy-prompt-completion.jsonl");
    expect(sessions.map((s) => s.turns.map((t) => t.text))).toEqual([
      ["Which planet is known as the red planet? ->", " Mars is called the red planet.\n"],
      ["How many legs does a spider have? ->", " A spider has eight legs.\n"],
    ]);
  });

  it("chat-jsonl: Responses-API batch requests read body.input as the message list", async () => {
    const { sessions } = await importFixture(chatJsonlImporter, "chat-jsonl/responses-api-requests-input-list.jsonl");
    expect(sessions.map((s) => [s.id, s.turns.map((t) => t.type)])).toEqual([
      ["term-1", ["system", "message"]],
      ["term-2", ["system", "message"]],
    ]);
    expect(sessions[1].metadata.extra).toMatchObject({ url: "/v1/responses", model: "o3-mini" });
  });

  it("chat-jsonl: a custom_id repeated by an appended run is kept as its own session, with a warning naming the line", async () => {
    const { sessions, result } = await importFixture(chatJsonlImporter, "chat-jsonl/two-batch-runs-appended-repeated-ids.jsonl");
    expect(sessions.map((s) => [s.id, s.turns[0].text])).toEqual([
      ["q-1", "First run, first answer."],
      ["q-2", "First run, second answer."],
      ["q-1-line-3", "Second run, first answer."],
    ]);
    expect(result.warnings).toEqual([expect.stringMatching(/two-batch-runs-appended-repeated-ids\.jsonl:3: id "q-1" was already used/)]);
  });

  it("claude-export: an export wrapped in {conversations} with null records keeps the rest and names each skipped path", async () => {
    expect(detected("claude-export/wrapped-conversations-with-null-message.json")).toBe("claude-export");
    const { sessions, result } = await importFixture(claudeExportImporter, "claude-export/wrapped-conversations-with-null-message.json");
    expect(sessions).toHaveLength(1);
    expect(sessions[0].turns.map((t) => t.text)).toEqual(["How often should I water basil?", "When the top centimetre of soil is dry."]);
    expect(result.warnings).toEqual([
      expect.stringContaining("$.conversations[0].chat_messages[0]: null instead of a message; skipped"),
      expect.stringContaining("$.conversations[1]: null instead of a conversation; skipped"),
    ]);
  });

  it("meeting-segments: a QMSum meeting (meeting_transcripts of speaker/content) keeps its queries as metadata", async () => {
    expect(detected("meeting-segments/qmsum-meeting-transcripts.json")).toBe("meeting-segments");
    const { sessions } = await importFixture(meetingSegmentsImporter, "meeting-segments/qmsum-meeting-transcripts.json");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, s.turns.indexOf(t)), t.text])).toEqual([
      ["Chair", "Okay , let us start with the budget ."],
      ["Analyst", "{vocalsound} We have about four thousand left ."],
      ["Chair", "Then the pilot can run in May ."],
    ]);
    expect(s.metadata.extra).toMatchObject({ topic_list: [{ topic: "Budget for the pilot" }] });
  });

  it("discord: a raw API message array (numeric types, username/global_name, bot flag, message_reference)", async () => {
    expect(detected("discord/raw-api-message-array.json")).toBe("discord");
    const { sessions } = await importFixture(discordImporter, "discord/raw-api-message-array.json");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, s.turns.indexOf(t)), t.type])).toEqual([
      ["Rowan", "message"],
      ["ines", "message"],
      ["newcomer", "system"],
      ["ReleaseBot", "message"],
    ]);
    expect(s.turns[1].metadata?.replyTo).toBe(s.turns[0].id);
    expect(s.participants.find((p) => p.name === "ReleaseBot")?.kind).toBe("ai");
  });

  it("rounds-log: one run with its settings beside the players is one session titled by its source", async () => {
    expect(detected("rounds-log/single-run-with-settings-and-players.json")).toBe("rounds-log");
    const { sessions } = await importFixture(roundsLogImporter, "rounds-log/single-run-with-settings-and-players.json");
    expect(sessions).toHaveLength(1);
    expect(sessions[0].title).toBe("Is a tomato a fruit?");
    expect(sessions[0].metadata.settings).toEqual({ model_name: "some-model", temperature: 0, source: "Is a tomato a fruit?" });
    const replies = sessions[0].turns.filter((t) => t.type === "message").map((t) => t.text);
    expect(replies).toEqual(["Botanically it grows from a flower, so it is a fruit.", "Cooks use it as a vegetable, and so does the law."]);
  });
});
