import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { harness, askedAgent, formatName, type Harness } from "./support.js";
import { loadScenario } from "../../src/orchestrator/scenario.js";
import { loadSessions } from "../../src/study/study.js";
import { validateSession } from "../../src/transcript/validate.js";
import { startOpenAiServer } from "../support/openai-server.js";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";

const dir = join(import.meta.dirname, "../../fixtures/scenarios");
const files = readdirSync(dir)
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .sort();

/** Plausible answers for every kind of request the strategies make, winding down over time. */
function genericHandler() {
  let n = 0;
  return (req: any) => {
    n += 1;
    const name = formatName(req);
    const agent = askedAgent(req);
    const enumNames: string[] | undefined = req.body?.response_format?.json_schema?.schema?.properties?.ranking?.items?.enum;
    switch (name) {
      case "confidence":
        return { content: JSON.stringify({ topic: "ideas", intent: "build", confidence: n < 40 ? (n % 3) * 4 : 2 }) };
      case "reply":
        return { content: JSON.stringify({ message: `${agent} idea ${n}`, next: null }) };
      case "summary":
        return { content: JSON.stringify({ enough: true, summary: `Summary ${n}`, followUp: null, keyPhrases: ["idea"] }) };
      case "rank":
        return { content: JSON.stringify({ ranking: enumNames ?? [] }) };
      case "drift":
        return { content: JSON.stringify({ drifting: false, reason: "on task" }) };
      case "action":
        return {
          content: JSON.stringify(
            n < 12
              ? { reasoning: "I can help.", action: "message", message: `${agent} update ${n}`, fileName: null }
              : { reasoning: "Nothing new.", action: "wait", message: null, fileName: null },
          ),
        };
      default:
        return { content: `${agent} says ${n}` };
    }
  };
}

describe("shipped scenarios", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
    h.server.setHandler(genericHandler());
  });
  afterEach(() => h.close());

  it("ships one scenario per strategy", async () => {
    const types = new Set<string>();
    for (const f of files) types.add((await loadScenario(join(dir, f))).strategy.type);
    expect([...types].sort()).toEqual(["autonomous", "confidence", "ranked", "round-robin", "rounds", "scene"]);
  });

  for (const file of files) {
    it(`${file} runs end to end into valid native sessions`, async () => {
      const scenario = await loadScenario(join(dir, file));
      const [outcome] = await h.run(scenario, { conditions: [scenario.conditions[0].name], humanAnswers: Array(200).fill(null) });
      expect(outcome.status, outcome.reason).toBe("completed");
      const [session] = await h.sessions();
      validateSession(session, file);
      expect(session.turns.filter((t) => t.type === "message").length).toBeGreaterThan(0);
      expect(session.metadata.condition).toBe(scenario.conditions[0].name);
    });
  }
});

describe("colloquy run (a real process)", () => {
  it("a human participant types at the terminal; their words are stored verbatim and marked human", async () => {
    const server = await startOpenAiServer({ handler: (req) => ({ content: `${askedAgent(req)} replies` }) });
    const study = join(await mkdtemp(join(tmpdir(), "colloquy-run-")), "study");
    const scenario = join(await mkdtemp(join(tmpdir(), "colloquy-sc-")), "chat.yaml");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(
      scenario,
      "id: chat\ntask: Talk.\nparticipants: [{ name: Me, kind: human }, { name: Bot }]\nstrategy: { type: round-robin }\nstop: { maxTurns: 3 }\n",
    );
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(import.meta.dirname, "../support/colloquy-bin.ts"),
        "run",
        scenario,
        "--study",
        study,
        "--base-url",
        server.url,
        "--model",
        "test-model",
      ],
      {
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, OPENAI_API_KEY: "" },
      },
    );
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.write("Hello bot, <i>hi</i>!\n");
    child.stdin.write("Second line  \n");
    child.stdin.end();
    const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? -1)));
    await server.close();
    expect(code, stderr).toBe(0);
    expect(stderr).toContain("Me> ");
    // Each turn is printed once on the terminal (the run log), not again before the next prompt.
    expect(stderr.match(/Bot: Bot replies/g)).toHaveLength(1);
    const [session] = await loadSessions(study);
    expect(session.turns.map((t) => [t.speaker, t.text])).toEqual([
      ["me", "Hello bot, <i>hi</i>!"],
      ["bot", "Bot replies"],
      ["me", "Second line  "],
    ]);
    expect(session.participants.find((p) => p.id === "me")).toMatchObject({ kind: "human" });
  }, 60_000);

  it("names the field of an invalid scenario", async () => {
    const { runCli } = await import("../support/cli.js");
    const file = join(await mkdtemp(join(tmpdir(), "colloquy-sc-")), "bad.json");
    const { writeFile } = await import("node:fs/promises");
    await writeFile(file, JSON.stringify({ id: "x", task: "t", participants: [{ name: "A", kind: "robot" }], strategy: { type: "rounds" } }));
    const run = await runCli(["run", file, "--study", join(tmpdir(), "unused-study")]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/bad\.json: invalid scenario: participants\[0\]\.kind/);
  });
});
