import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initStudy, saveSession } from "../../../src/study/study.js";
import { sessionSchema, type Session, type SessionInput } from "../../../src/transcript/schema.js";
import { turnId } from "../../../src/transcript/ids.js";

/** Shared by the topics and concepts tests: small sessions with known content. */
export function makeSession(
  id: string,
  condition: string | undefined,
  lines: [speaker: string, text: string, start?: number, end?: number][],
  participants: { id: string; name: string; kind: "human" | "ai" | "system" }[] = [
    { id: "alice", name: "Alice", kind: "human" },
    { id: "bob", name: "Bob", kind: "human" },
    { id: "agent", name: "Agent", kind: "ai" },
  ],
): Session {
  const input: SessionInput = {
    id,
    metadata: condition === undefined ? {} : { condition },
    participants,
    turns: lines.map(([speaker, text, start, end], index) => ({ id: turnId(index), index, speaker, text, start, end })),
  };
  return sessionSchema.parse(input);
}

/** Garden session: two humans and an agent, with times (seconds). */
export const gardenLines: [string, string, number, number][] = [
  ["alice", "We could build a community garden with raised beds.", 0, 10],
  ["bob", "Yes, and the garden could have a compost bin for the kitchen scraps.", 12, 20],
  ["agent", "Raised beds help children reach the plants.", 21, 30],
  ["alice", "The children could plant tomatoes and herbs in the beds.", 31, 40],
  ["bob", "Um, a rain barrel would water the tomatoes.", 41, 50],
  ["alice", "A solar pump for the rain barrel, maybe.", 51, 60],
];

/** A temporary study with the given sessions saved. */
export async function makeStudy(sessions: Session[], config: Record<string, unknown> = {}): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), "colloquy-topics-")), "study");
  await initStudy(dir, config);
  for (const s of sessions) await saveSession(dir, s);
  return dir;
}
