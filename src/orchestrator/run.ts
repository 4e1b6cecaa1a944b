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
import { artifacts } from "../study/artifacts.js";
import { contentsOf, JournalReplay, SessionJournal, untakenPosts, type DamagedLine, type JournalLinks, type StartRecord } from "./journal.js";
import { sessionFromJournal, withUntakenPosts } from "./journal-session.js";

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
  /** People taking part live: the operator's view, real-time speed, duty timeouts (live/), the pages' links (kept in the journal). */
  live?: LiveOptions & {
    links?: JournalLinks;
    /** Between two sessions: resolves when the next may start (the operator's gate). */
    betweenSessions?: (next: string) => Promise<void>;
  };
  /** Aborted on SIGINT/SIGTERM: the running session is saved as incomplete and the run stops. */
  signal?: AbortSignal;
}

export interface RunOutcome {
  sessionId: string;
  condition: string;
  run: number;
  /** interrupted: stopped by a signal (SIGINT, SIGTERM), saved as incomplete with its journal kept for --resume. */
  status: "completed" | "skipped" | "failed" | "interrupted";
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

/** The page links an interrupted live run of these sessions served (kept in the first journal found), so --resume serves the same. */
export function journaledLinks(study: string, scenario: Scenario, conditions: readonly string[] | undefined, runs: number): JournalLinks | undefined {
  for (const condition of selectConditions(scenario, conditions))
    for (let run = 1; run <= runs; run++) {
      const links = readLinks(artifacts.sessionJournal.path(study, sessionIdFor(scenario, condition.name, run)));
      if (links) return links;
    }
  return undefined;
}

/** A journal's page links; none when its start line is damaged (the pages then get new links). */
function readLinks(journalPath: string): JournalLinks | undefined {
  try {
    return SessionJournal.read(journalPath)?.contents.start.links;
  } catch {
    return undefined;
  }
}

/** "<file> line 4: not JSON (...); line 9: ..." */
function describeDamage(journalPath: string, damaged: readonly DamagedLine[]): string {
  return `${journalPath} ${damaged.map((d) => `line ${d.line}: ${d.problem}`).join("; ")}`;
}

export async function runScenario(scenario: Scenario, options: RunScenarioOptions): Promise<RunOutcome[]> {
  const conditions = selectConditions(scenario, options.conditions);
  // Validate every condition's parameters before running anything.
  for (const condition of conditions) resolveStrategy(scenario, condition);

  const outcomes: RunOutcome[] = [];
  for (const condition of conditions) {
    for (let run = 1; run <= options.runs; run++) {
      // Between two sessions the operator decides when the next starts (a break, the next condition's briefing).
      if (outcomes.some((o) => o.status !== "skipped")) await options.live?.betweenSessions?.(sessionIdFor(scenario, condition.name, run));
      if (options.signal?.aborted) return outcomes;
      outcomes.push(await runOne(scenario, condition, run, options));
    }
  }
  return outcomes;
}

async function runOne(scenario: Scenario, condition: ConditionSpec, run: number, options: RunScenarioOptions): Promise<RunOutcome> {
  const sessionId = sessionIdFor(scenario, condition.name, run);
  const path = sessionPath(options.study, sessionId);
  const journalPath = artifacts.sessionJournal.path(options.study, sessionId);
  const { strategy, params, raw } = resolveStrategy(scenario, condition);
  let human = options.human;
  let seed = deriveSeed(options.seed, condition.name, run);
  const outcome = (status: RunOutcome["status"], reason: string, turns: number) => ({ sessionId, condition: condition.name, run, status, reason, turns, path });
  /** The session file this run replaces: kept in backups/ first (overwrite, or people's words). */
  let replacing: { backup: boolean; resume: boolean; previous: Session } | undefined;
  const previous: Session | undefined = existsSync(path) ? await readSessionFile(path) : undefined;
  const consentsNow = () => options.live?.observer?.consents?.();
  const start = (): StartRecord => {
    const consent = consentsNow();
    return {
      sessionId,
      seed,
      startedAt: Date.now(),
      posts: options.human.record ? (options.human.queue ?? "per-person") : false,
      ...(options.live?.links ? { links: options.live.links } : {}),
      ...(consent ? { consent } : {}),
    };
  };
  const journaled = SessionJournal.read(journalPath, start());
  if (previous && previous.metadata.incomplete !== true && !options.overwrite)
    return outcome("skipped", "already complete (use --overwrite to run it again)", previous.turns.length);
  if ((journaled || previous) && !options.resume && !options.overwrite)
    return outcome("skipped", "incomplete from an earlier run: use --resume to continue it", journaled?.contents.turns.length ?? previous!.turns.length);
  const resume = Boolean(options.resume) && (journaled !== undefined || previous?.metadata.incomplete === true);
  const damaged = journaled?.damaged.length ? journaled.damaged : undefined;
  if (journaled && damaged && (resume || options.overwrite)) {
    // Before the journal is cut (resume) or replaced (overwrite): every record it still holds, the damaged lines as they are.
    const words = sessionFromJournal(scenario, condition, run, journaled.contents, damaged);
    const backup = await backupSession(options.study, sessionId, "replaced", words);
    options.reporter.warn(
      `${sessionId}: damaged journal: ${describeDamage(journalPath, damaged)}. Every readable record (and each damaged line as it is) was kept in ${backup}` +
        (resume ? `; the session resumes from before line ${damaged[0].line}, and what people posted after it is taken again.` : "."),
    );
  }
  /** What a resumed session replays: a damaged journal up to its first damaged line, with every post it holds. */
  const replayed = journaled && (damaged ? contentsOf(journaled.replayable) : journaled.contents);
  let replay: JournalReplay | undefined;
  if (resume && replayed) {
    // Continue from the journal: its inputs re-run the strategy to where it was, its untaken posts wait for it.
    replay = new JournalReplay(replayed);
    seed = replayed.start.seed;
  } else if (resume && previous) {
    // A session saved before journals: replay its recorded answers (and the model's replies from the cache).
    const recorded = (previous.metadata.orchestrator as { humanAnswers?: (string | null)[]; seed?: number } | undefined) ?? {};
    human = scriptedHuman(recorded.humanAnswers ?? [], options.human);
    seed = recorded.seed ?? seed;
  } else if (journaled && !damaged) {
    // --overwrite of an interrupted session: its words are kept in backups/ before it starts again.
    const words = sessionFromJournal(scenario, condition, run, journaled.contents);
    const backup = await backupSession(options.study, sessionId, "replaced", words);
    options.reporter.log(`${sessionId}: the interrupted session it replaces was kept in ${backup}`);
  }
  if (previous) replacing = { backup: !resume || humanTurns(previous) > 0, resume, previous };
  const started = replay ? replayed!.start : start();
  const journal = !replay
    ? SessionJournal.create(journalPath, started)
    : damaged
      ? SessionJournal.rewrite(journalPath, journaled!.replayable)
      : SessionJournal.reopen(journalPath, journaled!.completeBytes);
  options.reporter.log(`${sessionId}: ${strategy.type}, condition ${condition.name}, run ${run}${replay ? " (resumed from its journal)" : ""}`);
  const conversation = new Conversation(
    { scenario, condition, run, seed, sessionId },
    {
      model: options.model,
      human,
      reporter: options.reporter,
      temperature: options.temperature,
      echoTurns: options.echoTurns,
      live: options.live,
      journal: { journal, replay, startedAt: started.startedAt },
    },
  );
  // Who agreed to the study's consent text, and when: kept with the session. Read again at every
  // save, so a person who agreed after the start (a late joiner) is in it; the journal's start
  // keeps the agreements made before an interruption (the resumed run's pages do not agree again).
  const noteConsents = () => {
    const now = consentsNow();
    if (now) conversation.notes.consent = { ...now, ...replayed?.consent };
  };
  noteConsents();
  // Record the temperature the requests carry, not the client's default.
  const modelInfo = { ...options.model.info, temperature: conversation.temperature };
  const observer = options.live?.observer;
  observer?.event({
    type: "session",
    sessionId,
    title: `${scenario.title ?? scenario.id}: ${condition.name}, run ${run}`,
    task: scenario.task,
    strategy: strategy.type,
    controls: strategy.controls?.(params) ?? [],
    participants: conversation.toSession({ incomplete: true, strategy: raw, model: modelInfo }).participants,
    view: {
      ...scenario.participantView,
      title: scenario.participantView.condition ? `${scenario.title ?? scenario.id}: ${condition.name}` : (scenario.title ?? "Group chat"),
    },
  });
  options.human.record?.((post) => journal.append({ k: "post", ...post }));
  // An agreement after the start (a late joiner) is journaled: the pages of a resumed run do not agree again.
  // A journal already closed (the session is stopping) cannot take it: the save reads the consents itself.
  observer?.onConsent?.((participant, at) => {
    try {
      journal.append({ k: "consent", participant, at });
    } catch {
      // Kept in memory by the hub all the same: noteConsents() stores it with the session.
    }
  });
  if (replayed && replay) options.human.restore?.(untakenPosts(replayed));
  /** The session so far, with what people posted that nothing took yet (from the journal: every acknowledged word). */
  const snapshot = (failure: string) => {
    noteConsents();
    return withUntakenPosts(conversation.toSession({ incomplete: true, failure, strategy: raw, model: modelInfo }), journalPath);
  };
  let interrupted: (() => void) | undefined;
  const interruption = new Promise<string>((ok) => {
    const signal = options.signal;
    if (!signal) return;
    interrupted = () => {
      // At once, before the signal's handler ends the session: what the abandoned strategy does
      // next (taking the end as the operator's, a pass) must not enter the journal --resume replays.
      journal.close();
      ok(`interrupted (${String(signal.reason ?? "signal")})`);
    };
    if (signal.aborted) interrupted();
    else signal.addEventListener("abort", interrupted, { once: true });
  });
  try {
    const stopped = await Promise.race([strategy.run(conversation, params).then(() => undefined), interruption]);
    if (stopped) {
      // Ctrl-C or a kill: saved as it is, incomplete; the journal stays for --resume (the strategy is abandoned mid-step).
      observer?.event({ type: "end", reason: stopped, incomplete: true });
      await replace(options, path, sessionId, replacing, snapshot(stopped));
      options.reporter.warn(`${sessionId}: ${stopped} after ${conversation.turns.length} turns. Saved as incomplete; run again with --resume to continue.`);
      return { ...outcome("interrupted", stopped, conversation.turns.length) };
    }
    conversation.end(conversation.stopReason() ?? "strategy finished");
    // Words posted but not taken belong to this session: written now, before the page's "end".
    conversation.sayLatePosts();
    observer?.event({ type: "end", reason: conversation.endReason ?? "" });
  } catch (error) {
    const failure = errorMessage(error);
    observer?.event({ type: "end", reason: `stopped: ${failure}`, incomplete: true });
    const attempt = snapshot(failure);
    const failed = { ...outcome("failed", failure, conversation.turns.length) };
    if (replacing && !replacing.resume) {
      // A failed --overwrite must not cost the session that was there: it stays, the attempt goes aside.
      const backup = await backupSession(options.study, sessionId, "failed", attempt);
      // The attempt (every word of it) is in that backup; the session in sessions/ is the one to go on with.
      journal.remove();
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
  } finally {
    options.human.record?.(undefined);
    observer?.onConsent?.(undefined);
    options.signal?.removeEventListener("abort", interrupted!);
    journal.close();
  }
  noteConsents();
  const backup = await replace(options, path, sessionId, replacing, conversation.toSession({ incomplete: false, strategy: raw, model: modelInfo }));
  // Saved complete: the journal has nothing more to give.
  journal.remove();
  return {
    ...outcome("completed", conversation.endReason ?? "", conversation.turns.length),
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
