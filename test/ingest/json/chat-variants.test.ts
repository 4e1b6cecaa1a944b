import { describe, expect, it } from "vitest";
import { chatJsonImporter } from "../../../src/ingest/formats/chat-json.js";
import { chatJsonlImporter } from "../../../src/ingest/formats/chat-jsonl.js";
import { detectFormat } from "../../../src/ingest/registry.js";
import { importErrorOf, importFixture, importText, speakerName } from "./helpers.js";

const kinds = (s: { participants: { name: string; kind: string }[] }) => s.participants.map((p) => [p.name, p.kind]);

describe("chat-json variants", () => {
  it("reads an array of {id, messages} as one session per conversation, keys beside messages kept", async () => {
    const { sessions } = await importFixture(chatJsonImporter, "chat-json/conversations-array.json");
    expect(sessions.map((s) => s.id)).toEqual(["pair-01", "pair-02"]);
    expect(sessions[0].turns.map((t) => t.text)).toEqual([
      "Should we split the essay by section?",
      "Splitting works if you agree on a shared outline first.",
      "I'll draft the outline tonight.",
    ]);
    expect(kinds(sessions[0])).toEqual([
      ["Kofi", "human"],
      ["Sage", "ai"],
      ["Ines", "human"],
    ]);
    expect(sessions[1].title).toBe("Control pair");
    expect(sessions[1].metadata.extra).toEqual({ id: "pair-02", condition: "without-ai" });
  });

  it("reads AutoGen's ChatResult: chat_history with agent names, summary and cost in metadata", async () => {
    const { sessions } = await importFixture(chatJsonImporter, "chat-json/autogen-chat-result.json");
    const [s] = sessions;
    expect(kinds(s)).toEqual([
      ["Teacher", "ai"],
      ["Planner", "human"],
      ["Critic", "human"],
      ["book_bus", "system"],
    ]);
    expect(s.turns.map((t) => t.type)).toEqual(["message", "message", "message", "action", "action"]);
    expect(s.turns[3].text).toBe('book_bus({"count": 2})');
    expect(s.metadata.extra).toMatchObject({ summary: "Three-day plan with two extra buses booked.", human_input: [] });
  });

  it("reads a CAMEL role-playing record: messages in numeric order, both role players AI, task as title", async () => {
    const { sessions } = await importFixture(chatJsonImporter, "chat-json/camel-role-playing.json");
    const [s] = sessions;
    expect(s.id).toBe("0004_0017");
    expect(s.title).toBe("Design a protected bike lane network for the old town within a 2M budget.");
    expect(s.turns.map((t) => speakerName(s, t.index))).toEqual(["City Councillor", "Urban Planner"]);
    expect(kinds(s)).toEqual([
      ["City Councillor", "ai"],
      ["Urban Planner", "ai"],
    ]);
    expect(s.turns[1].text).toBe("Solution: start with the north-south spine along Mill Street.\nNext request.");
    expect(s.metadata.extra).toMatchObject({ termination_reason: "<CAMEL_TASK_DONE>", num_messages: 2 });
  });

  it("reads a multi-agent log whose messages name a sender and whose agents are listed beside them", async () => {
    const { sessions } = await importFixture(chatJsonImporter, "chat-json/multi-agent-log-with-metadata.json");
    const [s] = sessions;
    expect(kinds(s)).toEqual([
      ["Moderator", "human"],
      ["Juror A", "ai"],
      ["Juror B", "ai"],
    ]);
    expect(s.turns[1].metadata).toEqual({ round: 1 });
    expect(s.metadata.extra).toMatchObject({ experiment: "jury-deliberation" });
  });

  it("says which shapes it reads when a JSON document is none of them", async () => {
    const error = await importErrorOf(chatJsonImporter, "log.json", '{"events": [{"who": "a", "said": "b"}]}');
    expect(error.message).toMatch(
      /^log\.json: \$: found an object; expected an array of chat messages .*\{"messages": \[…\]\}.*chat_history.*\[\{"id": …, "messages": \[…\]\}\].*CAMEL/,
    );
    const camel = await importErrorOf(chatJsonImporter, "c.json", '{"message_1": {"role_type": "USER", "content": 3}}');
    expect(camel.message).toMatch(/^c\.json: \$\.message_1\.content: found a number/);
  });

  it("is detected for each of these shapes", () => {
    const head = (path: string, text: string) => detectFormat(path, text).name;
    expect(head("a.json", '[{"id": "x", "messages": [{"role": "user", "content": "hi"}]}]')).toBe("chat-json");
    expect(head("a.json", '{"chat_id": null, "chat_history": [{"content": "hi", "role": "user", "name": "A"}]}')).toBe("chat-json");
    expect(head("a.json", '{"role_1": "A", "message_1": {"role_name": "A", "role_type": "USER", "content": "hi"}}')).toBe("chat-json");
    expect(head("a.json", '{"agents": ["A"], "messages": [{"sender": "A", "content": "hi"}]}')).toBe("chat-json");
  });
});

describe("chat-jsonl", () => {
  it("reads a fine-tuning file: one session per line, names and weights kept, blank lines ignored", async () => {
    const { sessions, result } = await importFixture(chatJsonlImporter, "chat-jsonl/fine-tuning.jsonl");
    expect(result.warnings).toEqual([]);
    expect(sessions.map((s) => s.id)).toEqual(["fine-tuning-1", "fine-tuning-2", "fine-tuning-4"]);
    expect(kinds(sessions[0])).toEqual([
      ["system", "system"],
      ["Amara", "human"],
      ["assistant", "ai"],
      ["Tobias", "human"],
    ]);
    expect(sessions[0].turns[2].metadata).toEqual({ weight: 1 });
    expect(sessions[1].metadata).toMatchObject({ source: { format: "chat-jsonl", line: 2 }, extra: { parallel_tool_calls: false } });
    expect(sessions[2].turns[1].text).toBe("“Have a good day.”");
  });

  it("reads batch requests: the conversation sent, keyed by custom_id, model and settings kept", async () => {
    const { sessions } = await importFixture(chatJsonlImporter, "chat-jsonl/batch-input.jsonl");
    expect(sessions.map((s) => s.id)).toEqual(["cond-a-run-1", "cond-b-run-1"]);
    expect(sessions[0].turns[1].text).toBe("Lena: let's ship Friday\nOmar: only if QA signs off");
    expect(sessions[0].metadata.extra).toMatchObject({ custom_id: "cond-a-run-1", url: "/v1/chat/completions", model: "gpt-4o-mini", temperature: 0.2 });
  });

  it("reads batch results: the reply as an assistant turn with usage; a failed request is a located warning", async () => {
    const { sessions, result } = await importFixture(chatJsonlImporter, "chat-jsonl/batch-output-with-failed-request.jsonl");
    expect(sessions).toHaveLength(1);
    expect(sessions[0].id).toBe("cond-a-run-1");
    expect(sessions[0].turns.map((t) => t.text)).toEqual(["The group will ship on Friday if QA signs off."]);
    expect(kinds(sessions[0])).toEqual([["assistant", "ai"]]);
    expect(sessions[0].metadata.extra).toMatchObject({
      model: "gpt-4o-mini-2024-07-18",
      status_code: 200,
      usage: { total_tokens: 43 },
      choices: [{ finish_reason: "stop" }],
    });
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /batch-output-with-failed-request\.jsonl:2: batch request "cond-b-run-1" has no response \(error: rate_limit_exceeded: Too many requests in the batch window\)/,
      ),
    ]);
  });

  it("reads Responses API batch results: output_text parts are the words, reasoning items kept", async () => {
    const { sessions } = await importFixture(chatJsonlImporter, "chat-jsonl/batch-output-responses-api.jsonl");
    expect(sessions[0].turns.map((t) => t.text)).toEqual(["Three of the four speakers agreed."]);
    expect(sessions[0].metadata.extra).toMatchObject({ output: [{ type: "reasoning", id: "rs_1" }] });
  });

  it("skips a line that is not JSON with a warning naming file and line; the others import", async () => {
    const { sessions, result } = await importFixture(chatJsonlImporter, "chat-jsonl/invalid-line-skipped.jsonl");
    expect(sessions.map((s) => s.turns[0].text)).toEqual(["First conversation survives.", "Third line survives too."]);
    expect(result.warnings).toEqual([expect.stringMatching(/invalid-line-skipped\.jsonl:2: invalid JSON.*; line 2 skipped$/)]);
  });

  it("skips a conversation with a malformed message, naming line and JSON path; rejects a file with nothing readable", async () => {
    const { sessions, result } = await importText(
      chatJsonlImporter,
      "ft.jsonl",
      '{"messages": [{"role": "user", "content": "ok"}]}\n{"messages": [{"role": 7, "content": "x"}]}\n',
    );
    expect(sessions).toHaveLength(1);
    expect(result.warnings).toEqual([
      'ft.jsonl:2: $.messages[0].role: found a number (7); expected a role such as "user", "assistant", "system" or "tool" (or a "name"/"sender" naming the speaker); line 2 skipped',
    ]);
    const error = await importErrorOf(chatJsonlImporter, "x.jsonl", '{"question": "a", "answer": "b"}\n');
    expect(error.message).toMatch(
      /^x\.jsonl:1: none of its 1 line\(s\) is a conversation .*expected one JSON object per line: a conversation \{"messages": \[…\]\}/,
    );
  });

  it("is detected from .jsonl lines holding messages or batch records, and not for native JSONL", () => {
    expect(detectFormat("ft.jsonl", '{"messages": [{"role": "user", "content": "hi"}]}\n').name).toBe("chat-jsonl");
    expect(detectFormat("out.jsonl", '{"id": "b", "custom_id": "r1", "response": {"body": {}}}\n').name).toBe("chat-jsonl");
    expect(detectFormat("data.txt", '{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": []}\n').name).toBe("chat-jsonl");
    expect(chatJsonlImporter.detect("s.jsonl", '{"schemaVersion": 1, "id": "s", "participants": [], "turns": []}\n')).toBe(0);
  });
});
