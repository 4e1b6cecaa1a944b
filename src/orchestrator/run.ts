import { existsSync } from "node:fs";
import { CliError, errorMessage } from "../util/errors.js";
import { formatIssues } from "../transcript/validate.js";
import type { Session } from "../transcript/schema.js";
import { readSessionFile } from "../transcript/io.js";
import { saveSession, sessionPath } from "../study/study.js";
import type { ChatModel } from "../llm/types.js";
import type { Reporter } from "../util/reporter.js";
import { Conversation, type LiveOptions } from "./conversation.js";
import { scriptedHuman, type HumanInput } from "./human.js";
import { deriveSeed } from "./random.js";
import type { Scenario, ConditionSpec } from "./scenario.js";
import { strategies } from "./policies/index.js";
import type { Strategy } from "./strategy.js";
import { findAgent, resolveAgents } from "./agent.js";
import { backupSession, humanTurns } from "./backup.js";
import { realignCodes } from "../coding/realign.js";
import { describeRepair } from "../util/fs.js";

export interface RunScenarioOptions {
  study: string;
  /** Runs per condition (numbered 1..runs). */
  runs: number;
  /** Only these conditions (default: all the scenario defines). */
  conditions?: string[];
  seed: number;
  model: ChatModel;
  /** Log each turn as it is said (default true); off when a person at the terminal reads them at their prompts. */
  echoTurns?: boolean;
  /** The study's temperature (colloquy.json model.temperature), used when the scenario sets none. */
  temperature?: number;
  /** Human input for live participants (terminal by default in the CLI). */
  human: HumanInput;
  /** Continue sessions saved as incomplete (replays recorded LLM replies from the cache and recorded human answers). */
  resume?: boolean;
  /** Run again sessions that are already complete. */
  overwrite?: boolean;
  reporter: Reporter;
  /** People taking part live: the operator's view, real-time speed, duty timeouts (live/). */
  live?: LiveOptions;
}

export interface RunOutcome {
  sessionId: string;
  condition: string;
  run: number;
  status: "completed" | "skipped" | "failed";
  reason: string;
  turns: number;
  path: string;
  /**
   * Set when a session file was already there: `replaced` is the copy of the session this run
   * replaced; `failed` is this run's attempt, kept aside because the run failed and the
   * session already there was left as it was. Path relative to the study.
   */
  backup?: { kind: "replaced" | "failed"; path: string };
}

/** The strategy a scenario names and its validated parameters in one condition. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- strategies differ in their parameter types
export function resolveStrategy(scenario: Scenario, condition: ConditionSpec): { strategy: Strategy<any>; params: unknown; raw: Record<string, unknown> } {
  const { type, ...rest } = scenario.strategy;
  const strategy = strategies[type];
  if (!strategy) throw new CliError(`scenario ${scenario.id}: strategy.type "${type}" is unknown; expected one of ${Object.keys(strategies).join(", ")}`);
  const raw = { ...rest, ...(condition.strategy ?? {}) };
  const parsed = strategy.params.safeParse(raw);
  if (!parsed.success) {
    const where = condition.strategy ? ` (condition "${condition.name}")` : "";
    throw new CliError(`scenario ${scenario.id}${where}: invalid strategy parameters: ${formatIssues(parsed.error).replace(/(^|; )/g, "$1strategy.")}`);
  }
  const agents = resolveAgents(scenario);
  const problems = strategy.check?.(parsed.data, (name) => findAgent(agents, name)) ?? [];
  if (problems.length) {
    const where = condition.strategy ? ` (condition "${condition.name}")` : "";
    throw new CliError(`scenario ${scenario.id}${where}: invalid strategy parameters: ${problems.join("; ")}`);
  }
  return { strategy, params: parsed.data, raw: { type, ...raw } };
}

export function sessionIdFor(scenario: Scenario, condition: string, run: number): string {
  return `${scenario.id}-${condition}-${run}`;
}

/**
 * Run a scenario: every selected condition x runs 1..N, each a session saved into the study.
 * Each session's seed derives from (seed, condition, run), so runs differ from each other and
 * the same command replays the same sessions (offline, from the response cache).
 * A failure saves the session so far, marked incomplete, and the run goes on with the next
 * session; `resume` continues incomplete sessions by replaying them.
 */
/** The scenario's conditions named in `names` (all when none), refusing an unknown name. */
export function selectConditions(scenario: Scenario, names: readonly string[] | undefined): Scenario["conditions"] {
  if (!names?.length) return scenario.conditions;
  return names.map((name) => {
    const found = scenario.conditions.find((c) => c.name === name);
    if (!found)
      throw new CliError(`scenario ${scenario.id} has no condition "${name}"; its conditions are ${scenario.conditions.map((c) => c.name).join(", ")}`);
    return found;
  });
}

export async function runScenario(scenario: Scenario, options: RunScenarioOptions): Promise<RunOutcome[]> {
  const conditions = selectConditions(scenario, options.conditions);
  // Validate every condition's parameters before running anything.
  for (const condition of conditions) resolveStrategy(scenario, condition);

  const outcomes: RunOutcome[] = [];
  for (const condition of conditions) {
    for (let run = 1; run <= options.runs; run++) {
      outcomes.push(await runOne(scenario, condition, run, options));
    }
  }
  return outcomes;
}

async function runOne(scenario: Scenario, condition: ConditionSpec, run: number, options: RunScenarioOptions): Promise<RunOutcome> {
  const sessionId = sessionIdFor(scenario, condition.name, run);
  const path = sessionPath(options.study, sessionId);
  const { strategy, params, raw } = resolveStrategy(scenario, condition);
  let human = options.human;
  let seed = deriveSeed(options.seed, condition.name, run);
  /** The session file this run replaces: kept in backups/ first (overwrite, or people's words). */
  let replacing: { backup: boolean; resume: boolean; previous: Session } | undefined;
  if (existsSync(path)) {
    const previous: Session = await readSessionFile(path);
    const incomplete = previous.metadata.incomplete === true;
    if (!incomplete && !options.overwrite) {
      return {
        sessionId,
        condition: condition.name,
        run,
        status: "skipped",
        reason: "already complete (use --overwrite to run it again)",
        turns: previous.turns.length,
        path,
      };
    }
    if (incomplete && !options.resume && !options.overwrite) {
      return {
        sessionId,
        condition: condition.name,
        run,
        status: "skipped",
        reason: "incomplete from an earlier run: use --resume to continue it",
        turns: previous.turns.length,
        path,
      };
    }
    const resume = incomplete && Boolean(options.resume);
    if (resume) {
      const recorded = (previous.metadata.orchestrator as { humanAnswers?: (string | null)[]; seed?: number } | undefined) ?? {};
      human = scriptedHuman(recorded.humanAnswers ?? [], options.human);
      seed = recorded.seed ?? seed;
    }
    replacing = { backup: !resume || humanTurns(previous) > 0, resume, previous };
  }
  options.reporter.log(`${sessionId}: ${strategy.type}, condition ${condition.name}, run ${run}`);
  const conversation = new Conversation(
    { scenario, condition, run, seed, sessionId },
    { model: options.model, human, reporter: options.reporter, temperature: options.temperature, echoTurns: options.echoTurns, live: options.live },
  );
  // Record the temperature the requests carry, not the client's default.
  const modelInfo = { ...options.model.info, temperature: conversation.temperature };
  const observer = options.live?.observer;
  observer?.event({
    type: "session",
    sessionId,
    title: `${scenario.title ?? scenario.id}: ${condition.name}, run ${run}`,
    task: scenario.task,
    strategy: strategy.type,
    participants: conversation.toSession({ incomplete: true, strategy: raw, model: modelInfo }).participants,
  });
  try {
    await strategy.run(conversation, params);
    conversation.end(conversation.stopReason() ?? "strategy finished");
    // Words posted but not taken belong to this session: written now, before the page's "end".
    conversation.sayLatePosts();
    observer?.event({ type: "end", reason: conversation.endReason ?? "" });
  } catch (error) {
    const failure = errorMessage(error);
    conversation.sayLatePosts();
    observer?.event({ type: "end", reason: `stopped: ${failure}` });
    const attempt = conversation.toSession({ incomplete: true, failure, strategy: raw, model: modelInfo });
    const failed = { sessionId, condition: condition.name, run, status: "failed" as const, reason: failure, turns: conversation.turns.length, path };
    if (replacing && !replacing.resume) {
      // A failed --overwrite must not cost the session that was there: it stays, the attempt goes aside.
      const backup = await backupSession(options.study, sessionId, "failed", attempt);
      options.reporter.warn(
        `${sessionId}: stopped after ${conversation.turns.length} turns: ${failure}. The session already in sessions/ was left as it was; this attempt was saved to ${backup}.`,
      );
      return { ...failed, backup: { kind: "failed", path: backup } };
    }
    const backup = await replace(options, path, sessionId, replacing, attempt);
    options.reporter.warn(
      `${sessionId}: stopped after ${conversation.turns.length} turns: ${failure}. Saved as incomplete; run again with --resume to continue.`,
    );
    return { ...failed, ...(backup ? { backup } : {}) };
  }
  const backup = await replace(options, path, sessionId, replacing, conversation.toSession({ incomplete: false, strategy: raw, model: modelInfo }));
  return {
    sessionId,
    condition: condition.name,
    run,
    status: "completed",
    reason: conversation.endReason ?? "",
    turns: conversation.turns.length,
    path,
    ...(backup ? { backup } : {}),
  };
}

/** Save `session` over the file at `path`, after copying the old file to backups/ when it must be kept. */
async function replace(
  options: RunScenarioOptions,
  path: string,
  sessionId: string,
  replacing: { backup: boolean; previous: Session } | undefined,
  session: Session,
): Promise<RunOutcome["backup"]> {
  let backup: RunOutcome["backup"];
  if (replacing?.backup) {
    backup = { kind: "replaced", path: await backupSession(options.study, sessionId, "replaced", { file: path }) };
    options.reporter.log(`${sessionId}: the session it replaces was kept in ${backup.path}`);
  }
  if (replacing) {
    // Codes of the replaced session follow the turns that are still there (a resume keeps them
    // all) and go to the stale list for the rest, as on a re-import: never onto new words.
    const realigned = await realignCodes(options.study, [{ before: replacing.previous, after: session }], "colloquy run --overwrite");
    if (realigned.stale > 0)
      options.reporter.warn(
        `${sessionId}: ${realigned.stale} code(s) of the session it replaces no longer match a turn and were moved to ${realigned.staleFiles.join(", ")}`,
      );
    for (const repair of realigned.repairs) options.reporter.warn(describeRepair(repair, options.study));
  }
  await saveSession(options.study, session);
  return backup;
}
