import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOpenAiServer, type OpenAiServer, type RecordedRequest, type ScriptedReply } from "../support/openai-server.js";
import { createChatModel, resolveModelConfig } from "../../src/llm/index.js";
import { initStudy } from "../../src/study/study.js";
import { parseScenario, type Scenario } from "../../src/orchestrator/scenario.js";
import { runScenario, type RunScenarioOptions } from "../../src/orchestrator/run.js";
import { scriptedHuman } from "../../src/orchestrator/human.js";
import { silentReporter } from "../../src/util/reporter.js";
import { loadSessions } from "../../src/study/study.js";

/** Which participant a chat request speaks for ("You are NAME (Role) in a group conversation."). */
export function askedAgent(request: RecordedRequest): string {
  const system: string = request.body?.messages?.[0]?.content ?? "";
  return system.match(/^You are (.+?)(?: \(.*?\))? in a group conversation/)?.[1] ?? "(observer)";
}

/** A model whose agents always speak: "<name> note <n>" (n counts the replies), after `delayMs(n)` ms. */
export function notingAgent(delayMs: (n: number) => number = () => 30): (request: RecordedRequest) => ScriptedReply {
  let n = 0;
  return (request) => {
    n++;
    return { content: JSON.stringify({ reasoning: "r", action: "message", message: `${askedAgent(request)} note ${n}`, fileName: null }), delayMs: delayMs(n) };
  };
}

/** The user message (transcript + instruction) of a chat request. */
export function userText(request: RecordedRequest): string {
  return request.body?.messages?.at(-1)?.content ?? "";
}

export interface Harness {
  server: OpenAiServer;
  study: string;
  run(scenario: Scenario | string, options?: Partial<RunScenarioOptions> & { humanAnswers?: (string | null)[] }): ReturnType<typeof runScenario>;
  sessions(): ReturnType<typeof loadSessions>;
  close(): Promise<void>;
}

export async function harness(): Promise<Harness> {
  const server = await startOpenAiServer();
  const study = join(await mkdtemp(join(tmpdir(), "colloquy-orch-")), "study");
  await initStudy(study);
  const model = () => createChatModel(resolveModelConfig({ cli: { baseURL: server.url, model: "test-model", maxRetries: 0 }, env: {}, studyDir: study }));
  return {
    server,
    study,
    run: (scenario, options = {}) =>
      runScenario(typeof scenario === "string" ? parseScenario(scenario, "test.yaml") : scenario, {
        study,
        runs: 1,
        seed: 7,
        model: model(),
        human: scriptedHuman(options.humanAnswers ?? []),
        reporter: silentReporter,
        ...options,
      }),
    sessions: () => loadSessions(study),
    close: () => server.close(),
  };
}

/** The json_schema name of a structured-output request ("confidence", "reply", "rank", ...), if any. */
export function formatName(request: RecordedRequest): string | undefined {
  return request.body?.response_format?.json_schema?.name;
}
