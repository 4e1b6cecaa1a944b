import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FormatError, importFiles } from "../../src/ingest/registry.js";
import { agentHints, applyStatedKinds, conflictingKinds } from "../../src/ingest/speaker-kinds.js";
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
    await expect(importFiles([join(fixtures, "csv/is-ai-column.csv")], { agents: ["Helper"], humans: ["helper"] })).rejects.toThrow(
      /"Helper" named both as AI and as human \(--agents \/ --humans/,
    );
  });

  it("the --agents/--humans conflict check compares names and ids of both flags alike", async () => {
    // "GPT 4" and "gpt-4" both claim the participant gpt-4, whichever flag holds which spelling.
    expect(conflictingKinds({ agents: ["GPT 4"], humans: ["gpt-4"] })).toEqual(["GPT 4"]);
    expect(conflictingKinds({ agents: ["gpt-4"], humans: ["GPT 4"] })).toEqual(["gpt-4"]);
    expect(conflictingKinds({ agents: ["Research Bot"], humans: ["research_bot"] })).toEqual([]);
    // Names without letters have no id of their own: two different emoji do not conflict.
    expect(conflictingKinds({ agents: ["🤖"], humans: ["👤"] })).toEqual([]);
    await expect(importFiles([join(fixtures, "csv/is-ai-column.csv")], { agents: ["GPT 4"], humans: ["gpt-4"] })).rejects.toThrow(
      /"GPT 4" named both as AI and as human \(--agents \/ --humans/,
    );
  });

  it('an emoji in --agents does not claim the participants whose id fell back to "speaker"', () => {
    const session: SessionInput = {
      id: "s",
      participants: [
        { id: "speaker", name: "(no speaker)", kind: "human" },
        { id: "speaker-2", name: "🤖", kind: "human" },
      ],
      turns: [],
    };
    applyStatedKinds([session], { agents: ["🤖"] });
    expect(kinds(session)).toEqual({ "(no speaker)": "human", "🤖": "ai" });
  });

  it("matches names case-insensitively and by participant id; stated kinds win", () => {
    const session: SessionInput = {
      id: "s",
      participants: [
        { id: "gpt-4o", name: "GPT 4o", kind: "human" },
        { id: "bot", name: "Bot", kind: "ai" },
      ],
      turns: [],
    };
    applyStatedKinds([session], { agents: ["gpt-4o"], humans: ["BOT"] });
    expect(kinds(session)).toEqual({ "GPT 4o": "ai", Bot: "human" });
  });

  it("the assistant-name hint names both flags and leaves out speakers stated as humans", () => {
    const session: SessionInput = {
      id: "s",
      participants: [
        { id: "ra", name: "Research Assistant", kind: "human" },
        { id: "c", name: "Claude", kind: "human" },
      ],
      turns: [],
    };
    expect(agentHints("a.txt", [session])).toEqual([
      'a.txt: no speaker is marked as an AI, but "Research Assistant", "Claude" look like an assistant; if so, import again with --agents "Research Assistant,Claude" (or --humans to say they are people), or list them in "speakers": {"ai": [...]} of colloquy.json',
    ]);
    expect(agentHints("a.txt", [session], { humans: ["Research Assistant"] })).toEqual([expect.stringMatching(/but "Claude" looks like/)]);
    expect(agentHints("a.txt", [session], { humans: ["Research Assistant", "Claude"] })).toEqual([]);
    // A speaker stated as human by id gets no hint either.
    const byId: SessionInput = { id: "s", participants: [{ id: "gpt-4", name: "GPT (4)", kind: "human" }], turns: [] };
    expect(agentHints("a.txt", [byId], { humans: ["gpt-4"] })).toEqual([]);
  });
});
