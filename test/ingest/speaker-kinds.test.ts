import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FormatError, importFiles } from "../../src/ingest/registry.js";
import { agentHints, applyStatedKinds } from "../../src/ingest/speaker-kinds.js";
import type { SessionInput } from "../../src/transcript/schema.js";

const fixtures = fileURLToPath(new URL("../../fixtures/transcripts/", import.meta.url));
const kinds = (s: SessionInput) => Object.fromEntries(s.participants.map((p) => [p.name, p.kind]));

describe("speaker kinds in every format", () => {
  it("--humans makes a speaker a person even where the format says AI (CAMEL role player)", async () => {
    const [file] = await importFiles([join(fixtures, "chat-json/camel-role-playing.json")], { humans: ["City Councillor"] });
    expect(kinds(file!.result!.sessions[0]!)).toEqual({ "City Councillor": "human", "Urban Planner": "ai" });
  });

  it("--agents works in formats whose importer does not read it (ChatGPT export, rounds log)", async () => {
    const [file] = await importFiles([join(fixtures, "chatgpt/conversations.json")], { agents: ["user"] });
    expect(file!.result!.sessions[0]!.participants.find((p) => p.id === "user")?.kind).toBe("ai");
  });

  it("a CSV is_ai column (true/false, yes/no) gives each speaker's kind", async () => {
    const [file] = await importFiles([join(fixtures, "csv/is-ai-column.csv")]);
    expect(file!.error).toBeUndefined();
    expect(kinds(file!.result!.sessions[0]!)).toEqual({ Noor: "human", Helper: "ai", Dale: "human" });
  });

  it("refuses a name given both in --agents and --humans", async () => {
    await expect(importFiles([join(fixtures, "csv/is-ai-column.csv")], { agents: ["Helper"], humans: ["helper"] })).rejects.toThrow(FormatError);
    await expect(importFiles([join(fixtures, "csv/is-ai-column.csv")], { agents: ["Helper"], humans: ["helper"] })).rejects.toThrow(/"Helper" given both in --agents and in --humans/);
  });

  it("matches names case-insensitively and by participant id; stated kinds win", () => {
    const session: SessionInput = { id: "s", participants: [{ id: "gpt-4o", name: "GPT 4o", kind: "human" }, { id: "bot", name: "Bot", kind: "ai" }], turns: [] };
    applyStatedKinds([session], { agents: ["gpt-4o"], humans: ["BOT"] });
    expect(kinds(session)).toEqual({ "GPT 4o": "ai", Bot: "human" });
  });

  it("the assistant-name hint names both flags and leaves out speakers stated as humans", () => {
    const session: SessionInput = { id: "s", participants: [{ id: "ra", name: "Research Assistant", kind: "human" }, { id: "c", name: "Claude", kind: "human" }], turns: [] };
    expect(agentHints("a.txt", [session])).toEqual(['a.txt: no speaker is marked as an AI, but "Research Assistant", "Claude" look like an assistant; if so, import again with --agents "Research Assistant,Claude" (or --humans to say they are people)']);
    expect(agentHints("a.txt", [session], { humans: ["Research Assistant"] })).toEqual([expect.stringMatching(/but "Claude" looks like/)]);
    expect(agentHints("a.txt", [session], { humans: ["Research Assistant", "Claude"] })).toEqual([]);
  });
});
