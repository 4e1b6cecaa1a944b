import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { clearModelEnv, runCli } from "../support/cli.js";
import { askedAgent, formatName, harness, type Harness } from "./support.js";
import { parseScenario } from "../../src/orchestrator/scenario.js";
import { planRun } from "../../src/orchestrator/dry-run.js";

async function file(name: string, text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "colloquy-sv-")), name);
  await writeFile(path, text);
  return path;
}

describe("colloquy scenario validate", () => {
  beforeEach(() => clearModelEnv(vi.stubEnv));
  afterEach(() => vi.unstubAllEnvs());

  it("accepts a good scenario and prints each condition's parameters with defaults filled in", async () => {
    const path = await file(
      "ok.yaml",
      "id: ok\npreset: yes-and\ntask: t\nparticipants: [{ name: A }, { name: S }]\nstrategy: { summariser: S }\nconditions: [{ name: low, strategy: { threshold: 5 } }, { name: high }]\n",
    );
    const run = await runCli(["scenario", "validate", path, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.conditions.map((c: any) => [c.name, c.strategy, c.params.threshold, c.params.thresholdRule])).toEqual([
      ["low", "confidence", 5, "above"],
      ["high", "confidence", 7, "above"],
    ]);
  });

  it("lists every problem of every condition, each naming its field", async () => {
    const path = await file(
      "bad.yaml",
      `id: bad
task: t
participants: [{ name: A }, { name: B }]
strategy: { type: ranked, compression: { after: 4, keepLast: 8 }, facilitator: Nobody }
conditions:
  - { name: one }
  - { name: two, strategy: { randomRate: 2 } }
`,
    );
    const run = await runCli(["scenario", "validate", path]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/bad\.yaml: invalid scenario/);
    expect(run.stderr).toMatch(/strategy\.compression\.keepLast: keepLast must be smaller than after/);
    expect(run.stderr).toMatch(/condition "two": strategy\.randomRate: Too big/);
  });

  it("names participant fields that would be silently ignored, and out-of-order ranges", async () => {
    const sim = await file(
      "sim.yaml",
      "id: s\ntask: t\nparticipants: [{ name: A }, { name: C, kind: simulated-human }, { name: H, kind: human, model: gpt-4o }]\nstrategy: { type: round-robin }\n",
    );
    const run = await runCli(["scenario", "validate", sim]);
    expect(run.stderr).toMatch(/participants\[1\]\.playbook: a simulated-human participant needs a playbook/);
    expect(run.stderr).toMatch(/participants\[2\]\.model: a human participant is not played by a model/);
    const pause = await file(
      "pause.json",
      JSON.stringify({ id: "p", task: "t", participants: [{ name: "A" }], strategy: { type: "autonomous", pauseSeconds: [15, 3] } }),
    );
    expect((await runCli(["scenario", "validate", pause])).stderr).toMatch(/strategy\.pauseSeconds: expected \[min, max\] with min <= max/);
  });
});

describe("colloquy run --dry-run", () => {
  beforeEach(() => clearModelEnv(vi.stubEnv));
  afterEach(() => vi.unstubAllEnvs());

  it("prints sessions, requests, tokens and cost, calls no model and writes nothing", async () => {
    const path = await file(
      "rr.yaml",
      "id: rr\ntask: t\nparticipants: [{ name: A }, { name: B }]\nstrategy: { type: round-robin }\nstop: { maxTurns: 6 }\nconditions: [{ name: x }, { name: y }]\n",
    );
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-dry-")), "study");
    const run = await runCli(["run", path, "--dry-run", "--runs", "2", "--study", study, "--model", "gpt-4o-mini"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.match(/would run rr-(x|y)-(1|2)/g)).toHaveLength(4);
    expect(run.stdout).toMatch(/Total: ~24 requests/);
    expect(run.stdout).toMatch(/about \$\d+\.\d{4}/);
    expect(existsSync(study)).toBe(false);
  });
});

describe("dry-run estimates against real runs (local test server)", () => {
  let h: Harness;
  beforeEach(async () => (h = await harness()));
  afterEach(() => h.close());

  const cases: [string, string][] = [
    ["round-robin", "participants: [{ name: A }, { name: B }, { name: C }]\nstrategy: { type: round-robin }\nstop: { maxTurns: 9 }"],
    ["rounds", "participants: [{ name: A }, { name: B }, { name: C }, { name: D }]\nstrategy: { type: rounds, rounds: 4 }"],
    [
      "confidence",
      "participants: [{ name: A }, { name: B }, { name: C }]\nstrategy: { type: confidence, backchannel: { probability: 0 } }\nstop: { maxTurns: 6 }",
    ],
    [
      "ranked",
      "participants: [{ name: A }, { name: B }, { name: C }]\nstrategy: { type: ranked, randomRate: 0, driftCheckEvery: 0, facilitateEvery: 0 }\nstop: { maxTurns: 10 }",
    ],
  ];
  for (const [type, body] of cases) {
    it(`${type}: the estimated requests match the requests a run makes`, async () => {
      h.server.setHandler((req) => {
        const name = formatName(req);
        if (name === "confidence") return { content: JSON.stringify({ topic: "t", intent: "i", confidence: askedAgent(req) === "A" ? 9 : 2 }) };
        if (name === "reply") return { content: JSON.stringify({ message: "an idea", next: null }) };
        if (name === "rank") return { content: JSON.stringify({ ranking: ["B", "A", "C"] }) };
        return { content: "one two three four five" };
      });
      const scenario = parseScenario(`id: est\ntask: t\n${body}\n`, "est.yaml");
      const plan = planRun(scenario, { study: h.study, runs: 1, model: "test-model" });
      await h.run(scenario);
      expect(plan.total.requests).toBe(h.server.chatRequests().length);
    });
  }
});
