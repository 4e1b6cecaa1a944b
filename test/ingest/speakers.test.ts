import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStudy, runImport, silentEffects } from "../../src/index.js";
import { applyAliases, conflictingAliases } from "../../src/ingest/speaker-aliases.js";
import { loadSessions } from "../../src/study/study.js";
import type { SessionInput } from "../../src/transcript/schema.js";
import { runCli } from "../support/cli.js";

const transcript = "Moderator: Welcome, both.\nAna: Hi.\nGPT-4: Hello, I am the assistant.\nA. Lopez: So, shall we start?\nModerator: Go ahead.\n";

/** A study whose colloquy.json names its speakers, and one plain transcript in its inbox. */
async function studyWithSpeakers(speakers: unknown): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-speakers-")), "study");
  await mkdir(join(dir, "inbox"), { recursive: true });
  await writeFile(join(dir, "colloquy.json"), JSON.stringify({ codebooks: [], speakers }));
  await writeFile(join(dir, "inbox", "meeting.txt"), transcript);
  return dir;
}

const speakers = { ai: ["GPT-4"], human: ["Moderator"], aliases: { "Ana Lopez": ["Ana", "A. Lopez"] } };

function expectSpeakersApplied(
  sessions: { participants: { id: string; name: string; kind: string; metadata?: unknown }[]; turns: { speaker: string; text: string }[] }[],
) {
  const [session] = sessions;
  expect(session.participants.map((p) => [p.id, p.name, p.kind])).toEqual([
    ["moderator", "Moderator", "human"],
    ["ana-lopez", "Ana Lopez", "human"],
    ["gpt-4", "GPT-4", "ai"],
  ]);
  expect(session.participants[1].metadata).toEqual({ namesInSource: ["Ana", "A. Lopez"] });
  // Every turn stays where it was, with its words; only the two names became one person.
  expect(session.turns.map((t) => [t.speaker, t.text])).toEqual([
    ["moderator", "Welcome, both."],
    ["ana-lopez", "Hi."],
    ["gpt-4", "Hello, I am the assistant."],
    ["ana-lopez", "So, shall we start?"],
    ["moderator", "Go ahead."],
  ]);
}

describe('colloquy.json "speakers"', () => {
  it("applies to `colloquy import`", async () => {
    const dir = await studyWithSpeakers(speakers);
    const summary = await runImport(await openStudy(dir), { paths: [join(dir, "inbox", "meeting.txt")] }, silentEffects);
    expect(summary.files[0].error).toBeUndefined();
    expectSpeakersApplied(await loadSessions(dir));
  });

  it("applies on the inbox route (`colloquy study`), and a change to it imports the inbox again", async () => {
    const dir = await studyWithSpeakers({ aliases: speakers.aliases });
    expect((await runCli(["study", dir, "--only", "import"])).code).toBe(0);
    expect((await loadSessions(dir))[0].participants.find((p) => p.name === "GPT-4")?.kind).toBe("human");
    await writeFile(join(dir, "colloquy.json"), JSON.stringify({ codebooks: [], speakers }));
    const again = await runCli(["study", dir, "--only", "import"]);
    expect(again.code, again.stderr).toBe(0);
    expectSpeakersApplied(await loadSessions(dir));
  });

  it("a command-line flag wins over the file; a contradiction within the file is an error", async () => {
    const dir = await studyWithSpeakers(speakers);
    await runImport(await openStudy(dir), { paths: [join(dir, "inbox", "meeting.txt")], humans: ["GPT-4"] }, silentEffects);
    expect((await loadSessions(dir))[0].participants.find((p) => p.name === "GPT-4")?.kind).toBe("human");
    const bad = await studyWithSpeakers({ ai: ["Moderator"], human: ["moderator"] });
    await expect(runImport(await openStudy(bad), { paths: [join(bad, "inbox", "meeting.txt")] }, silentEffects)).rejects.toThrow(
      /"Moderator" named both as AI and as human/,
    );
  });
});

describe("applyAliases", () => {
  it("names listed under two people are reported", () => {
    expect(conflictingAliases({ "Ana Lopez": ["Ana"], "Ana Diaz": ["ana"] })).toEqual(["ana"]);
    expect(conflictingAliases({ "Ana Lopez": ["Ana", "ana lopez"] })).toEqual([]);
  });

  it("keeps a participant's own id when another speaker already holds the person's", () => {
    const session: SessionInput = {
      id: "s",
      participants: [
        { id: "bo", name: "Bo", kind: "human" },
        { id: "bob", name: "Bob", kind: "human" },
        { id: "b", name: "B.", kind: "human" },
      ],
      turns: [
        { id: "t1", index: 0, speaker: "bo", text: "one" },
        { id: "t2", index: 1, speaker: "b", text: "two", addressees: ["bo"] },
      ],
    };
    applyAliases([session], { Bob: ["Bo"] });
    expect(session.participants.map((p) => [p.id, p.name])).toEqual([
      ["bob", "Bob"],
      ["b", "B."],
    ]);
    expect(session.turns.map((t) => t.speaker)).toEqual(["bob", "b"]);
    expect(session.turns[1].addressees).toEqual(["bob"]);
  });
});
