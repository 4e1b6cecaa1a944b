import { describe, expect, it } from "vitest";
import { chatJsonImporter } from "../../../src/ingest/formats/chat-json.js";
import { importErrorOf, importFixture, importText, speakerName } from "./helpers.js";

describe("chat-json importer", () => {
  it("imports a multi-party OpenAI message array with names, tools, reasoning and content parts", async () => {
    const { sessions, result } = await importFixture(chatJsonImporter, "chat-json/team-planning.json");
    expect(result.warnings).toEqual([]);
    const [s] = sessions;
    expect(s.id).toBe("team-planning");
    expect(s.metadata.source).toMatchObject({ format: "chat-json" });
    expect(s.participants.map((p) => [p.name, p.kind])).toEqual([
      ["system", "system"],
      ["Maya", "human"],
      ["Jonas", "human"],
      ["Atlas", "ai"],
      ["tool", "system"],
      ["Priya", "human"],
    ]);
    const types = s.turns.map((t) => t.type);
    expect(types).toEqual(["system", "message", "message", "message", "message", "reasoning", "action", "action", "message", "message", "message", "message"]);
    // Text parts joined, the image kept whole in metadata.
    expect(s.turns[4].text).toBe("Here's the current draft of the checklist:\nAnything missing?");
    expect(s.turns[4].metadata?.parts).toEqual([{ type: "image_url", image_url: { url: "https://example.org/checklist-v3.png", detail: "low" } }]);
    // content: null + tool_calls: reasoning turn, then one action turn per call, no empty message turn.
    expect(s.turns[5].text).toBe("The image shows 7 items; localisation is absent.");
    expect(s.turns[6].text).toBe('search_notes({"query": "localisation launch"})');
    expect(s.turns[7].metadata).toEqual({ toolCallId: "call_1" });
    expect(speakerName(s, 8)).toBe("Atlas");
    expect(s.turns[8].text).toBe("Missing: localisation (DE, FR, 日本語 strings due 20 May).");
    // An empty message stays a turn (it is in the source), verbatim "".
    expect(s.turns[9].text).toBe("");
    expect(s.turns[11].metadata).toEqual({ refusal: true });
    // Times: ISO string kept verbatim, start in seconds from the first timed message.
    expect(s.turns[1]).toMatchObject({ timestamp: "2024-05-14T09:00:05Z", start: 0 });
    expect(s.turns[2].start).toBe(36);
  });

  it("accepts {messages: [...]} with other top-level keys kept, and epoch times", async () => {
    const { sessions } = await importFixture(chatJsonImporter, "chat-json/wrapped-export.json");
    const [s] = sessions;
    expect(s.title).toBe("Tutoring session 12");
    expect(s.metadata.extra).toEqual({ model: "gpt-4o-2024-08-06", condition: "socratic" });
    expect(s.turns[0]).toMatchObject({ type: "system", text: "Ask guiding questions; never give the answer outright." });
    expect(s.turns[1]).toMatchObject({ timestamp: "2024-05-14T09:00:00.000Z", start: 0 });
    expect(s.turns[3]).toMatchObject({ text: "ice is lighter?\n\nor less dense I guess", start: 51 });
    expect(s.participants.map((p) => p.id)).toEqual(["developer", "user", "assistant"]);
  });

  it("imports an empty array as an empty session with a warning", async () => {
    const { sessions, result } = await importFixture(chatJsonImporter, "chat-json/empty.json");
    expect(sessions[0].turns).toEqual([]);
    expect(result.warnings[0]).toMatch(/no messages/);
  });

  it("maps message roles (user, assistant, system, tool) to speaker kinds, never to participant roles", async () => {
    const messages = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "tool", content: "{}" },
    ];
    const { sessions } = await importText(chatJsonImporter, "roles.json", JSON.stringify(messages));
    expect(sessions[0].participants.map((p) => [p.name, p.kind, p.role, p.metadata?.messageRole])).toEqual([
      ["system", "system", undefined, "system"],
      ["user", "human", undefined, "user"],
      ["assistant", "ai", undefined, "assistant"],
      ["tool", "system", undefined, "tool"],
    ]);
  });

  it("marks participants listed in --agents as ai and keeps unknown message keys", async () => {
    const { sessions } = await importText(chatJsonImporter, "x.json", JSON.stringify([{ role: "moderator", name: "Rex", content: "hi", lang: "en" }]), {
      agents: ["Rex"],
    });
    expect(sessions[0].participants[0]).toMatchObject({ name: "Rex", kind: "ai", role: "moderator" });
    expect(sessions[0].turns[0].metadata).toEqual({ lang: "en" });
  });

  it("reports bad shapes with file and JSON path", async () => {
    expect((await importErrorOf(chatJsonImporter, "c.json", '[{"role":"user","content":"a"},{"role":"user","content":5}]')).message).toBe(
      "c.json: $[1].content: found a number (5); expected a string, null, or an array of content parts",
    );
    expect((await importErrorOf(chatJsonImporter, "c.json", '[{"content":"no role"}]')).message).toMatch(/^c\.json: \$\[0\]\.role: found nothing/);
    expect((await importErrorOf(chatJsonImporter, "c.json", '{"messages": {"role": "user"}}')).jsonPath).toBe("$.messages");
    expect((await importErrorOf(chatJsonImporter, "c.json", '[{"role":"user","content":[{"type":"text","text":7}]}]')).jsonPath).toBe("$[0].content[0].text");
    expect((await importErrorOf(chatJsonImporter, "c.json", '[{"role":"assistant","content":null,"tool_calls":[{"function":{}}]}]')).jsonPath).toBe(
      "$[0].tool_calls[0].function.name",
    );
    expect((await importErrorOf(chatJsonImporter, "c.json", '"just a string"')).jsonPath).toBe("$");
  });

  it("reports JSON syntax errors with line and column", async () => {
    const error = await importErrorOf(chatJsonImporter, "broken.json", '[\n  {"role": "user", "content": "hi"}\n  {"role": "assistant"}\n]');
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^broken\.json:3: invalid JSON at column 3: unexpected "\{"; expected ',' or '\]'/);
  });

  it("detects message arrays and wrapped messages, not other JSON", () => {
    expect(chatJsonImporter.detect("a.json", '[{"role": "user", "content": "x"}]')).toBeGreaterThan(0.5);
    expect(chatJsonImporter.detect("a.json", '{"model": "m", "messages": [{"role": "user"}]}')).toBeGreaterThan(0.5);
    expect(chatJsonImporter.detect("a.json", '{"a": 1}')).toBe(0);
  });
});
