import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { detectFormat } from "../../../src/ingest/registry.js";
import { messengerImporter, repairUtf8AsLatin1 } from "../../../src/ingest/formats/messenger.js";
import { sharegptImporter } from "../../../src/ingest/formats/sharegpt.js";
import { telegramImporter } from "../../../src/ingest/formats/telegram.js";
import { fixture, importErrorOf, importFixture, importText, speakerName } from "./helpers.js";

describe("sharegpt importer", () => {
  it("reads one session per conversation: human/gpt speakers, the system prompt, tool traffic as action turns", async () => {
    const path = fixture("sharegpt/conversations.json");
    expect(detectFormat(path, await readFile(path, "utf8")).name).toBe("sharegpt");
    const { sessions, result } = await importFixture(sharegptImporter, "sharegpt/conversations.json");
    expect(sessions.map((s) => s.id)).toEqual(["k3xp9qa_0", "k3xp9qa_1"]);
    const [first, second] = sessions;
    expect(Object.fromEntries(first.participants.map((p) => [p.name, p.kind]))).toEqual({ human: "human", gpt: "ai" });
    expect(first.turns[1].text).toBe("Sure! Here are three ideas:\n\n1. Crumbs & Chapters\n2. The Well-Read Loaf\n3. Knead to Read");
    expect(second.turns.map((t, i) => [speakerName(second, i), t.type])).toEqual([
      ["system", "system"],
      ["human", "message"],
      ["tools", "action"],
      ["tools", "action"],
      ["gpt", "message"],
    ]);
    expect(second.turns[2].metadata).toMatchObject({ from: "function_call" });
    expect(second.metadata.tools).toContain("get_weather");
    expect(result.warnings).toEqual([]);
  });

  it("names an unknown speaker role in a warning and keeps its words", async () => {
    const { sessions, result } = await importText(
      sharegptImporter,
      "x.json",
      '{"conversations": [{"from": "teacher", "value": "Hi"}, {"from": "gpt", "value": "Hello"}]}',
    );
    expect(sessions[0].id).toBe("x");
    expect(sessions[0].turns.map((t) => t.text)).toEqual(["Hi", "Hello"]);
    expect(result.warnings).toEqual([expect.stringMatching(/"teacher" are not ShareGPT's human\/gpt roles/)]);
  });
});

describe("telegram importer", () => {
  it("reads a chat's messages with their text parts joined, service events as system turns, replies and media", async () => {
    const path = fixture("telegram/result.json");
    expect(detectFormat(path, await readFile(path, "utf8")).name).toBe("telegram");
    const { sessions } = await importFixture(telegramImporter, "telegram/result.json", { agents: ["SummaryBot"] });
    const [chat] = sessions;
    expect(chat.title).toBe("Study Group B");
    expect(chat.turns.map((t, i) => [speakerName(chat, i), t.type, t.start, t.text])).toEqual([
      ["Telegram", "system", 0, ""],
      ["Lena Vogt", "message", 111, "Morning! Did everyone try the summariser on chapter 3?"],
      ["Omar Haddad", "message", 208, "Yes, the notes are in https://example.org/notes and they are too short."],
      ["Omar Haddad", "file", 293, ""],
      ["SummaryBot", "message", 399, "Chapter 3 in one line: feedback loops make teams faster."],
    ]);
    // The person who created the group acted; the event is not their words.
    expect(chat.turns[0].metadata).toMatchObject({ actor: "Lena Vogt", action: "create_group" });
    expect(chat.turns[2].metadata).toMatchObject({ replyTo: chat.turns[1].id, edited: "2024-02-05T10:02:10" });
    expect(Object.fromEntries(chat.participants.map((p) => [p.name, p.kind]))).toEqual({
      Telegram: "system",
      "Lena Vogt": "human",
      "Omar Haddad": "human",
      SummaryBot: "ai",
    });
  });

  it("reads a whole account's export, one session per chat", async () => {
    const chat = (name: string, text: string) => ({
      name,
      type: "personal_chat",
      id: 1,
      messages: [{ id: 1, type: "message", date: "2024-01-01T00:00:00", from: name, from_id: "user1", text, text_entities: [] }],
    });
    const { sessions } = await importText(
      telegramImporter,
      "result.json",
      JSON.stringify({ about: "x", chats: { about: "y", list: [chat("Ana", "hi"), chat("Bo", "yo")] } }),
    );
    expect(sessions.map((s) => [s.title, s.turns[0].text])).toEqual([
      ["Ana", "hi"],
      ["Bo", "yo"],
    ]);
  });
});

it("telegram: an id, reply or epoch field that is not a string or number is kept as metadata, links nothing and does not stop the import", async () => {
  const odd = { toString: null };
  const messages = [
    { id: odd, type: "message", date: "2024-01-01T00:00:00", date_unixtime: odd, from: "Ana", from_id: "user1", text: "first", text_entities: [] },
    { id: 2, type: "message", date: "2024-01-01T00:01:00", from: "Bo", from_id: "user2", reply_to_message_id: odd, text: "second", text_entities: [] },
  ];
  const { sessions } = await importText(telegramImporter, "result.json", JSON.stringify({ name: "chat", type: "personal_chat", id: 1, messages }));
  const [chat] = sessions;
  expect(chat.turns.map((t) => [t.text, t.start])).toEqual([
    ["first", 0],
    ["second", 60],
  ]);
  expect(chat.turns[0].metadata).toMatchObject({ id: odd, date_unixtime: odd });
  expect(chat.turns[1].metadata).toMatchObject({ reply_to_message_id: odd });
  expect(chat.turns[1].metadata?.replyTo).toBeUndefined();
});

describe("messenger importer", () => {
  it("repairs Facebook's UTF-8-as-Latin-1 text, puts turns in time order and keeps media and reactions", async () => {
    const path = fixture("messenger/message_1.json");
    expect(detectFormat(path, await readFile(path, "utf8")).name).toBe("messenger");
    const { sessions, result } = await importFixture(messengerImporter, "messenger/message_1.json");
    const [chat] = sessions;
    expect(chat.title).toBe("Jonas Böhm");
    expect(chat.turns.map((t, i) => [speakerName(chat, i), t.type, t.start, t.text])).toEqual([
      ["Ana Ruiz", "message", 0, "Did the chatbot’s summary match your notes? Ça marche?"],
      ["Jonas Böhm", "file", 600, ""],
      ["Ana Ruiz", "message", 1200, "Perfect, I’ll book the room for 10:00 → see you there"],
      ["Jonas Böhm", "message", 1320, "Schön, bis morgen 😊"],
    ]);
    expect(chat.turns[2].metadata).toMatchObject({ reactions: [{ reaction: "❤", actor: "Jonas Böhm" }] });
    expect(result.warnings).toEqual([expect.stringMatching(/texts?\(s\) were UTF-8 written as Latin-1 escapes/)]);
  });

  it("names a timestamp_ms outside the range of a date instead of failing with a RangeError", async () => {
    const text = JSON.stringify({ messages: [{ sender_name: "Ana", timestamp_ms: 1e300, content: "hi" }] });
    const error = await importErrorOf(messengerImporter, "message_1.json", text);
    expect(error.message).toMatch(/message_1\.json.*timestamp_ms.*epoch milliseconds/s);
  });

  it("leaves text that is not UTF-8 written as Latin-1 as it is", () => {
    expect(repairUtf8AsLatin1("SchÃ¶n")).toBe("Schön");
    expect(repairUtf8AsLatin1("plain ascii")).toBeUndefined();
    // "é" alone is one Latin-1 character, not a UTF-8 sequence: a correctly written export stays.
    expect(repairUtf8AsLatin1("café")).toBeUndefined();
    expect(repairUtf8AsLatin1("😊 already right")).toBeUndefined();
  });
});
