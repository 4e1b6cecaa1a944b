import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { zoomChatImporter } from "../../src/ingest/formats/zoom-chat.js";
import { detectFormat } from "../../src/ingest/registry.js";
import { fixture, importFixture, importText, speakerName } from "./json/helpers.js";

describe("zoom-chat importer", () => {
  it("newer shape: indented message lines, recipients and direct messages, replies and reactions verbatim", async () => {
    const { sessions, result } = await importFixture(zoomChatImporter, "zoom-chat/newer-indented-lines-direct-message.txt");
    expect(result.warnings).toEqual([]);
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start])).toEqual([
      ["Priya Raman", "Welcome! The AI note-taker is on.", 0],
      ["Zoom AI Companion", "Summary so far:\n- agenda agreed\n- two action items", 35],
      ["Tom O'Neill", "can you share the slides privately?", 87],
      ["Priya Raman", 'Replying to "Summary so far:..."\n\nthanks, that matches my notes', 125],
      ["Tom O'Neill", 'Reacted to "thanks, that matches..." with 👍', 146],
    ]);
    expect(s.turns[0].metadata).toEqual({ to: "Everyone" });
    expect(s.turns[2].metadata).toEqual({ to: "Priya Raman(Direct Message)", private: true });
  });

  it("older shape: text on the header line, times across midnight", async () => {
    const { sessions } = await importFixture(zoomChatImporter, "zoom-chat/older-same-line-across-midnight.txt");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.timestamp, t.start])).toEqual([
      ["Ana Lima", "good evening everyone", "23:58:12", 0],
      ["Ben Cho", "hi, apologies for joining late", "23:59:50", 98],
      ["Ana Lima", "no worries", "00:00:20", 128],
      ["Ben Cho", "can we start with item 2?", "00:01:05", 173],
    ]);
    expect(s.turns[2].metadata).toEqual({ to: "Ben Cho(privately)", private: true });
  });

  it("keeps text before the first header as a preamble, with a located warning", async () => {
    const { sessions, result } = await importText(zoomChatImporter, "chat.txt", "Meeting chat\n10:00:00 From A : hi\n");
    expect(sessions[0].metadata.preamble).toBe("Meeting chat");
    expect(result.warnings).toEqual(['chat.txt:1: text before the first "hh:mm:ss From …" line; kept in session metadata preamble']);
  });

  it("recordings' shape `hh:mm:ss Name:<TAB>text`: detected, with tab-indented continuation lines and truncated recipient labels", async () => {
    const head = await readFile(fixture("zoom-chat/recording-name-colon-tab-shape.txt"), "utf8");
    expect(detectFormat("chat.txt", head).name).toBe("zoom-chat");
    const { sessions } = await importFixture(zoomChatImporter, "zoom-chat/recording-name-colon-tab-shape.txt");
    const [s] = sessions;
    expect(s.turns.map((t) => [speakerName(s, t.index), t.text, t.start])).toEqual([
      ["Moderator", "Welcome, please say hi in the chat", 0],
      ["Guest 12", "hi from Lisbon", 36],
      ["Guest 7", "can I share my screen later?", 57],
      ["Guest 12", 'here is the error I get:\nTraceback (most recent call last):\n  File "app.py", line 3', 125],
      ["Moderator", 'Reacted to "here is the error I..." with 👍', 145],
    ]);
    expect(s.turns[2].metadata).toEqual({ to: "Moderator(Direct" });
  });

  it("--format zoom-chat on text with no message line is an error, not an empty session", async () => {
    await expect(importText(zoomChatImporter, "notes.txt", "Agenda\nItem one\n")).rejects.toThrow(/notes\.txt:1: no line starts a chat message/);
  });

  it("is detected ahead of plain text", async () => {
    for (const name of ["newer-indented-lines-direct-message.txt", "older-same-line-across-midnight.txt"]) {
      expect(detectFormat(name, await readFile(fixture(`zoom-chat/${name}`), "utf8")).name).toBe("zoom-chat");
    }
  });
});
