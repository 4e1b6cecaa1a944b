import { readFile, writeFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runCli, clearModelEnv } from "../support/cli.js";
import { startOpenAiServer, type OpenAiServer } from "../support/openai-server.js";
import { balesCodeFor, balesHandler, makeSession, makeStudy, sessionOf, targetsOf, TEXTS_A, TEXTS_B } from "../coding/llm-fixtures.js";
import { appendCodes, readCodes } from "../../src/coding/store.js";
import { EXAMPLES_TEMPLATE_HASH, PROMPT_TEMPLATE_HASH } from "../../src/coding/llm/prompt.js";
import { turnFingerprint } from "../../src/transcript/fingerprint.js";
import type { RecordedRequest } from "../support/openai-server.js";

let server: OpenAiServer;
let study: Awaited<ReturnType<typeof makeStudy>>;
const sessions = [makeSession("a", TEXTS_A), makeSession("b", TEXTS_B)];

beforeEach(async () => {
  clearModelEnv(vi.stubEnv);
  server = await startOpenAiServer({ handler: balesHandler });
  study = await makeStudy(sessions);
  // human:alice coded every turn of both sessions.
  await appendCodes(
    study.dir,
    sessions.flatMap((s) =>
      s.turns.map((t) => ({
        session: s.id,
        turn: t.id,
        fingerprint: turnFingerprint(t),
        codebook: "bales-ipa",
        codebookVersion: "1",
        coder: "human:alice",
        codes: [balesCodeFor(t.text)],
        provenance: {},
        createdAt: "2024-01-01T00:00:00Z",
      })),
    ),
  );
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
  await study.cleanup();
});

const llm = (...extra: string[]) => [
  "code",
  study.dir,
  "--codebook",
  "bales-ipa",
  "--coder",
  "llm",
  "--base-url",
  server.url,
  "--model",
  "test-model",
  ...extra,
];

/** The worked examples of a request: [{session, turn, text, codes line}]. */
function examplesOf(request: RecordedRequest): Array<{ session: string; turn: string; text: string; codes: string }> {
  const lines = String(request.body.messages[1].content).split("\n");
  const out: Array<{ session: string; turn: string; text: string; codes: string }> = [];
  lines.forEach((line, i) => {
    const m = /^example \d+ \[(\S+) (t\d+)\] [^:]+: (.*)$/.exec(line);
    if (m) out.push({ session: m[1], turn: m[2], text: m[3], codes: lines[i + 1] });
  });
  return out;
}

describe("colloquy code --examples", () => {
  it("puts the k most similar human-coded turns with their codes into each request, never the target", async () => {
    const run = await runCli(llm("--sessions", "b", "--examples", "human:alice", "--shots", "3"));
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    const requests = server.chatRequests();
    expect(requests).toHaveLength(4);
    for (const request of requests) {
      const [target] = targetsOf(request);
      const examples = examplesOf(request);
      expect(examples).toHaveLength(3);
      expect(examples.some((e) => e.session === "b" && e.turn === target.turn)).toBe(false);
      const labels: Record<string, string> = { "asks-opinion": "Asks for opinion", "gives-opinion": "Gives opinion", "shows-solidarity": "Shows solidarity" };
      for (const e of examples) expect(e.codes).toBe(`  codes: ${balesCodeFor(e.text)} (${labels[balesCodeFor(e.text)]})`);
    }
    const codes = await readCodes(study.dir, "bales-ipa", "llm");
    expect(codes).toHaveLength(4);
    expect(codes[0].provenance).toMatchObject({ promptTemplate: EXAMPLES_TEMPLATE_HASH, examplesFrom: ["human:alice"], shots: 3, excludeSession: false });
    const shown = codes[0].provenance.examples as Array<{ session: string; turn: string }>;
    expect(shown.map((e) => `${e.session} ${e.turn}`)).toEqual(
      examplesOf(requests.find((r) => targetsOf(r)[0].turn === codes[0].turn)!).map((e) => `${e.session} ${e.turn}`),
    );
  });

  it("--examples-exclude-session never shows a turn of the session being coded; --batch excludes every target", async () => {
    expect((await runCli(llm("--examples", "human:alice", "--shots", "4", "--examples-exclude-session"))).code).toBe(0);
    for (const request of server.chatRequests()) {
      const examples = examplesOf(request);
      expect(examples.length).toBe(4);
      expect(examples.every((e) => e.session !== sessionOf(request))).toBe(true);
    }
    expect((await runCli(llm("--coder-id", "llm:batch", "--batch", "3", "--examples", "human:alice", "--shots", "20"))).code).toBe(0);
    const batched = server.chatRequests().slice(10);
    expect(batched.length).toBeGreaterThan(0);
    for (const request of batched) {
      const targets = new Set(targetsOf(request).map((t) => `${sessionOf(request)} ${t.turn}`));
      const examples = examplesOf(request);
      expect(examples.length).toBe(10 - targets.size);
      expect(examples.some((e) => targets.has(`${e.session} ${e.turn}`))).toBe(false);
    }
  });

  it("is deterministic, shows the examples in --dry-run, and never answers from a reply made with other examples", async () => {
    const dry1 = await runCli(llm("--examples", "human:alice", "--shots", "2", "--dry-run"));
    const dry2 = await runCli(llm("--examples", "human:alice", "--shots", "2", "--dry-run"));
    expect(dry1.code).toBe(0);
    expect(dry1.stdout).toBe(dry2.stdout);
    expect(dry1.stdout).toMatch(/^example 1 \[a t0005\] Nova: Can we move the deadline\?\n {2}codes: asks-opinion \(Asks for opinion\)$/m);
    expect(server.requests).toHaveLength(0);

    expect((await runCli(llm())).code).toBe(0);
    expect(server.chatCount).toBe(10);
    expect((await runCli(llm("--coder-id", "llm:fs", "--examples", "human:alice", "--shots", "2"))).code).toBe(0);
    expect(server.chatCount).toBe(20); // nothing answered from the replies made without examples
    expect((await runCli(llm("--coder-id", "llm:fs-again", "--examples", "human:alice", "--shots", "2"))).code).toBe(0);
    expect(server.chatCount).toBe(20); // the same examples: the same requests, from the cache
    expect((await runCli(llm("--coder-id", "llm:fs3", "--examples", "human:alice", "--shots", "3"))).code).toBe(0);
    expect(server.chatCount).toBe(30); // another example set: asked again
    const byTurn = async (coder: string) => new Map((await readCodes(study.dir, "bales-ipa", coder)).map((r) => [`${r.session} ${r.turn}`, r.provenance]));
    const [plain, fs, again] = await Promise.all([byTurn("llm"), byTurn("llm:fs"), byTurn("llm:fs-again")]);
    expect(plain.get("a t0000")!.promptTemplate).toBe(PROMPT_TEMPLATE_HASH);
    expect(plain.get("a t0000")!.examples).toBeUndefined();
    expect(fs.get("a t0000")!.requestHashes).not.toEqual(plain.get("a t0000")!.requestHashes);
    expect(again.get("a t0000")!.requestHashes).toEqual(fs.get("a t0000")!.requestHashes);
    expect(again.get("a t0000")!.examples).toEqual(fs.get("a t0000")!.examples);
  });

  it("says what is wrong when the examples coder has no codes, or the options do not fit", async () => {
    const none = await runCli(llm("--examples", "human:nobody"));
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("--examples: no codes of bales-ipa by human:nobody");
    expect(none.stderr).toContain("human:alice");
    const shots = await runCli(llm("--shots", "3"));
    expect(shots.code).not.toBe(0);
    expect(shots.stderr).toContain("go with --examples");
    const rules = await runCli(["code", study.dir, "--codebook", "bales-ipa", "--examples", "human:alice"]);
    expect(rules.stderr).toContain("--examples is for the LLM coder");
    expect(server.chatCount).toBe(0);
  });
});

describe("colloquy.json: worked examples and the learned coder in the pipeline", () => {
  async function configure(plan: Record<string, unknown>): Promise<void> {
    const path = `${study.dir}/colloquy.json`;
    const config = JSON.parse(await readFile(path, "utf8"));
    await writeFile(path, JSON.stringify({ ...config, codebooks: [plan], humanCoders: ["human:alice"], model: { baseURL: server.url, model: "test-model" } }));
  }

  it("colloquy study codes with the plan's examples, shots and exclusion, and trains the learned coder on its train coders", async () => {
    await configure({
      codebook: "bales-ipa",
      coders: ["llm", "learned"],
      train: ["human:alice"],
      // A handful of hand codes: under the floor, so the plan says to code anyway.
      allowBelowFloor: true,
      examples: ["human:alice"],
      shots: 2,
      examplesExcludeSession: true,
    });
    const run = await runCli(["study", study.dir, "--only", "code"]);
    expect(run.code, run.stderr).toBe(0);
    const requests = server.chatRequests();
    expect(requests.length).toBe(sessions.reduce((n, s) => n + s.turns.length, 0));
    for (const request of requests) {
      const examples = examplesOf(request);
      expect(examples).toHaveLength(2);
      expect(examples.some((e) => e.session === sessionOf(request))).toBe(false);
    }
    const llmCodes = await readCodes(study.dir, "bales-ipa", "llm");
    expect(llmCodes[0].provenance).toMatchObject({ examplesFrom: ["human:alice"], shots: 2, excludeSession: true });
    const learned = await readCodes(study.dir, "bales-ipa", "learned");
    expect(learned).toHaveLength(requests.length);
    expect(learned[0].provenance).toMatchObject({ coder: "learned", trainedOn: ["human:alice"] });
    // Nothing changed: the next run codes nothing and sends nothing.
    const again = await runCli(["study", study.dir, "--only", "code"]);
    expect(again.code, again.stderr).toBe(0);
    expect(server.chatRequests()).toHaveLength(requests.length);
  });

  it("names the wrong field of a plan: learned without train, examples without llm, a train coder that is not human:<name>", async () => {
    await configure({ codebook: "bales-ipa", coders: ["learned"] });
    expect((await runCli(["study", study.dir, "--only", "code"])).stderr).toMatch(/codebooks\[0\]\.train: the "learned" coder needs train/);
    await configure({ codebook: "bales-ipa", coders: ["rules"], examples: ["human:alice"] });
    expect((await runCli(["study", study.dir, "--only", "code"])).stderr).toMatch(/codebooks\[0\]\.examples: .*add "llm" to coders/);
    await configure({ codebook: "bales-ipa", coders: ["learned"], train: ["alice"] });
    expect((await runCli(["study", study.dir, "--only", "code"])).stderr).toMatch(/codebooks\[0\]\.train\[0\]: a human coder as stored, "human:<name>"/);
  });
});
