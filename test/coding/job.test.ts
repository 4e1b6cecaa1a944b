import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { modelFor } from "../llm/helpers.js";
import { loadCodebook } from "../../src/coding/codebook/load.js";
import type { Codebook } from "../../src/coding/codebook/schema.js";
import { dryRunCoding, formatCodingSummary, planCoding, runCodingJob, type CodingJobOptions } from "../../src/coding/job.js";
import { readCodeHistory, readCodes, readFailures } from "../../src/coding/store.js";
import { loadSessions } from "../../src/study/study.js";
import { codingBatchRequests } from "../../src/coding/job-batch.js";
import type { Session } from "../../src/transcript/schema.js";
import type { RecordedRequest } from "../support/openai-server.js";
import { balesCodeFor, balesHandler, makeSession, makeStudy, sessionOf, targetsOf, TEXTS_A, TEXTS_B } from "./llm-fixtures.js";

let bales: Codebook;
let server: OpenAiServer;
let study: Awaited<ReturnType<typeof makeStudy>>;

const sessionA = makeSession("a", TEXTS_A, { system: [5] });
const sessionB = makeSession("b", TEXTS_B, { reasoning: [3] });

beforeEach(async () => {
  bales = await loadCodebook("bales-ipa");
  server = await startOpenAiServer({ handler: balesHandler });
  study = await makeStudy([sessionA, sessionB]);
});
afterEach(async () => {
  await server.close();
  await study.cleanup();
});

async function job(extra: Partial<CodingJobOptions> = {}, modelOverrides = {}) {
  const sessions = await loadSessions(study.dir);
  const model = modelFor(server, { cacheDir: join(study.dir, ".cache", "llm"), ...modelOverrides });
  return runCodingJob({ study: study.dir, sessions, codebook: bales, coder: "llm", model, flushEvery: 3, flushMs: 20, ...extra });
}

const keyOf = (r: { session: string; turn: string }) => `${r.session}/${r.turn}`;

describe("coding job (llm)", () => {
  it("codes every codeable turn once, skips system and reasoning turns, and never crosses sessions", async () => {
    const summary = await job();
    expect(summary).toMatchObject({ coded: 8, failed: 0, skipped: { system: 1, reasoning: 1 }, skippedTotal: 2, alreadyCoded: 0, requests: 8, aborted: false });
    const codes = await readCodes(study.dir, "bales-ipa", "llm");
    expect(codes).toHaveLength(8);
    const texts = new Map([...sessionA.turns, ...sessionB.turns].map((t) => [t.id, t]));
    for (const record of codes) {
      const session = record.session === "a" ? sessionA : sessionB;
      const turn = session.turns.find((t) => t.id === record.turn)!;
      expect(record.codes).toEqual([balesCodeFor(turn.text)]);
      expect(record.provenance).toMatchObject({ coder: "llm", model: "test-model", codebook: "bales-ipa", tool: "colloquy" });
    }
    expect(texts.size).toBeGreaterThan(0);
    // Context windows: every turn shown in a request belongs to the session it names.
    for (const request of server.chatRequests()) {
      const session = sessionOf(request) === "a" ? sessionA : sessionB;
      const other = session === sessionA ? sessionB : sessionA;
      const user = request.body.messages[1].content as string;
      for (const turn of other.turns) expect(user).not.toContain(turn.text);
      expect(targetsOf(request)).toHaveLength(1);
    }
    // The first turn of session b has no "before" context even though session a precedes it.
    const firstOfB = server.chatRequests().find((r) => sessionOf(r) === "b" && targetsOf(r)[0].turn === "t0000")!;
    expect(firstOfB.body.messages[1].content.split("\n").filter((l: string) => l.startsWith("context ["))).toHaveLength(2);
    expect(formatCodingSummary(summary)).toMatch(/^bales-ipa\/llm: coded 8, failed 0, cached 0, skipped 2 \(system 1, reasoning 1\)/);
  });

  it("re-runs from the cache with zero requests and identical codes", async () => {
    await job();
    const first = await readCodes(study.dir, "bales-ipa", "llm");
    await rm(join(study.dir, "codes"), { recursive: true });
    server.reset();
    const summary = await job();
    expect(server.chatCount).toBe(0);
    expect(summary).toMatchObject({ coded: 8, cached: 8, requests: 0, cachedRequests: 8, promptTokens: 0 });
    const second = await readCodes(study.dir, "bales-ipa", "llm");
    const strip = (rs: typeof first) =>
      rs
        .map((r) => ({ s: r.session, t: r.turn, c: r.codes, r: r.rationale }))
        .sort((x, y) => keyOf({ session: x.s, turn: x.t }).localeCompare(keyOf({ session: y.s, turn: y.t })));
    expect(strip(second)).toEqual(strip(first));
  });

  it("a second run with codes present codes nothing and sends nothing", async () => {
    await job();
    server.reset();
    const summary = await job();
    expect(summary).toMatchObject({ coded: 0, alreadyCoded: 8, requests: 0 });
    expect(server.chatCount).toBe(0);
  });

  it("resumes after an abort: codes only the rest, no duplicate records, no repeated requests", async () => {
    server.latencyMs = 40;
    const controller = new AbortController();
    let seen = 0;
    server.setHandler((req) => {
      if (++seen === 4) setTimeout(() => controller.abort(), 10);
      return balesHandler(req);
    });
    const first = await job({ signal: controller.signal }, { concurrency: 2 });
    expect(first.aborted).toBe(true);
    expect(first.coded).toBeGreaterThan(0);
    expect(first.coded).toBeLessThan(8);
    expect(first.failed).toBe(0);
    const codedFirst = new Set((await readCodes(study.dir, "bales-ipa", "llm")).map(keyOf));
    expect(codedFirst.size).toBe(first.coded);

    server.reset();
    server.setHandler(balesHandler);
    const second = await job();
    expect(second).toMatchObject({ coded: 8 - first.coded, alreadyCoded: first.coded, failed: 0 });
    const asked = server.chatRequests().map((r) => `${sessionOf(r)}/${targetsOf(r)[0].turn}`);
    for (const key of asked) expect(codedFirst.has(key)).toBe(false);
    const history = await readCodeHistory(study.dir, "bales-ipa", "llm");
    expect(history).toHaveLength(8);
    expect(new Set(history.map(keyOf)).size).toBe(8);
  });

  it("records failures (reply outside the codebook) with the raw reply, not codes, and retries them next run", async () => {
    server.setHandler((req) => (targetsOf(req)[0].text.startsWith("Thanks") ? { content: '{"code":"gratitude","rationale":"x"}' } : balesHandler(req)));
    const summary = await job();
    // 8 requests and the one re-ask of the unusable reply.
    expect(summary).toMatchObject({ coded: 7, failed: 1, failuresFile: "codes/bales-ipa/llm.failures.jsonl", requests: 9, failedRequests: 0 });
    const failures = await readFailures(study.dir, "bales-ipa", "llm");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ session: "a", turn: "t0002", coder: "llm", raw: expect.stringContaining("gratitude") });
    expect((await readCodes(study.dir, "bales-ipa", "llm")).some((r) => r.turn === "t0002" && r.session === "a")).toBe(false);

    server.reset();
    server.setHandler(balesHandler);
    const retry = await job();
    expect(retry).toMatchObject({ coded: 1, failed: 0, alreadyCoded: 7, failuresResolved: 1 });
    // The turn has a code now: its old failure is gone from the file, and the summary says so.
    expect(await readFailures(study.dir, "bales-ipa", "llm")).toEqual([]);
    expect(formatCodingSummary(retry)).toContain("already coded 7, 1 earlier failure(s) now coded, requests 1 (+0 cached)");
  });

  it("counts every HTTP attempt as a request: failed attempts and retries included, and says which", async () => {
    server.enqueue({ status: 500 }, { status: 503 });
    const summary = await job({}, { maxRetries: 3, concurrency: 1 });
    expect(summary).toMatchObject({ coded: 8, failed: 0, requests: 10, failedRequests: 2, retriedRequests: 2 });
    expect(formatCodingSummary(summary)).toContain("requests 10 (2 failed, 2 retried, +0 cached)");
    expect(server.chatRequests()).toHaveLength(10);

    // A turn whose every attempt fails: both attempts count; the failed count is this run's turns.
    await rm(join(study.dir, "codes"), { recursive: true });
    await rm(join(study.dir, ".cache"), { recursive: true });
    server.reset();
    server.setHandler((req) => (targetsOf(req)[0].turn === "t0003" && sessionOf(req) === "a" ? { status: 500 } : balesHandler(req)));
    const failing = await job({}, { maxRetries: 1 });
    expect(failing).toMatchObject({ coded: 7, failed: 1, requests: 9, failedRequests: 2, retriedRequests: 1 });
    expect(server.chatRequests()).toHaveLength(9);
  });

  it("never writes the API key into codes, failures or the cache", async () => {
    const sentinel = "sk-SENTINEL-never-write-me-42";
    server.setHandler((req) =>
      targetsOf(req)[0].turn === "t0001" ? { status: 401, message: `Incorrect API key provided: ${sentinel}` } : { content: "garbage" },
    );
    const scan = async () => {
      let scanned = 0;
      for (const file of await readdir(study.dir, { recursive: true })) {
        const path = join(study.dir, file);
        const text = await readFile(path, "utf8").catch(() => undefined);
        if (text === undefined) continue;
        scanned++;
        expect(text, path).not.toContain(sentinel);
        expect(text.toLowerCase(), path).not.toContain("bearer");
      }
      return scanned;
    };
    await job({}, { apiKey: sentinel, maxRetries: 0 });
    // The failures file holds the error messages: scanned while it is there.
    expect((await readFailures(study.dir, "bales-ipa", "llm")).length).toBeGreaterThan(0);
    await scan();
    server.setHandler(balesHandler);
    await job({ samples: 2 }, { apiKey: sentinel });
    expect(server.chatRequests().every((r) => r.headers.authorization === `Bearer ${sentinel}`)).toBe(true);
    expect(await scan()).toBeGreaterThan(10);
  });

  it("batched mode codes the same turns with fewer requests", async () => {
    const summary = await job({ batch: 4 });
    expect(summary.coded).toBe(8);
    expect(server.chatCount).toBeLessThanOrEqual(4);
    const codes = await readCodes(study.dir, "bales-ipa", "llm");
    for (const r of codes) {
      const s = r.session === "a" ? sessionA : sessionB;
      expect(r.codes).toEqual([balesCodeFor(s.turns.find((t) => t.id === r.turn)!.text)]);
      expect(r.provenance.batch).toBe(4);
    }
  });

  it("keeps what each code cost in its provenance: the shares add up to what the run paid, and a cached reply costs nothing", async () => {
    const summary = await job({ batch: 4 });
    const codes = await readCodes(study.dir, "bales-ipa", "llm");
    const spent = codes.map((r) => r.provenance.spent as { requests: number; promptTokens: number; completionTokens: number; cost?: number });
    const sum = (k: "requests" | "promptTokens" | "completionTokens") => spent.reduce((a, s) => a + s[k], 0);
    expect(sum("requests")).toBeCloseTo(server.chatCount, 2);
    expect(sum("promptTokens")).toBeCloseTo(summary.promptTokens, 1);
    expect(sum("completionTokens")).toBeCloseTo(summary.completionTokens, 1);
    expect(summary.promptTokens).toBeGreaterThan(0);
    // A local endpoint is free: the cost is a known 0, not left out.
    expect(spent.every((s) => s.cost === 0)).toBe(true);

    await rm(join(study.dir, "codes"), { recursive: true });
    await job({ batch: 4 });
    expect((await readCodes(study.dir, "bales-ipa", "llm")).every((r) => r.provenance.spent === undefined)).toBe(true);
  });

  it("stores samples with their agreement", async () => {
    const summary = await job({ samples: 3 });
    expect(summary.coded).toBe(8);
    expect(server.chatCount).toBe(24);
    const codes = await readCodes(study.dir, "bales-ipa", "llm");
    expect(codes.every((r) => r.samples?.n === 3 && r.samples.agreement === 1)).toBe(true);
  });

  it("dry-run builds the exact first prompt and estimates without any request", async () => {
    const sessions = await loadSessions(study.dir);
    const model = modelFor(server);
    const plan = await dryRunCoding({ study: study.dir, sessions, codebook: bales, coder: "llm", model });
    expect(server.requests).toHaveLength(0);
    expect(plan).toMatchObject({ toCode: 8, requests: 8, units: 8, skipped: { system: 1, reasoning: 1 } });
    expect(plan.example?.messages[1].content).toContain("TARGET [t0000] Ava: Welcome everyone");
    expect(plan.promptTokens).toBeGreaterThan(8 * 500);
    expect(plan.estimatedCost).toBe(0); // local endpoint
    expect(plan.cachedRequests).toBe(0);
    await job({ sessions: sessions.filter((s) => s.id === "b") });
    await rm(join(study.dir, "codes"), { recursive: true });
    const after = await dryRunCoding({
      study: study.dir,
      sessions,
      codebook: bales,
      coder: "llm",
      model: modelFor(server, { cacheDir: join(study.dir, ".cache", "llm") }),
    });
    expect(after).toMatchObject({ requests: 8, cachedRequests: 3 }); // session b: 3 codeable turns
  });
});

/**
 * The sessions as heads whose turns must never be read, and a `load` that reads each from its file
 * (as the code stage's): a job given them reads each session through `load` only.
 */
async function heads(onLoad: (id: string) => void = () => {}) {
  const sessions = await loadSessions(study.dir);
  const loaded: string[] = [];
  const load = async ({ id }: Session) => {
    loaded.push(id);
    onLoad(id);
    return (await loadSessions(study.dir, [id]))[0];
  };
  const untouched = sessions.map((s) => {
    const head = { ...s } as Session;
    Object.defineProperty(head, "turns", {
      get: () => {
        throw new Error(`the turns of ${s.id} were read from the study-wide sessions`);
      },
    });
    return head;
  });
  return { sessions: untouched, load, loaded };
}

describe("a batch's requests and its collection read one session at a time", () => {
  it("the requests are built session by session, the same as from the whole study", async () => {
    const model = modelFor(server, { cacheDir: join(study.dir, ".cache", "llm") });
    const base = { study: study.dir, codebook: bales, coder: "llm" as const, model };
    const whole = codingBatchRequests({ ...base, sessions: await loadSessions(study.dir) }, new Set());
    const expected: string[] = [];
    for await (const line of whole.lines) expected.push(JSON.stringify(line));
    const { sessions, load, loaded } = await heads();
    const oneByOne = codingBatchRequests({ ...base, sessions, load }, new Set());
    const got: string[] = [];
    for await (const line of oneByOne.lines) got.push(JSON.stringify(line));
    expect(got).toEqual(expected);
    expect(got).toHaveLength(8);
    expect(loaded).toEqual(["a", "b"]);
    expect(oneByOne.counts).toEqual(whole.counts);
  });

  it("a collected batch is coded session by session: every turn coded from its reply, none asked", async () => {
    const { sessions, load, loaded } = await heads();
    const model = modelFor(server, { cacheDir: join(study.dir, ".cache", "llm") });
    const replies = new Map<string, string>();
    const { lines } = codingBatchRequests({ study: study.dir, sessions, load, codebook: bales, coder: "llm", model }, new Set());
    for await (const line of lines) replies.set(line.key, (balesHandler({ body: line.body } as unknown as RecordedRequest) as { content: string }).content);
    loaded.length = 0;
    const answered = async (hash: string) => {
      const text = replies.get(hash);
      return text === undefined ? undefined : { text, usage: { promptTokens: 10, completionTokens: 5 } };
    };
    const summary = await job({ sessions, load, answered });
    expect(summary).toMatchObject({ coded: 8, failed: 0, turns: 8, skipped: { system: 1, reasoning: 1 }, requests: 0 });
    // Once to count, once to code.
    expect(loaded).toEqual(["a", "b", "a", "b"]);
    expect(server.chatCount).toBe(0);
    const codes = await readCodes(study.dir, "bales-ipa", "llm");
    expect(codes).toHaveLength(8);
    expect(codes.every((r) => typeof r.fingerprint === "string")).toBe(true);
  });
});

describe("offline coding and the dry run read one session at a time", () => {
  const withoutTimes = (records: object[]) => records.map((r) => JSON.stringify(r, (key, value: unknown) => (key === "createdAt" ? undefined : value)));

  it("the rules coder codes session by session, in one pass, what it codes from the whole study", async () => {
    const whole = await runCodingJob({ study: study.dir, sessions: await loadSessions(study.dir), codebook: bales, coder: "rules" });
    const expected = withoutTimes(await readCodeHistory(study.dir, "bales-ipa", "rules"));
    await rm(join(study.dir, "codes"), { recursive: true });
    const { sessions, load, loaded } = await heads();
    const oneByOne = await runCodingJob({ study: study.dir, sessions, load, codebook: bales, coder: "rules" });
    expect(loaded).toEqual(["a", "b"]);
    expect(withoutTimes(await readCodeHistory(study.dir, "bales-ipa", "rules"))).toEqual(expected);
    const counts = (x: typeof whole) => ({ ...x, elapsedMs: 0, rulesValidation: undefined });
    expect(counts(oneByOne)).toEqual(counts(whole));
    expect(oneByOne).toMatchObject({ coded: 8, turns: 8, skipped: { system: 1, reasoning: 1 }, skippedTotal: 2, remaining: 0, aborted: false });
  });

  it("stopped after the first session, it still counts the turns it did not reach", async () => {
    const stop = new AbortController();
    const { sessions, load } = await heads((id) => id === "b" && stop.abort());
    const summary = await runCodingJob({ study: study.dir, sessions, load, codebook: bales, coder: "rules", signal: stop.signal });
    const codedA = sessionA.turns.length - 1; // its system turn is skipped
    expect(summary).toMatchObject({ coded: codedA, turns: 8, remaining: 8 - codedA, aborted: true });
    expect(await readCodes(study.dir, "bales-ipa", "rules")).toHaveLength(codedA);
  });

  it("stopped during a write inside one long session (Ctrl-C lands at the writes, the only waits), it stops there", async () => {
    // More codeable turns than one write window (20,000 records): the stop lands at the first write.
    const long = await makeStudy([
      makeSession(
        "long",
        Array.from({ length: 20_100 }, (_, i) => (i % 2 ? "Yes, agreed." : `Shall we try plan ${i}?`)),
      ),
    ]);
    try {
      const stop = new AbortController();
      const sessions = await loadSessions(long.dir);
      // As SIGINT would: it arrives while the job waits, i.e. during its first write.
      const load = (session: Session) => (setTimeout(() => stop.abort(), 0), session);
      const summary = await runCodingJob({ study: long.dir, sessions, load, codebook: bales, coder: "rules", signal: stop.signal });
      expect(summary).toMatchObject({ coded: 20_000, turns: 20_100, remaining: 100, aborted: true });
    } finally {
      await long.cleanup();
    }
  });

  it("the dry run plans session by session what it plans from the whole study", async () => {
    const model = modelFor(server, { cacheDir: join(study.dir, ".cache", "llm") });
    const base = { study: study.dir, codebook: bales, coder: "llm" as const, model };
    const whole = await dryRunCoding({ ...base, sessions: await loadSessions(study.dir) });
    const { sessions, load, loaded } = await heads();
    expect(await dryRunCoding({ ...base, sessions, load })).toEqual(whole);
    expect(loaded).toEqual(["a", "b"]);
    expect(whole).toMatchObject({ toCode: 8, requests: 8, turns: 8 });
  });
});

describe("coding job (rules)", () => {
  it("codes with the rule coder offline, with rule provenance", async () => {
    const sessions = await loadSessions(study.dir);
    const summary = await runCodingJob({ study: study.dir, sessions, codebook: bales, coder: "rules" });
    expect(summary).toMatchObject({ coded: 8, failed: 0, skippedTotal: 2, requests: 0 });
    const codes = await readCodes(study.dir, "bales-ipa", "rules");
    expect(codes).toHaveLength(8);
    const ids = new Set(bales.kind === "nominal" ? bales.categories.map((c) => c.id) : []);
    for (const r of codes) {
      expect(r.codes!.every((c) => ids.has(c))).toBe(true);
      expect(r.provenance).toMatchObject({ coder: "rules", codebook: "bales-ipa" });
      expect(Array.isArray(r.provenance.rules)).toBe(true);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a codebook the rules do not cover", async () => {
    const sessions = await loadSessions(study.dir);
    const ttct = await loadCodebook("ttct-creativity");
    await expect(runCodingJob({ study: study.dir, sessions, codebook: ttct, coder: "rules" })).rejects.toThrow(/--coder llm/);
  });
});

describe("planCoding", () => {
  it("groups nearby targets of one session into batches and never across sessions", () => {
    const plan = planCoding([makeSession("x", ["a", "b", "c", "d", "e"]), makeSession("y", ["f", "g"])], new Set(["x\u0000t0001"]), 3);
    expect(plan.units.map((u) => [u.session.id, u.targets])).toEqual([
      ["x", [0, 2, 3]],
      ["x", [4]],
      ["y", [0, 1]],
    ]);
    expect(plan).toMatchObject({ turns: 7, alreadyCoded: 1 });
  });
});
