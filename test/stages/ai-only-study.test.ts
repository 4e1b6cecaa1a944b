// A study of AI agents alone (logs of an LLM discussion, no turn times) is a common case: topics
// and concepts count human speakers by default, so they say so instead of leaving empty views
// whose only hint was "re-run `colloquy concepts`", which changes nothing.
import { afterAll, beforeAll, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initStudy, saveSession } from "../../src/study/study.js";
import { sessionSchema } from "../../src/transcript/schema.js";
import { openStudy, silentEffects, type StageEffects } from "../../src/stages/context.js";
import { runConcepts } from "../../src/stages/concepts.js";
import { runTopics } from "../../src/stages/topics.js";
import { readConcepts } from "../../src/report/shape/analysis.js";
import { noHumanSpeakers } from "../../src/analysis/concepts/speakers.js";

let root: string;
let dir: string;

const said = [
  "A fork could be a garden marker for seedlings.",
  "Building on the fork idea, a fork bent into a bracelet makes jewelry.",
  "The fork as a phone stand is another use.",
];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "colloquy-ai-only-"));
  dir = join(root, "study");
  await initStudy(dir);
  for (const id of ["q1", "q2"]) {
    const participants = [
      { id: "agent-1", name: "Agent 1", kind: "ai" },
      { id: "agent-2", name: "Agent 2", kind: "ai" },
    ];
    const turns = said.map((text, index) => ({ id: `t${index}`, index, speaker: participants[index % 2]!.id, text }));
    await saveSession(dir, sessionSchema.parse({ id, participants, turns }));
  }
});

afterAll(() => rm(root, { recursive: true, force: true }));

function recording(): { effects: StageEffects; warnings: string[] } {
  const warnings: string[] = [];
  return { effects: { ...silentEffects, warn: (message: string) => void warnings.push(message) }, warnings };
}

it("concepts and topics warn that no one is counted, naming the setting that counts the agents", async () => {
  const context = await openStudy(dir);
  const concepts = recording();
  const { report } = await runConcepts(context, {}, concepts.effects);
  expect(concepts.warnings).toEqual([expect.stringContaining('set "concepts": {"speakers": "all"} in colloquy.json or pass --speakers all')]);
  const topics = recording();
  await runTopics(context, {}, topics.effects);
  expect(topics.warnings).toEqual([expect.stringContaining('set "topics": {"speakers": "all"}')]);

  // The dashboard's warning gives the real reason (no turn times), not a re-run that changes nothing.
  const warnings: string[] = [];
  expect(readConcepts({ file: "concepts.json", params: [], value: report }, warnings)).toBeNull();
  expect(warnings).toEqual([
    "analysis/concepts.json: no concept rates or first mentions to chart: the sessions have no turn times, so there are no rates per minute or times of first mentions",
  ]);
});

it("counting everyone, or a study with one human, gives no warning", async () => {
  const context = await openStudy(dir);
  const all = recording();
  await runConcepts(context, { speakers: "all" }, all.effects);
  expect(all.warnings).toEqual([]);
  const sessions = await context.sessions();
  expect(noHumanSpeakers(sessions, "human", "concepts")).toBeDefined();
  const withHuman = [...sessions, { participants: [{ id: "p", name: "P", kind: "human" as const }] }];
  expect(noHumanSpeakers(withHuman, "human", "concepts")).toBeUndefined();
  expect(noHumanSpeakers(sessions, ["Agent 1"], "concepts")).toBeUndefined();
});
