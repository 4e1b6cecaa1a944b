import { describe, expect, it } from "vitest";
import { chatgptImporter } from "../../../src/ingest/formats/chatgpt.js";
import { importErrorOf, importFixture, importText, speakerName } from "./helpers.js";

/** A minimal conversation: root -> u1 -> (a-old | a-new), current_node chosen by the test. */
function tree(current: string | undefined, extra: Record<string, unknown> = {}) {
  const node = (id: string, parent: string | null, role: string | null, text: string, time: number) => ({
    id,
    parent,
    children: [],
    message: role === null ? null : { id, author: { role }, create_time: time, content: { content_type: "text", parts: [text] }, metadata: {} },
  });
  return {
    title: "t",
    create_time: 100,
    ...(current === undefined ? {} : { current_node: current }),
    mapping: {
      r: node("r", null, null, "", 0),
      u1: node("u1", "r", "user", "question", 101),
      old: node("old", "u1", "assistant", "first answer", 102),
      new: node("new", "u1", "assistant", "regenerated answer", 110),
    },
    ...extra,
  };
}

describe("chatgpt importer", () => {
  it("follows the active branch from current_node and keeps regenerated answers off the turns", async () => {
    const { sessions, result } = await importFixture(chatgptImporter, "chatgpt/conversations.json");
    expect(sessions.map((s) => s.title)).toEqual(["Haiku about autumn", "Plot a sine wave", "New chat"]);
    const haiku = sessions[0];
    expect(haiku.id).toBe("6a1f-haiku");
    expect(haiku.turns.map((t) => t.text)).toEqual([
      "Write a haiku about autumn leaves.",
      "Crimson leaves drifting\nwhispers on the cooling wind\nthe maple lets go",
      "Now in French, and match the mood of this photo",
      "Toits gris de brume —\nles feuilles rousses se posent\nsur le banc mouillé",
    ]);
    expect(haiku.turns.map((_, i) => speakerName(haiku, i))).toEqual(["user", "assistant", "user", "assistant"]);
    expect(haiku.participants.map((p) => p.kind)).toEqual(["human", "ai"]);
    // Times: create_time kept; start = seconds since the conversation's create_time.
    expect(haiku.metadata.create_time).toBe(1714000000.5);
    expect(haiku.turns[0]).toMatchObject({ start: 9.5, timestamp: "2024-04-24T23:06:50.000Z" });
    // The image part of the multimodal prompt stays in metadata.
    expect(haiku.turns[2].metadata?.content).toMatchObject({ content_type: "image_asset_pointer", asset_pointer: "file-service://file-abc123" });
    // Inactive branch (edited prompt + its answer, and the regenerated-away answer) kept in metadata, not as turns.
    const off = haiku.metadata.offBranch as { id: string; text: string }[];
    expect(off.map((o) => o.id).sort()).toEqual(["n-asst-2a", "n-asst-2b-old", "n-user-2a"]);
    expect(off.find((o) => o.id === "n-asst-2b-old")?.text).toBe("Brume sur les toits (first try, regenerated)");
    // Hidden context: skipped as a turn, its text kept in metadata; counts in warnings.
    expect(JSON.stringify(haiku.metadata.hidden)).toContain("I am a poetry teacher in Lyon.");
    expect(result.warnings).toContain(
      `${haiku.metadata.source && (haiku.metadata.source as { file: string }).file}: $[0] ("Haiku about autumn"): skipped 1 empty and 1 hidden system/context message(s) (hidden text kept in metadata.hidden)`,
    );
  });

  it("imports code and tool output as action turns", async () => {
    const { sessions } = await importFixture(chatgptImporter, "chatgpt/conversations.json");
    const sine = sessions[1];
    expect(sine.id).toBe("7b2c-sine");
    expect(sine.turns.map((t) => t.type)).toEqual(["message", "action", "action", "message"]);
    expect(sine.turns[1].metadata).toMatchObject({ recipient: "python", contentType: "code", content: { language: "python" } });
    expect(speakerName(sine, 2)).toBe("python");
    expect(sine.participants.find((p) => p.name === "python")?.kind).toBe("system");
  });

  it("imports a conversation with only a hidden empty system node as an empty session", async () => {
    const { sessions, result } = await importFixture(chatgptImporter, "chatgpt/conversations.json");
    expect(sessions[2].turns).toEqual([]);
    expect(result.warnings.some((w) => w.includes('"New chat"') && w.includes("empty session"))).toBe(true);
  });

  it("takes whichever branch current_node names", async () => {
    const newer = await importText(chatgptImporter, "c.json", JSON.stringify([tree("new")]));
    expect(newer.sessions[0].turns.map((t) => t.text)).toEqual(["question", "regenerated answer"]);
    const older = await importText(chatgptImporter, "c.json", JSON.stringify([tree("old")]));
    expect(older.sessions[0].turns.map((t) => t.text)).toEqual(["question", "first answer"]);
    expect((older.sessions[0].metadata.offBranch as { text: string }[]).map((o) => o.text)).toEqual(["regenerated answer"]);
  });

  it("without current_node follows the newest leaf and says so", async () => {
    const { sessions, result } = await importText(chatgptImporter, "c.json", JSON.stringify(tree(undefined)));
    expect(sessions[0].turns.map((t) => t.text)).toEqual(["question", "regenerated answer"]);
    expect(result.warnings.join("\n")).toMatch(/no "current_node"/);
  });

  it("reports broken trees and shapes with JSON paths", async () => {
    const missing = await importErrorOf(chatgptImporter, "c.json", JSON.stringify([tree("nope")]));
    expect(missing.jsonPath).toBe("$[0].current_node");
    const loop = tree("new");
    (loop.mapping.u1 as { parent: string }).parent = "new";
    expect((await importErrorOf(chatgptImporter, "c.json", JSON.stringify([loop]))).message).toMatch(/loop/);
    const dangling = tree("new");
    (dangling.mapping.u1 as { parent: string }).parent = "ghost";
    expect((await importErrorOf(chatgptImporter, "c.json", JSON.stringify([dangling]))).message).toMatch(/\$\[0\]\.mapping\.u1\.parent.*"ghost"/);
    expect((await importErrorOf(chatgptImporter, "c.json", JSON.stringify([{ mapping: [] }]))).jsonPath).toBe("$[0].mapping");
    expect(
      (await importErrorOf(chatgptImporter, "c.json", '[{"mapping": {"a": {"message": {"content": {"parts": "x"}}}}, "current_node": "a"}]')).jsonPath,
    ).toBe("$[0].mapping.a.message.content.parts");
  });

  it("detects conversations.json", () => {
    expect(chatgptImporter.detect("conversations.json", '[{"title": "x", "mapping": {"a": {"parent": null')).toBeGreaterThan(0.9);
    expect(chatgptImporter.detect("x.json", '[{"role": "user"}]')).toBe(0);
  });
});
