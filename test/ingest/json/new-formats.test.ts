import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { detectFormat } from "../../../src/ingest/registry.js";
import { sharegptImporter } from "../../../src/ingest/formats/sharegpt.js";
import { fixture, importFixture, importText, speakerName } from "./helpers.js";

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
