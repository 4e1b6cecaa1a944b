import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOpenAiServer, type OpenAiServer } from "../../support/openai-server.js";
import { createChatModel } from "../../../src/llm/client.js";
import { resolveModelConfig } from "../../../src/llm/config.js";
import type { ChatModel, ChatRequest, ChatResult } from "../../../src/llm/types.js";
import { llmTopicRun, parseTopicReply, topicPrompt } from "../../../src/analysis/topics/llm.js";
import { buildTopicsReport } from "../../../src/analysis/topics/report.js";
import { topicUnits } from "../../../src/analysis/topics/units.js";
import { createConceptExtractor } from "../../../src/analysis/concepts/extract.js";
import { gardenLines, makeSession } from "./fixture.js";

const session = makeSession("g", "A", gardenLines);
const [aliceUnit] = topicUnits([session], "participant", ["Alice"]);
const [sessionUnit] = topicUnits([session], "session", "human");

const reply = (mainTopics: { label: string; turns: string[]; subtopics: { label: string; turns: string[] }[] }[]) => JSON.stringify({ mainTopics });
const gardenTree = reply([
  {
    label: "Community garden",
    turns: ["t0000"],
    subtopics: [
      { label: "Raised beds", turns: ["t0000", "t0003"] },
      { label: "Children planting", turns: ["t0003"] },
    ],
  },
  { label: "Watering", turns: ["t0005"], subtopics: [{ label: "Solar pump", turns: ["t0005"] }] },
]);

/** A scripted ChatModel for unit tests of the seam (errors as values). */
function fakeModel(replies: ChatResult[]): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    requests,
    info: { model: "fake", endpointHost: "fake", temperature: 0 },
    usage: () => ({ requests: requests.length, cachedResponses: 0, failures: 0, promptTokens: 0, completionTokens: 0 }),
    async complete(request) {
      requests.push(request);
      return replies.shift() ?? { ok: false, error: { kind: "unknown", message: "no reply scripted", attempts: 1 } };
    },
  };
}
const ok = (text: string): ChatResult => ({
  ok: true,
  response: { text, model: "fake", usage: { promptTokens: 1, completionTokens: 1 }, latencyMs: 0, cached: false, requestHash: `h${text.length}` },
});

describe("topic prompt and reply validation", () => {
  it("marks only the unit's turns and shows the rest as context", () => {
    const [, user] = topicPrompt(aliceUnit);
    expect(user.content).toContain("* [t0000] Alice: We could build a community garden with raised beds.");
    expect(user.content).toContain("  [t0001] Bob: Yes, and the garden could have");
    expect(user.content).toContain("Alice's contributions");
  });

  it("shows a long session's other turns only just before the participant's, with gaps marked", () => {
    const lines = Array.from({ length: 130 }, (_, i) => [i % 10 === 9 ? "alice" : "bob", `turn ${i}`] as [string, string]);
    const [unit] = topicUnits([makeSession("long", "A", lines)], "participant", ["Alice"]);
    const body = topicPrompt(unit)[1].content.split("\n").slice(2);
    expect(body.slice(0, 5)).toEqual(["  …", "  [t0007] Bob: turn 7", "  [t0008] Bob: turn 8", "* [t0009] Alice: turn 9", "  …"]);
    expect(body.filter((l) => l.startsWith("*"))).toHaveLength(13);
    expect(body.at(-1)).toBe("* [t0129] Alice: turn 129");
  });

  it("rejects turns of another speaker in participant scope, and accepts them in session scope", () => {
    const text = reply([{ label: "Garden", turns: ["t0001"], subtopics: [] }]);
    const bad = parseTopicReply(text, aliceUnit);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/mainTopics\.0 cites "t0001".*only the marked turns may be cited \(t0000, t0003, t0005\)/);
    expect(parseTopicReply(text, sessionUnit).ok).toBe(true);
    expect(parseTopicReply(reply([{ label: "Ghost", turns: ["t0099"], subtopics: [] }]), sessionUnit).ok).toBe(false);
  });

  it("fills a main topic's turns from its sub-topics, accepts a code fence, and names schema errors", () => {
    const r = parseTopicReply("```json\n" + reply([{ label: "G", turns: [], subtopics: [{ label: "x", turns: ["t0003"] }] }]) + "\n```", aliceUnit);
    expect(r.ok && r.tree.mainTopics[0]).toMatchObject({ id: "alice:m1", turns: ["t0003"], subtopics: [{ id: "alice:m1.s1" }] });
    const e = parseTopicReply('{"mainTopics":[{"label":"","turns":["t0000"],"subtopics":[]}]}', aliceUnit);
    expect(!e.ok && e.error).toMatch(/^mainTopics\.0\.label:/);
  });

  it("reports an LLM error as a failed run without re-asking", async () => {
    const model = fakeModel([{ ok: false, error: { kind: "auth", message: "no API key: export OPENAI_API_KEY=...", attempts: 1 } }]);
    const run = await llmTopicRun(model, aliceUnit, 0);
    expect(run).toMatchObject({ tree: null, failure: "no API key: export OPENAI_API_KEY=...", reasked: false });
    expect(model.requests).toHaveLength(1);
  });

  it("re-asks once with the error and uses a corrected reply", async () => {
    const model = fakeModel([ok("not json"), ok(gardenTree)]);
    const run = await llmTopicRun(model, aliceUnit, 2, { seed: 10 });
    expect(run.reasked).toBe(true);
    expect(run.tree?.mainTopics).toHaveLength(2);
    expect(model.requests.map((r) => r.seed)).toEqual([12, 12]);
    const again = model.requests[1].messages;
    expect(again[2]).toEqual({ role: "assistant", content: "not json" });
    expect(again[3].content).toMatch(/^That reply is not valid: not valid JSON/);
  });
});

describe("LLM topics through the OpenAI-compatible test server", () => {
  let server: OpenAiServer;
  let cacheDir: string;
  beforeEach(async () => {
    server = await startOpenAiServer();
    cacheDir = await mkdtemp(join(tmpdir(), "colloquy-topics-cache-"));
  });
  afterEach(async () => server.close());
  const model = () => createChatModel({ ...resolveModelConfig({ env: {} }), baseURL: server.url, model: "test-model", cacheDir, maxRetries: 0 });
  const extractor = createConceptExtractor();

  it("runs N times with varied seeds, merges the runs and reports the spread", async () => {
    const bySeed: Record<number, string> = {
      5: gardenTree,
      6: reply([
        { label: "Community garden", turns: ["t0000"], subtopics: [{ label: "raised bed", turns: ["t0000"] }] },
        { label: "Watering", turns: ["t0005"], subtopics: [] },
      ]),
      7: reply([
        {
          label: "community gardens",
          turns: ["t0000", "t0003"],
          subtopics: [
            { label: "Raised beds", turns: ["t0003"] },
            { label: "Tomatoes", turns: ["t0003"] },
            { label: "Herbs", turns: ["t0003"] },
          ],
        },
      ]),
    };
    server.setHandler((req) => ({ content: bySeed[req.body.seed] }));
    const report = await buildTopicsReport([session], { coder: "llm", scope: "participant", speakers: ["Alice"], runs: 3, extractor, model: model(), seed: 5 });
    const requests = server.chatRequests();
    expect(requests.map((r) => r.body.seed).sort()).toEqual([5, 6, 7]);
    expect(requests[0].body.response_format.type).toBe("json_schema");
    const tree = report.trees[0];
    // Ratios per run: 3/2, 1/2, 3/1.
    expect(tree.runs.map((r) => r.branchingRatio)).toEqual([1.5, 0.5, 3]);
    expect(tree.branching.mean).toBeCloseTo(5 / 3, 12);
    expect(tree.branching.sd).toBeCloseTo(Math.sqrt(((1.5 - 5 / 3) ** 2 + (0.5 - 5 / 3) ** 2 + (3 - 5 / 3) ** 2) / 2), 12);
    expect([tree.branching.min, tree.branching.max]).toEqual([0.5, 3]);
    // Merged: the garden in 3 of 3 runs, "Watering" in 2 of 3. Under the garden: "Raised beds"
    // in 3 of 3; "Children planting" matches run 3's "Tomatoes" through their shared turn t0003
    // ((0 + 1) / 2 = 0.5): 2 of 3, kept; "Herbs" (same run as "Tomatoes"): 1 of 3, dropped.
    // "Solar pump" is in 1 of the 2 "Watering" members: half, kept.
    expect(tree.merged?.mainTopics.map((m) => [m.label, m.turns])).toEqual([
      ["Community garden", ["t0000", "t0003"]],
      ["Watering", ["t0005"]],
    ]);
    expect(tree.merged?.mainTopics[0].subtopics.map((s) => [s.label, s.support])).toEqual([
      ["Raised beds", 3],
      ["Children planting", 2],
    ]);
    expect(tree.merged?.mainTopics[1].subtopics.map((s) => [s.label, s.support])).toEqual([["Solar pump", 1]]);
    expect(tree.merged?.branchingRatio).toBe(1.5);
    expect(report.provenance).toMatchObject({ coder: "llm", runs: 3, seed: 5, model: { model: "test-model" } });
    expect(report.provenance.promptHash).toMatch(/^[0-9a-f]{16}$/);
    expect(report.failures).toEqual([]);

    // A second run is answered from the cache: no new requests, same numbers.
    const again = await buildTopicsReport([session], { coder: "llm", scope: "participant", speakers: ["Alice"], runs: 3, extractor, model: model(), seed: 5 });
    expect(server.chatRequests()).toHaveLength(3);
    expect(again.trees[0].branching).toEqual(tree.branching);
  });

  it("re-asks a malformed reply once, and reports a second malformed reply as a failure", async () => {
    // Runs go out concurrently, so reply by seed (run) and by whether it is the re-ask.
    server.setHandler((req) => {
      const reask = req.body.messages.length > 2;
      if (req.body.seed === 0) return { content: reask ? gardenTree : "Sure! Here are the topics: garden, water" };
      return { content: reask ? '{"mainTopics": "garden"}' : reply([{ label: "Garden", turns: ["t0001"], subtopics: [] }]) };
    });
    const report = await buildTopicsReport([session], { coder: "llm", scope: "participant", speakers: ["Alice"], runs: 2, extractor, model: model() });
    const requests = server.chatRequests();
    expect(requests).toHaveLength(4);
    const reasks = requests.filter((r) => r.body.messages.length > 2).sort((a, b) => a.body.seed - b.body.seed);
    expect(reasks.map((r) => r.body.seed)).toEqual([0, 1]);
    expect(reasks[0].body.messages.at(-1).content).toMatch(/not valid JSON/);
    expect(reasks[1].body.messages.at(-1).content).toMatch(/cites "t0001"/);
    const [first, second] = report.trees[0].runs;
    expect(first).toMatchObject({ reasked: true, branchingRatio: 1.5 });
    expect(second).toMatchObject({ tree: null, reasked: true, branchingRatio: null, raw: '{"mainTopics": "garden"}' });
    expect(second.failure).toMatch(/^invalid reply after one re-ask: mainTopics:/);
    expect(report.failures).toEqual([{ key: "g/alice", run: 1, reason: second.failure }]);
    expect(report.trees[0].branching).toMatchObject({ mean: 1.5, n: 1, failedRuns: 1 });
  });
});
