// Ids that are neither strings nor numbers (found by the importers' property test: an object with
// a null toString crashed String()): each importer names the field instead of crashing or
// inventing "[object Object]".
import { describe, expect, it } from "vitest";
import { chatJsonlImporter } from "../../../src/ingest/formats/chat-jsonl.js";
import { discordImporter } from "../../../src/ingest/formats/discord.js";
import { importErrorOf, importText } from "./helpers.js";

describe("ids that are not text", () => {
  it("discord: an author id that is an object is an error naming the field", async () => {
    const text = JSON.stringify({
      guild: { name: "g" },
      channel: { name: "c" },
      messages: [{ id: "1", content: "hi", author: { id: { toString: null }, name: "Ana" } }],
    });
    const error = await importErrorOf(discordImporter, "d.json", text);
    expect(error.message).toMatch(/^d\.json: \$\.messages\[0\]\.author\.id: found an object.*; expected an id \(a string or a number\)$/);
  });

  it("chat-jsonl: a batch request whose custom_id is an object is skipped with a warning naming the line and field; a number id is kept", async () => {
    const bad = JSON.stringify({ custom_id: { toString: null }, body: { messages: [{ role: "user", content: "hi" }] } });
    const good = JSON.stringify({ custom_id: 42, body: { messages: [{ role: "user", content: "hello" }] } });
    const { sessions, result } = await importText(chatJsonlImporter, "b.jsonl", `${bad}\n${good}\n`);
    expect(result.warnings).toEqual([
      expect.stringMatching(/^b\.jsonl:1: \$\.custom_id: found an object.*; expected an id \(a string or a number\); line 1 skipped$/),
    ]);
    expect(sessions.map((s) => s.id)).toEqual(["42"]);
  });
});
