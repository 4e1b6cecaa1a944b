import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { askedAgent, harness, type Harness } from "./support.js";
import type { HumanInput } from "../../src/orchestrator/human.js";
import type { PostRecord } from "../../src/orchestrator/journal.js";
import { SessionJournal } from "../../src/orchestrator/journal.js";
import { readSessionFile } from "../../src/transcript/io.js";
import { memoryReporter } from "../../src/util/reporter.js";

/** A person and a bot taking turns, the person typing at a terminal (each line journaled before it is read). */
const chat = `
id: chat
task: Talk about the garden.
participants: [{ name: Dana, kind: human }, { name: Bot }]
strategy: { type: round-robin }
stop: { maxTurns: 8 }
`;

/** The terminal's contract without a terminal: every line is handed to the journal before the session takes it. */
function typist(lines: string[]): HumanInput {
  let journal: ((post: PostRecord) => void) | undefined;
  const queue: string[] = [];
  return {
    queue: "shared",
    record: (sink) => (journal = sink),
    restore: (posts) => queue.unshift(...posts.map((p) => p.text)),
    async ask({ participant }) {
      const restored = queue.shift();
      if (restored !== undefined) return restored;
      const text = lines.shift();
      if (text !== undefined) journal?.({ participant: participant.id, text, receivedAt: Date.now() });
      return text ?? null;
    },
  };
}

let h: Harness;
let replies = 0;
beforeEach(async () => {
  h = await harness();
  replies = 0;
  // The bot's third reply fails: the session stops with Dana's three lines said and its journal kept.
  h.server.setHandler((req) => (++replies === 3 ? { status: 500, message: "the model is down" } : { content: `${askedAgent(req)} answer ${replies}` }));
});
afterEach(() => h.close());

const journalPath = () => join(h.study, ".colloquy", "journal-chat-default-1.jsonl");
const danaSaid = (turns: { speaker: string; text: string }[]) => turns.filter((t) => t.speaker === "dana").map((t) => t.text);

/** A session stopped midway (its journal kept) with Dana's three lines said. */
async function stopMidway(): Promise<void> {
  const [failed] = await h.run(chat, { human: typist(["One.", "Two.", "Three."]) });
  expect(failed.status).toBe("failed");
  h.server.setHandler((req) => ({ content: `${askedAgent(req)} answer ${++replies}` }));
}

/** Damage line `line` of the journal the way a disk fault would; returns the line as it now is. */
async function damage(line: number): Promise<string> {
  const lines = (await readFile(journalPath(), "utf8")).split("\n");
  lines[line - 1] = lines[line - 1].slice(0, 17) + "\u0000#garbled";
  await writeFile(journalPath(), lines.join("\n"));
  return lines[line - 1];
}

/** The backup that holds what a damaged journal held. */
async function journalBackup() {
  for (const file of await readdir(join(h.study, "backups"))) {
    const kept = await readSessionFile(join(h.study, "backups", file));
    const notes = (kept.metadata.orchestrator as { notes?: { journalDamage?: unknown } }).notes;
    if (notes?.journalDamage) return { kept, damage: notes.journalDamage };
  }
  throw new Error("no backup of the damaged journal");
}

/** The journal's line number of the first record of kind `k` matching `where`. */
async function lineOf(k: string, where: (record: Record<string, unknown>) => boolean = () => true): Promise<number> {
  const lines = (await readFile(journalPath(), "utf8")).split("\n").filter(Boolean);
  return lines.findIndex((l) => JSON.parse(l).k === k && where(JSON.parse(l))) + 1;
}

describe("a damaged session journal", () => {
  it("--resume names the file and line, keeps every readable record in backups/, and goes on from before the damage without losing a word", async () => {
    await stopMidway();
    // The bot's first reply (a turn record) is damaged.
    const line = await lineOf("turn", (r) => (r.turn as { speaker: string }).speaker === "bot");
    const garbled = await damage(line);

    const reporter = memoryReporter();
    const [resumed] = await h.run(chat, { resume: true, human: typist(["Four."]), reporter });
    expect(resumed.status, resumed.reason).toBe("completed");
    const warning = reporter.warnings.join("\n");
    expect(warning).toContain(`${journalPath()} line ${line}: not JSON`);
    expect(warning).toContain(`resumes from before line ${line}`);
    // Every word Dana typed, once, in order; the session goes on after them.
    const session = await readSessionFile(join(h.study, "sessions", "chat-default-1.json"));
    expect(danaSaid(session.turns)).toEqual(["One.", "Two.", "Three.", "Four."]);
    // The backup holds what the journal held, the damaged line as it was.
    const { kept, damage: recorded } = await journalBackup();
    expect(danaSaid(kept.turns)).toEqual(["One.", "Two.", "Three."]);
    expect(recorded).toEqual([{ line, problem: expect.stringMatching(/^not JSON/), text: garbled }]);
    expect(kept.turns.map((t) => t.index)).toEqual(kept.turns.map((_, i) => i));
    // The journal was complete, so it is gone.
    await expect(readFile(journalPath())).rejects.toThrow();
  });

  it("--overwrite keeps what the damaged journal held (a lost post line too) before starting again", async () => {
    await stopMidway();
    const garbled = await damage(await lineOf("post", (r) => r.text === "Two."));
    const reporter = memoryReporter();
    const [again] = await h.run(chat, { overwrite: true, human: typist(["Fresh.", "Start.", "Here.", "Now."]), reporter });
    expect(again.status, again.reason).toBe("completed");
    expect(reporter.warnings.join("\n")).toMatch(/journal-chat-default-1\.jsonl line \d+: not JSON/);
    const { kept, damage: recorded } = await journalBackup();
    // The turn records still hold "Two.": nothing people typed is lost with the post line.
    expect(danaSaid(kept.turns)).toEqual(["One.", "Two.", "Three."]);
    expect(recorded).toEqual([expect.objectContaining({ text: garbled })]);
    expect(danaSaid((await readSessionFile(join(h.study, "sessions", "chat-default-1.json"))).turns)).toEqual(["Fresh.", "Start.", "Here.", "Now."]);
  });

  it("a damaged first line: --resume goes on from the run's own start; reading it alone names the file and line 1", async () => {
    await stopMidway();
    await damage(1);
    expect(() => SessionJournal.read(journalPath())).toThrow(`${journalPath()}:1: not a session journal`);
    const reporter = memoryReporter();
    const [resumed] = await h.run(chat, { resume: true, human: typist(["Four."]), reporter });
    expect(resumed.status, resumed.reason).toBe("completed");
    expect(reporter.warnings.join("\n")).toContain(`${journalPath()} line 1: not JSON`);
    const session = await readSessionFile(join(h.study, "sessions", "chat-default-1.json"));
    expect(danaSaid(session.turns)).toEqual(["One.", "Two.", "Three.", "Four."]);
  });
});
