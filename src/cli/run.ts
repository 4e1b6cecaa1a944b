import type { Command } from "commander";
import { isNewOrEmpty, notAStudy, studyArgument } from "./study-arg.js";
import type { RunOutcome } from "../orchestrator/run.js";
import type { HumanInput } from "../orchestrator/human.js";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { CliError } from "../util/errors.js";
import { io, printJson } from "./io.js";
import { writing } from "./lock.js";

/** "; the session it replaced is kept in backups/…" */
function backupNote(outcome: RunOutcome): string {
  if (!outcome.backup) return "";
  return outcome.backup.kind === "replaced"
    ? `  (the session it replaced is kept in ${outcome.backup.path})`
    : `  (the session already there was left as it was; this attempt is in ${outcome.backup.path})`;
}

interface RunFlags {
  study: string;
  create?: boolean;
  runs: string;
  condition?: string[];
  seed: string;
  model?: string;
  baseUrl?: string;
  resume?: boolean;
  overwrite?: boolean;
  cache: boolean;
  json?: boolean;
  dryRun?: boolean;
  serve?: boolean;
  host: string;
  port: string;
  speed: string;
  answerTimeout: string;
  turnTimeout: string;
  gate: boolean;
}

/** `--dry-run`: the sessions that would run and their estimated requests, tokens and cost; no model is called, nothing is written. */
async function dryRun(file: string, flags: RunFlags, runs: number): Promise<void> {
  const { loadStudyConfig, studyPaths } = await import("../study/study.js");
  const { resolveModelConfig } = await import("../llm/index.js");
  const { isLoopbackEndpoint } = await import("../llm/config.js");
  const { planRun } = await import("../orchestrator/dry-run.js");
  const { loadScenario } = await import("../orchestrator/scenario.js");
  const scenario = await loadScenario(file);
  const study = resolve(flags.study);
  const config = existsSync(studyPaths(study).config) ? await loadStudyConfig(study) : undefined;
  const modelConfig = resolveModelConfig({
    cli: { model: flags.model ?? scenario.model.model, baseURL: flags.baseUrl },
    study: config?.model,
    studyDir: study,
  });
  const plan = planRun(scenario, {
    study,
    runs,
    conditions: flags.condition,
    model: modelConfig.model,
    prices: modelConfig.prices,
    local: isLoopbackEndpoint(modelConfig.baseURL),
  });
  if (flags.json) return printJson({ dryRun: true, ...plan });
  io().out(`Dry run of ${file} into ${study} (model ${plan.model}); no model is called, nothing is written.`);
  for (const s of plan.sessions) {
    io().out(
      `${s.exists ? "skip     " : "would run"} ${s.sessionId}  ${s.strategy}  ~${s.turns} turns, ~${s.requests} requests, ~${s.promptTokens} prompt + ~${s.completionTokens} completion tokens${s.exists ? "  (already in the study)" : ""}`,
    );
  }
  const t = plan.total;
  const cost =
    t.estimatedCost !== undefined ? `, about $${t.estimatedCost.toFixed(4)}` : ` (no price known for ${plan.model}: add model.prices to colloquy.json)`;
  io().out(`Total: ~${t.requests} requests, ~${t.promptTokens} prompt + ~${t.completionTokens} completion tokens${cost}`);
  io().out(
    `Assumes: ${[...new Set(plan.sessions.map((s) => s.assumptions))].join("; ")}. Sessions often end earlier (passes, nobody confident), so this leans high.`,
  );
}

function wholeRuns(text: string): number {
  const runs = Number(text);
  if (!Number.isInteger(runs) || runs < 1) throw new CliError(`--runs must be a whole number >= 1, got "${text}"`);
  return runs;
}

const DEFAULT_STUDY = "colloquy-study";

/**
 * A mistyped study folder must not silently become a second study: run makes one only in a new
 * or empty folder (and says so, on stderr so --json output stays JSON), or with --create; a
 * folder of other files is refused.
 */
function announceNewStudy(dir: string, create: boolean): void {
  if (!notAStudy(dir)) return;
  if (isNewOrEmpty(dir)) io().err(`Creating a new study at ${dir} (no study was there; \`colloquy init ${dir}\` makes one ahead of time)`);
  else if (create) io().err(`Making ${dir} a study (--create): it held other files but no colloquy.json`);
  else
    throw new CliError(
      `${dir}: not a Colloquy study (no colloquy.json) and not empty; create one with \`colloquy init ${dir}\`, or run again with --create to make this folder one`,
    );
}

/** `colloquy run <scenario>`: run multi-agent sessions into a study. */
export function registerRun(program: Command): void {
  program
    .command("run")
    .description("run a scenario (multi-agent session, humans in the loop) for each condition x runs, into a study")
    .argument("<scenario>", "scenario file (JSON or YAML)")
    .addArgument(
      studyArgument({
        description: "study folder the sessions are written to (default colloquy-study; created when new or empty, else see --create)",
        optional: true,
        creates: true,
      }),
    )
    .option("--create", "make the folder a study even though it holds other files (no colloquy.json yet)")
    .option("--runs <n>", "runs per condition", "1")
    .option("--condition <name...>", "only these conditions (default: all)")
    .option("--seed <n>", "seed for every random choice; same scenario + seed + cache = same sessions", "1")
    .option("--model <name>", "model name (default: study config, $COLLOQUY_MODEL / $OPENAI_MODEL, or gpt-4o-mini)")
    .option("--base-url <url>", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama")
    .option("--resume", "continue interrupted sessions (a failure, Ctrl-C, kill -9) from their journals, with the same page links")
    .option("--overwrite", "run again sessions that are already complete")
    .option("--no-cache", "do not use the response cache (runs are then not replayable offline)")
    .option("--json", "print the outcome as JSON")
    .option("--dry-run", "print the sessions, expected requests, tokens and estimated cost; call no model, write nothing")
    .option("--serve", "serve a chat page per human participant and an operator page (instead of the terminal)")
    .option("--host <host>", "interface the pages listen on (another address opens them to your network)", "127.0.0.1")
    .option("--port <port>", "port of the pages (0: any free port)", "0")
    .option("--speed <factor>", "with people taking part: simulated seconds per real second", "1")
    .option("--answer-timeout <seconds>", 'how long a human role\'s duty (moderate, derail, approve) waits before "no answer"', "120")
    .option("--no-gate", "with --serve: start each next session at once instead of when the operator starts it")
    .option("--turn-timeout <seconds>", 'how long a person\'s own turn waits before "no answer" (the session moves on)', "180")
    .action(async (file: string, studyDir: string | undefined, flags: RunFlags) => {
      flags.study = studyDir ?? DEFAULT_STUDY;
      if (flags.dryRun) return dryRun(file, flags, wholeRuns(flags.runs));
      announceNewStudy(flags.study, Boolean(flags.create));
      return writing(
        flags.study,
        "run",
        async () => {
          const { initStudy, loadStudyConfig } = await import("../study/study.js");
          const { createChatModel, resolveModelConfig } = await import("../llm/index.js");
          const { loadScenario } = await import("../orchestrator/scenario.js");
          const { runScenario, journaledLinks, selectConditions, sessionIdFor } = await import("../orchestrator/run.js");
          const { scriptedHuman, terminalHuman } = await import("../orchestrator/human.js");
          const { serveLive } = await import("../orchestrator/live/index.js");
          const runs = wholeRuns(flags.runs);
          const seed = Number(flags.seed);
          if (!Number.isInteger(seed)) throw new CliError(`--seed must be a whole number, got "${flags.seed}"`);
          const speed = Number(flags.speed);
          const answerTimeoutSeconds = Number(flags.answerTimeout);
          const turnTimeoutSeconds = Number(flags.turnTimeout);
          const port = Number(flags.port);
          if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number (0-65535), got "${flags.port}"`);
          if (!(speed > 0)) throw new CliError(`--speed must be a number > 0, got "${flags.speed}"`);
          if (!(answerTimeoutSeconds > 0)) throw new CliError(`--answer-timeout must be a number of seconds > 0, got "${flags.answerTimeout}"`);
          if (!(turnTimeoutSeconds > 0)) throw new CliError(`--turn-timeout must be a number of seconds > 0, got "${flags.turnTimeout}"`);
          const scenario = await loadScenario(file);
          const study = resolve(flags.study);
          await initStudy(study);
          const config = await loadStudyConfig(study);
          const model = createChatModel(
            resolveModelConfig({
              cli: { model: flags.model ?? scenario.model.model, baseURL: flags.baseUrl, noCache: !flags.cache },
              study: config.model,
              studyDir: study,
            }),
            { onRetry: ({ delayMs, error }) => io().err(`  retrying in ${(delayMs / 1000).toFixed(1)} s: ${error.message}`) },
          );
          const problem = await model.preflight();
          if (problem) {
            if (!flags.cache) throw new CliError(problem.message);
            io().err(`warning: ${problem.message}\n  continuing from the response cache only (replays work offline; new requests will fail)`);
          }
          // A resumed run serves the links its pages already have (same tokens, same port).
          const links = flags.serve && flags.resume ? journaledLinks(study, scenario, flags.condition, runs) : undefined;
          const live = flags.serve ? await serveLive(scenario, { host: flags.host, port, links }) : undefined;
          // Only listen on the terminal when someone will type or approve (a reader keeps stdin open).
          // A person typing at the terminal reads the turns in full at each prompt, so the run log
          // does not print them a second time; with --serve they read them on their page instead.
          const atTerminal = !live && scenario.participants.some((p) => p.kind === "human");
          const needsTerminal = atTerminal || /"approval":true/.test(JSON.stringify([scenario.strategy, scenario.conditions]));
          const human: HumanInput = live?.hub ?? (needsTerminal ? terminalHuman() : scriptedHuman([]));
          const reporter = io().reporter();
          // Ctrl-C or a kill: the running session is saved as incomplete (its journal stays for --resume).
          const interrupt = new AbortController();
          // Until the pages are open (or the operator starts the first session) no session runs: Ctrl-C then has nothing to save.
          let started = false;
          // After the last session, while the pages stay up for the transcripts: every session is done and saved.
          let closing = false;
          const onSignal = (signal: NodeJS.Signals) => {
            // Nothing runs or is left to run: Ctrl-C closes the pages as "Close the pages" does, and the run ends as done.
            if (closing) {
              io().err(`\n${signal}: closing the pages (every session is done and saved)…`);
              live?.hub.startNext();
              return;
            }
            // Live, between two sessions nothing runs either (the operator has not started the next).
            const running = live ? live.hub.sessionRunning : started;
            io().err(
              `\n${signal}: ${running ? "saving the session as incomplete…" : started ? "stopping before the next session…" : "stopping: no session has started yet…"}`,
            );
            interrupt.abort(signal);
            live?.hub.end(`interrupted (${signal})`);
            live?.hub.startNext();
          };
          process.once("SIGINT", onSignal);
          process.once("SIGTERM", onSignal);
          try {
            if (live) {
              if (flags.host !== "127.0.0.1" && flags.host !== "localhost")
                io().err(`warning: the pages listen on ${flags.host}: anyone on that network who has a link can open it; links are the only key`);
              for (const person of live.people) io().err(`  ${person.name}: ${person.link}`);
              io().err(`  operator: ${live.server.links.operator}`);
              if (scenario.studyFlow.waitingRoom) {
                // The waiting room: the operator sees who has joined and starts the first session.
                const first = sessionIdFor(scenario, selectConditions(scenario, flags.condition)[0].name, 1);
                io().err(`Waiting for the operator to start ${first} (the waiting room: the operator page's "Start the session")…`);
                // Ctrl-C ends the wait too (the signal's handler starts "the next session", which the run then does not run).
                await live.hub.awaitNext(first, "opening");
              } else if (live.people.length) {
                io().err(`Waiting for ${live.people.length} participant(s) to open their page…`);
                await Promise.race([live.hub.everyoneConnected(), once(interrupt.signal, "abort")]);
              }
              // Ctrl-C in the waiting room or before everyone has opened their page: no session has started, so there is nothing to save and the run ends.
              if (interrupt.signal.aborted)
                throw new CliError(`${String(interrupt.signal.reason)} while waiting for the participants: no session had started, nothing was saved`, {
                  exitCode: 130,
                });
            }
            started = true;
            const outcomes = await runScenario(scenario, {
              study,
              runs,
              seed,
              model,
              human,
              reporter,
              temperature: config.model?.temperature,
              echoTurns: !atTerminal,
              conditions: flags.condition,
              resume: flags.resume,
              overwrite: flags.overwrite,
              live: {
                observer: live?.hub,
                speed,
                answerTimeoutSeconds,
                turnTimeoutSeconds,
                ...(live && flags.gate
                  ? {
                      betweenSessions: (next: string) => {
                        io().err(`Waiting for the operator to start ${next} (the operator page's "Start the next session")…`);
                        return live.hub.awaitNext(next);
                      },
                    }
                  : {}),
                ...(live
                  ? {
                      links: {
                        port: live.server.port,
                        operator: live.hub.operatorToken,
                        participants: Object.fromEntries(live.hub.participantTokens),
                      },
                    }
                  : {}),
              },
              signal: interrupt.signal,
            });
            if (live && scenario.studyFlow.transcript && !interrupt.signal.aborted) {
              // The people download their transcripts from the pages: they stay up until the operator closes them.
              io().err('All sessions are done; the pages stay open for the transcripts until the operator presses "Close the pages" (or Ctrl-C)…');
              closing = true;
              await live.hub.awaitNext("", "closing");
            }
            const usage = model.usage();
            if (flags.json) printJson({ outcomes, usage });
            else {
              for (const o of outcomes) io().out(`${o.status.padEnd(9)} ${o.sessionId}  ${o.turns} turns  ${o.reason}${backupNote(o)}`);
              io().out(
                `LLM: ${usage.requests} requests (${usage.cachedResponses} from cache), ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens${usage.estimatedCost !== undefined ? `, about $${usage.estimatedCost.toFixed(4)}` : ""}`,
              );
              io().out(`Sessions are in ${study}/sessions; next: colloquy study ${flags.study}`);
            }
            const failed = outcomes.filter((o) => o.status === "failed");
            const kept = failed.filter((o) => o.backup?.kind === "failed");
            const saved = failed.length - kept.length;
            const problems = [
              ...(saved > 0 ? [`${saved} session(s) stopped early and were saved as incomplete; fix the cause and run again with --resume`] : []),
              ...(kept.length > 0
                ? [
                    `${kept.length} --overwrite run(s) failed; the sessions already there were left as they were (the attempts are in ${kept.map((o) => o.backup!.path).join(", ")}); fix the cause and run again with --overwrite`,
                  ]
                : []),
            ];
            if (interrupt.signal.aborted)
              throw new CliError(
                outcomes.some((o) => o.status === "interrupted")
                  ? `${String(interrupt.signal.reason)}: the session was saved as incomplete; run the same command with --resume to continue it`
                  : `${String(interrupt.signal.reason)} before the next session started: the sessions already run are saved; run the same command to run the rest`,
                { exitCode: 130 },
              );
            if (problems.length) throw new CliError(problems.join("; "));
          } finally {
            process.off("SIGINT", onSignal);
            process.off("SIGTERM", onSignal);
            human.close?.();
            await live?.server.close();
            // Interrupted, the abandoned session may still hold a timer or a model request: leave anyway.
            if (interrupt.signal.aborted) setTimeout(() => process.exit(130), 2000).unref();
          }
        },
        { create: true },
      );
    });
}
