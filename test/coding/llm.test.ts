import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { modelFor } from "../llm/helpers.js";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import type { Codebook } from "../../src/coding/codebook/schema.js";
import { createLlmCoder } from "../../src/coding/llm/coder.js";
import { buildUserPrompt, parseContext, PROMPT_TEMPLATE_HASH } from "../../src/coding/llm/prompt.js";
import { parseBatchReply, parseReply } from "../../src/coding/llm/parse.js";
import { aggregateSamples } from "../../src/coding/llm/aggregate.js";
import { balesCodeFor, balesHandler, makeSession, targetsOf, TEXTS_A, TEXTS_B } from "./llm-fixtures.js";

let bales: Codebook;
let style: Codebook;
beforeEach(async () => {
  bales = await loadCodebook("bales-ipa");
  style = await loadCodebook("pragmatic-style");
});

describe("prompt and context window", () => {
  const a = makeSession("a", TEXTS_A);
  it("shows k turns before and after the target, clipped at the session's edges", () => {
    const prompt = buildUserPrompt(a, [3], { before: 2, after: 2 });
    const lines = prompt.split("\n").filter((l) => /^(TARGET|context) \[/.test(l));
    expect(lines.map((l) => l.split("]")[0])).toEqual(["context [t0001", "context [t0002", "TARGET [t0003", "context [t0004", "context [t0005"]);
    expect(prompt).toContain("Ava (human, facilitator)");
    expect(prompt).toContain("Nova (ai, assistant)");
    expect(prompt).toContain("TARGET [t0003] Nova: What do you think about the timeline?");
    const edge = buildUserPrompt(a, [0], { before: 2, after: 1 })
      .split("\n")
      .filter((l) => /^(TARGET|context) \[/.test(l));
    expect(edge).toHaveLength(2);
  });

  it("parses --context specs", () => {
    expect(parseContext("2:2")).toEqual({ before: 2, after: 2 });
    expect(parseContext("3")).toEqual({ before: 3, after: 3 });
    expect(parseContext("0:4")).toEqual({ before: 0, after: 4 });
    expect(() => parseContext("two")).toThrow(/--context/);
  });

  it("keeps the turn text verbatim, newlines and spacing included", () => {
    const s = makeSession("v", ["  spaced  out \n second line  "]);
    expect(buildUserPrompt(s, [0], { before: 0, after: 0 })).toContain("Ava:   spaced  out \n second line  ");
  });
});

describe("strict parsing and validation", () => {
  it("accepts ids, exact labels and one code fence; rejects everything else", () => {
    expect(parseReply(bales, '{"code":"agrees","rationale":"r"}')).toEqual({ ok: true, value: { codes: ["agrees"], rationale: "r" } });
    expect(parseReply(bales, '```json\n{"code":"Shows solidarity"}\n```')).toMatchObject({ ok: true, value: { codes: ["shows-solidarity"] } });
    expect(parseReply(bales, '{"code":"praise"}')).toMatchObject({ ok: false, error: expect.stringContaining('"praise" is not a category of bales-ipa') });
    expect(parseReply(bales, 'Sure! {"code":"agrees"}')).toMatchObject({ ok: false, error: expect.stringContaining("not valid JSON") });
    expect(parseReply(bales, '{"codes":["agrees","disagrees"]}')).toMatchObject({ ok: false, error: expect.stringContaining("exactly one") });
    expect(parseReply(bales, "")).toMatchObject({ ok: false });
  });

  it("requires an integer in 1..points for every scale", () => {
    const full = { sentiment: 4, formality: 5, directness: 3, relationship: 7, participation: 1 };
    expect(parseReply(style, JSON.stringify({ scores: full }))).toMatchObject({ ok: true, value: { scores: full } });
    expect(parseReply(style, JSON.stringify({ scores: { ...full, sentiment: 8 } }))).toMatchObject({ ok: false, error: expect.stringContaining("1 to 7") });
    expect(parseReply(style, JSON.stringify({ scores: { ...full, sentiment: 4.5 } }))).toMatchObject({ ok: false });
    expect(parseReply(style, JSON.stringify({ scores: { ...full, sentiment: "4" } }))).toMatchObject({ ok: false });
    const { formality: _f, ...missing } = full;
    expect(parseReply(style, JSON.stringify({ scores: missing }))).toMatchObject({ ok: false, error: expect.stringContaining('"formality"') });
    expect(parseReply(style, JSON.stringify({ scores: { ...full, humour: 3 } }))).toMatchObject({ ok: false, error: expect.stringContaining("humour") });
  });

  it("checks batched replies item by item", () => {
    const reply = JSON.stringify({
      items: [
        { turn: "t0001", code: "agrees" },
        { turn: "t0002", code: "nonsense" },
      ],
    });
    const parsed = parseBatchReply(bales, reply, ["t0001", "t0002", "t0003"]);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.items.get("t0001")).toMatchObject({ ok: true });
    expect(parsed.items.get("t0002")).toMatchObject({ ok: false });
    expect(parsed.items.get("t0003")).toMatchObject({ ok: false, error: expect.stringContaining("no item") });
    expect(parseBatchReply(bales, JSON.stringify({ items: [{ turn: "t0009", code: "agrees" }] }), ["t0001"]).ok).toBe(false);
  });
});

describe("aggregating samples", () => {
  it("takes the majority and breaks ties by codebook order, reporting the tie", () => {
    const majority = aggregateSamples(bales, [{ codes: ["agrees"] }, { codes: ["disagrees"] }, { codes: ["agrees"] }]);
    expect(majority.value.codes).toEqual(["agrees"]);
    expect(majority.agreement).toBeCloseTo(2 / 3, 10);
    const tie = aggregateSamples(bales, [{ codes: ["disagrees"] }, { codes: ["agrees"] }]);
    expect(tie.value.codes).toEqual(["agrees"]); // agrees (3) comes before disagrees (10)
    expect(tie.details.tie).toEqual({
      between: ["disagrees", "agrees"].sort((x, y) => (x === "agrees" ? -1 : y === "agrees" ? 1 : 0)),
      brokenBy: "codebook order",
      chosen: "agrees",
    });
    expect(tie.agreement).toBe(0.5);
  });

  it("stores the rounded mean for scales and keeps the unrounded means", () => {
    const base = { formality: 4, directness: 4, relationship: 4, participation: 4 };
    const result = aggregateSamples(style, [
      { scores: { sentiment: 5, ...base } },
      { scores: { sentiment: 6, ...base } },
      { scores: { sentiment: 6, ...base } },
    ]);
    expect(result.value.scores?.sentiment).toBe(6); // mean 5.667
    expect((result.details.sampleMeans as Record<string, number>).sentiment).toBeCloseTo(17 / 3, 10);
    // sentiment: 2 of 3 agree with 6; the other four scales agree fully.
    expect(result.agreement).toBeCloseTo((2 / 3 + 4) / 5, 10);
  });
});

describe("LLM coder through the real SDK", () => {
  let server: OpenAiServer;
  beforeEach(async () => {
    server = await startOpenAiServer({ handler: balesHandler });
  });
  afterEach(async () => {
    await server.close();
  });

  it("codes a turn with temperature 0, a strict json_schema and provenance", async () => {
    const session = makeSession("a", TEXTS_A);
    const coder = createLlmCoder({ model: modelFor(server), codebook: bales });
    const [outcome] = await coder.code(session, [3]);
    expect(outcome).toMatchObject({ status: "coded", turn: "t0003", value: { codes: ["asks-opinion"] } });
    const body = server.chatRequests()[0].body;
    expect(body.temperature).toBe(0);
    expect(body.response_format.type).toBe("json_schema");
    expect(body.response_format.json_schema.strict).toBe(true);
    expect(body.response_format.json_schema.schema.properties.code.enum).toHaveLength(13);
    expect(body.messages[0].content).toContain("- id: shows-solidarity");
    expect(body.messages[0].content).toContain("examples:");
    if (outcome.status !== "coded") return;
    expect(outcome.provenance).toMatchObject({
      coder: "llm",
      model: "test-model",
      endpointHost: `127.0.0.1:${server.port}`,
      temperature: 0,
      samples: 1,
      context: "2:2",
      promptTemplate: PROMPT_TEMPLATE_HASH,
      codebook: "bales-ipa",
      codebookVersion: bales.version,
      cached: false,
    });
    expect(outcome.provenance.createdAt).toBeTypeOf("string");
  });

  it("re-asks once with the error after malformed JSON, then codes", async () => {
    server.enqueue({ content: "The code is gives-opinion." });
    const coder = createLlmCoder({ model: modelFor(server), codebook: bales });
    const [outcome] = await coder.code(makeSession("a", TEXTS_A), [1]);
    expect(outcome).toMatchObject({ status: "coded", value: { codes: ["gives-opinion"] }, provenance: { reasked: true } });
    const second = server.chatRequests()[1].body.messages;
    expect(second).toHaveLength(4);
    expect(second[2]).toEqual({ role: "assistant", content: "The code is gives-opinion." });
    expect(second[3].content).toContain("not valid JSON");
  });

  it("records a failure with the raw replies when the re-ask is unusable too, never a code", async () => {
    server.enqueue({ content: "not json" }, { content: '{"code":"asks-for-pizza"}' });
    const coder = createLlmCoder({ model: modelFor(server), codebook: bales });
    const [outcome] = await coder.code(makeSession("a", TEXTS_A), [1]);
    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") return;
    expect(outcome.reason).toContain("not valid JSON");
    expect(outcome.reason).toContain('"asks-for-pizza" is not a category');
    expect(outcome.raw).toContain("not json");
    expect(outcome.raw).toContain("asks-for-pizza");
    expect(server.chatRequests()).toHaveLength(2);
  });

  it("reports a truncated reply as a failure without re-asking", async () => {
    server.enqueue({ content: '{"code":"giv', finishReason: "length" });
    const coder = createLlmCoder({ model: modelFor(server), codebook: bales });
    const [outcome] = await coder.code(makeSession("a", TEXTS_A), [1]);
    expect(outcome).toMatchObject({ status: "failed", reason: expect.stringContaining("finish_reason=length"), raw: '{"code":"giv' });
    expect(server.chatRequests()).toHaveLength(1);
  });

  it("falls back to json_object and then plain text when the endpoint rejects structured output", async () => {
    server.rejectFormats = ["json_schema", "json_object"];
    const coder = createLlmCoder({ model: modelFor(server), codebook: bales });
    const outcomes = await coder.code(makeSession("a", TEXTS_A), [0]);
    expect(outcomes[0]).toMatchObject({ status: "coded", value: { codes: ["asks-opinion"] }, provenance: { structuredOutput: "text" } });
  });

  it("samples N times with different seeds and stores the majority with its agreement", async () => {
    const replies = ["agrees", "disagrees", "agrees"];
    server.setHandler((req) => ({ content: JSON.stringify({ code: replies[req.body.seed - 1], rationale: "s" }) }));
    const coder = createLlmCoder({ model: modelFor(server), codebook: bales, samples: 3 });
    const [outcome] = await coder.code(makeSession("a", TEXTS_A), [2]);
    expect(
      server
        .chatRequests()
        .map((r) => r.body.seed)
        .sort(),
    ).toEqual([1, 2, 3]);
    expect(outcome).toMatchObject({
      status: "coded",
      value: { codes: ["agrees"] },
      samples: { n: 3 },
      provenance: { aggregation: "majority", seeds: [1, 2, 3] },
    });
    if (outcome.status === "coded") expect(outcome.samples!.agreement).toBeCloseTo(2 / 3, 10);
  });

  it("codes several targets in one batched request sharing one window, with fewer prompt tokens per turn", async () => {
    const session = makeSession("a", [...TEXTS_A, ...TEXTS_A.map((t) => `${t} (again)`)]);
    const targets = session.turns.map((t) => t.index);
    const single = createLlmCoder({ model: modelFor(server), codebook: bales });
    for (const i of targets) await single.code(session, [i]);
    const singleRequests = server.chatRequests().length;
    const batched = createLlmCoder({ model: modelFor(server), codebook: bales, batch: 4 });
    const outcomes = [
      ...(await batched.code(session, targets.slice(0, 4))),
      ...(await batched.code(session, targets.slice(4, 8))),
      ...(await batched.code(session, targets.slice(8))),
    ];
    expect(server.chatRequests().length - singleRequests).toBe(3);
    expect(outcomes.map((o) => (o.status === "coded" ? o.value.codes![0] : o.status))).toEqual(session.turns.map((t) => balesCodeFor(t.text)));
    const last = server.chatRequests().at(-1)!;
    expect(targetsOf(last).map((t) => t.turn)).toEqual(["t0008", "t0009", "t0010", "t0011"]);
    expect(last.body.response_format.json_schema.schema.properties.items.items.properties.turn.enum).toEqual(["t0008", "t0009", "t0010", "t0011"]);
    expect(batched.stats().promptTokens / 12).toBeLessThan(single.stats().promptTokens / 12 / 2);
  });

  it("codeFromReply (collecting a batch) gives the outcomes `code` gives for the same valid reply, and declines the rest", async () => {
    const session = makeSession("a", TEXTS_A);
    const online = modelFor(server);
    const replies = new Map<string, { text: string; usage: { promptTokens: number; completionTokens: number }; finishReason?: string }>();
    // The online model, noting each reply by request hash (what a batch output line carries).
    const noting = {
      ...online,
      complete: async (request: Parameters<typeof online.complete>[0]) => {
        const result = await online.complete(request);
        if (result.ok) replies.set(result.response.requestHash, result.response);
        return result;
      },
    };
    const withoutTime = (outcomes: unknown[]) =>
      outcomes.map((o) => ({ ...(o as object), provenance: { ...(o as { provenance: object }).provenance, createdAt: undefined } }));
    const stamps: string[] = [];
    for (const batch of [1, 3]) {
      const asked = createLlmCoder({ model: noting, codebook: bales, batch });
      const fromReply = createLlmCoder({ model: online, codebook: bales, batch });
      const targets =
        batch === 1
          ? [[3], [4]]
          : [
              [0, 1, 2],
              [3, 4],
            ];
      for (const t of targets) {
        const expected = await asked.code(session, t);
        expect(expected.every((o) => o.status === "coded")).toBe(true);
        const collected = (await fromReply.codeFromReply(session, t, async (h) => replies.get(h)))!;
        // The same outcomes, but what they cost was billed by the Batch API (at its price).
        const atBatchPrice = withoutTime(expected).map((o) => {
          const { spent } = o.provenance as unknown as { spent: object };
          return { ...o, provenance: { ...o.provenance, spent: { ...spent, batch: true } } };
        });
        expect(withoutTime(collected)).toEqual(atBatchPrice);
        // Every record of a run carries the run's one stamp (stored once in the codes file's run header).
        stamps.push(...collected.map((o) => (o as unknown as { provenance: { createdAt: string } }).provenance.createdAt));
      }
      expect(new Set(stamps).size).toBe(1);
      stamps.length = 0;
      expect(fromReply.stats()).toEqual({ ...asked.stats(), requests: 0 });
    }
    const coder = createLlmCoder({ model: online, codebook: bales });
    const [hash] = [...replies.keys()];
    const usage = { promptTokens: 1, completionTokens: 1 };
    const requestsBefore = server.chatRequests().length;
    expect(await coder.codeFromReply(session, [3], async () => undefined)).toBeUndefined();
    expect(await coder.codeFromReply(session, [3], async () => ({ text: '{"code":"bogus"}', usage }))).toBeUndefined();
    expect(await coder.codeFromReply(session, [3], async () => ({ text: '{"code":"agrees"}', usage, finishReason: "length" }))).toBeUndefined();
    expect(
      await createLlmCoder({ model: online, codebook: bales, samples: 2 }).codeFromReply(session, [3], async () => ({ text: '{"code":"agrees"}', usage })),
    ).toBeUndefined();
    expect(coder.stats().promptTokens).toBe(0);
    expect(server.chatRequests().length).toBe(requestsBefore);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("in a batch, re-asks only about the items that failed", async () => {
    const session = makeSession("a", TEXTS_A);
    server.enqueue({
      content: JSON.stringify({
        items: [
          { turn: "t0000", code: "asks-opinion", rationale: "" },
          { turn: "t0001", code: "bogus", rationale: "" },
        ],
      }),
    });
    server.enqueue({
      content: JSON.stringify({
        items: [
          { turn: "t0000", code: "agrees", rationale: "" },
          { turn: "t0001", code: "gives-opinion", rationale: "" },
        ],
      }),
    });
    const coder = createLlmCoder({ model: modelFor(server), codebook: bales, batch: 2 });
    const outcomes = await coder.code(session, [0, 1]);
    // t0000 keeps its first (valid) answer; t0001 takes the re-ask's.
    expect(outcomes.map((o) => o.status === "coded" && o.value.codes)).toEqual([["asks-opinion"], ["gives-opinion"]]);
    expect(server.chatRequests()[1].body.messages[3].content).toContain("t0001:");
  });

  it("rates scales", async () => {
    server.setHandler(() => ({
      content: JSON.stringify({ scores: { sentiment: 6, formality: 3, directness: 5, relationship: 6, participation: 5 }, rationale: "friendly" }),
    }));
    const coder = createLlmCoder({ model: modelFor(server), codebook: style });
    const [outcome] = await coder.code(makeSession("b", TEXTS_B), [2]);
    expect(outcome).toMatchObject({ status: "coded", value: { scores: { sentiment: 6, formality: 3 }, rationale: "friendly" } });
    expect(server.chatRequests()[0].body.response_format.json_schema.schema.properties.scores.required).toEqual([
      "sentiment",
      "formality",
      "directness",
      "relationship",
      "participation",
    ]);
  });
});
