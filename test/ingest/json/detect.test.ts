import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { detectDirectoryFormat, detectFormat, importFiles } from "../../../src/ingest/registry.js";
import { fixture } from "./helpers.js";

describe("JSON formats are auto-detected by the registry", () => {
  it.each([
    ["chat-json/team-planning.json", "chat-json"],
    ["chat-json/wrapped-export.json", "chat-json"],
    ["chatgpt/conversations.json", "chatgpt"],
    ["rounds-log/debate-gsm.json", "rounds-log"],
    ["native/session.json", "native"],
    ["native/pilot-sessions.jsonl", "native"],
  ])("%s -> %s", async (rel, format) => {
    const path = fixture(rel);
    expect(detectFormat(path, await readFile(path, "utf8")).name).toBe(format);
  });

  it("a Slack export folder is detected as slack-export", () => {
    expect(detectDirectoryFormat(fixture("slack-export/workspace"))?.name).toBe("slack-export");
  });

  it("importFiles imports the Slack export folder and the JSON files in one call", async () => {
    const results = await importFiles([fixture("slack-export/workspace"), fixture("chatgpt/conversations.json")]);
    expect(results.map((r) => [r.format, r.error, r.result?.sessions.length])).toEqual([
      ["slack-export", undefined, 2],
      ["chatgpt", undefined, 3],
    ]);
  });
});
