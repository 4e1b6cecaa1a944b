import { CliError, errorMessage } from "../util/errors.js";
import { collectGarbage } from "../util/memory.js";
import type { Reporter } from "../util/reporter.js";
import { openStudy, type ModelFactory } from "../stages/context.js";
import { FileHasher } from "./fingerprint.js";
import { isForced, isSelected as selected } from "./options.js";
import { readState, writeState } from "./state.js";
import { rememberedEmptyViewWarnings } from "./empty-views.js";
import type { PipelineOptions, Stage, StageContext, StageName, StagePlan } from "./types.js";

export interface StageOutcome {
  name: StageName;
  status: "ran" | "skipped" | "failed" | "not-selected";
  reason: string;
  seconds: number;
  summary?: string;
}

export interface PipelineResult {
  stages: StageOutcome[];
  /** Files read to fingerprint them (unchanged files are recognised by their stamp: size, mtime, ctime, inode; unread). */
  filesRead: number;
  /** Dashboard views the study will leave empty, with how to fill them (said once per run). */
  warnings: string[];
}

/** A stage runs when forced, or when its input fingerprint differs from the last finished run. */
function decide(context: StageContext, stage: Stage, plan: StagePlan): { run: boolean; reason: string } {
  if (isForced(context.options, stage.name)) return { run: true, reason: "forced" };
  if (plan.nothingToDo) return { run: false, reason: plan.work };
  if (plan.mustRun) return { run: true, reason: plan.mustRun };
  const last = context.state.stages[stage.name];
  if (last && last.fingerprint === plan.fingerprint) return { run: false, reason: "unchanged since last run" };
  return { run: true, reason: last ? "inputs changed" : "never run" };
}

/**
 * Run the pipeline's stages in order. Prints a plan first (what would run given the current
 * inputs; later stages are re-checked just before they run, since earlier stages change
 * their inputs), then one line per stage with its timing. A failing stage does not stop the
 * stages that do not need it (Stage.needs): they run, and the run then fails with a CliError
 * naming every failure; stages that finished keep their outputs and state records.
 */
export async function runPipeline(
  study: string,
  stages: readonly Stage[],
  options: PipelineOptions,
  reporter: Reporter,
  setup: { modelFactory?: ModelFactory } = {},
): Promise<PipelineResult> {
  const studyContext = await openStudy(study, setup);
  const state = await readState(study);
  const hashes = new FileHasher(studyContext.paths.root, state.hashes);
  const context: StageContext = { study: studyContext, options, reporter, state, hashes };

  reporter.log("Plan:");
  let llmRequests = 0;
  let llmTokens = 0;
  let firstRunning: StageName | undefined;
  for (const stage of stages) {
    if (!selected(options, stage.name)) {
      reporter.log(`  ${stage.name.padEnd(9)} not selected (--only)`);
      continue;
    }
    const plan = await stage.plan(context);
    const decision = decide(context, stage, plan);
    if (decision.run) firstRunning ??= stage.name;
    llmRequests += decision.run ? (plan.llm?.requests ?? 0) : 0;
    llmTokens += decision.run ? (plan.llm?.promptTokens ?? 0) : 0;
    reporter.log(`  ${stage.name.padEnd(9)} ${decision.run ? `run: ${plan.work}` : `skip: ${decision.reason}`}`);
  }
  reporter.log(`  LLM: about ${llmRequests} requests, ${llmTokens} prompt tokens${llmRequests === 0 ? " (offline)" : ""}`);
  if (firstRunning !== undefined && firstRunning !== stages[stages.length - 1]?.name) {
    reporter.log(`  (each stage is checked again just before it runs: what "${firstRunning}" changes can make later stages run too, and the estimates grow)`);
  }

  const outcomes: StageOutcome[] = [];
  const failures: { name: StageName; error: unknown }[] = [];
  // Stage records not yet written to the state file (see below).
  let unsaved = false;
  const save = async () => {
    context.state.hashes = hashes.remembered();
    await writeState(study, context.state);
    unsaved = false;
  };
  try {
    for (const stage of stages) {
      if (!selected(options, stage.name)) {
        outcomes.push({ name: stage.name, status: "not-selected", reason: "--only", seconds: 0 });
        continue;
      }
      const failedNeed = stage.needs?.find((name) => failures.some((f) => f.name === name));
      if (failedNeed !== undefined) {
        const reason = `needs "${failedNeed}", which failed`;
        reporter.log(`[${stage.name}] not run: ${reason}`);
        outcomes.push({ name: stage.name, status: "skipped", reason, seconds: 0 });
        continue;
      }
      const began = performance.now();
      // Re-plan: earlier stages may have changed this stage's inputs.
      const plan = await stage.plan(context);
      const decision = decide(context, stage, plan);
      if (!decision.run) {
        reporter.log(`[${stage.name}] skipped: ${decision.reason} (${((performance.now() - began) / 1000).toFixed(1)} s to check)`);
        outcomes.push({ name: stage.name, status: "skipped", reason: decision.reason, seconds: 0 });
        continue;
      }
      let summary: string;
      try {
        summary = await stage.run(context);
      } catch (error) {
        // The stages that do not need this one still run; the run fails at its end, naming every failure.
        const seconds = (performance.now() - began) / 1000;
        outcomes.push({ name: stage.name, status: "failed", reason: errorMessage(error), seconds });
        failures.push({ name: stage.name, error });
        reporter.log(`[${stage.name}] FAILED after ${seconds.toFixed(1)} s: ${errorMessage(error)}`);
        continue;
      } finally {
        // The stages after this one read the turns they need anew: those this one read (a
        // study's turns take ~0.5 GB at 1,000,000) are not held through them (issue 40). What the
        // stage let go is collected now: else V8 lets the next stage's garbage pile up on it, to a
        // limit it set while this stage held the most (1,000,000 turns: the agree stage peaked at
        // 1.98 GB after the code stage, where on its own it takes a fraction of that).
        context.study.releaseSessions();
        collectGarbage();
      }
      // What the stage wrote may be what later stages read.
      hashes.forget(stage.writes.map((folder) => context.study.paths[folder]));
      // The pre-run fingerprint is the one to remember, unless the stage's outputs are among its
      // own inputs (see Stage.fingerprintAfterRun).
      const print = stage.fingerprintAfterRun ? await stage.fingerprintAfterRun(context) : plan.fingerprint;
      const seconds = (performance.now() - began) / 1000;
      context.state.stages[stage.name] = { fingerprint: print, finishedAt: new Date().toISOString(), seconds, summary };
      // Written now when the stage took a second or more, so that a crash later does not make it run
      // again; a quicker one is written with the next, or at the end: each write takes a few ms (the
      // state remembers every file's hash), and a run adding one session to a 100,000-turn study ran
      // eight stages of 0.1-0.9 s. Running such a stage again after a crash costs less than the writes.
      unsaved = true;
      if (seconds >= 1) await save();
      reporter.log(`[${stage.name}] ${summary} (${seconds.toFixed(1)} s)`);
      outcomes.push({ name: stage.name, status: "ran", reason: decision.reason, seconds, summary });
    }
    // Once per run, after every stage: what the dashboard will not be able to show, and how to fix it.
    const remembered = JSON.stringify(state.emptyViews);
    const warnings = await rememberedEmptyViewWarnings(context.study, hashes, state);
    // Remember the hashes even when nothing ran, so the next run reads no unchanged file.
    if (unsaved || JSON.stringify(state.hashes ?? {}) !== JSON.stringify(hashes.remembered()) || JSON.stringify(state.emptyViews) !== remembered) await save();
    if (failures.length > 0) {
      const done = outcomes.filter((o) => o.status === "ran").map((o) => o.name);
      throw new CliError(
        failures.map((f) => `stage "${f.name}" failed: ${errorMessage(f.error)}`).join("\n") +
          `\n${done.length ? `The other stages ran (${done.join(", ")}) and keep their outputs` : "No other stage ran"}; fix the problem and run \`colloquy study\` again to continue from "${failures[0].name}".`,
        { cause: failures[0].error },
      );
    }
    return { stages: outcomes, filesRead: hashes.filesRead, warnings };
  } finally {
    // Whatever stopped the run (a stage, a plan, the warnings), the stages that finished keep their
    // records; a failure to write them then must not hide the error that stopped it.
    if (unsaved) await save().catch((error: unknown) => reporter.warn(`could not save the pipeline state: ${errorMessage(error)}`));
  }
}
