import { loadCodebook } from "../coding/codebook/load.js";
import type { Codebook } from "../coding/codebook/schema.js";
import { createLearnedCoder, type LearnedCoder } from "../coding/learned/coder.js";
import { describeViews } from "../coding/learned/model.js";
import { createExamplePicker, type ExamplePicker } from "../coding/llm/examples.js";
import { imperativeAnswers } from "../coding/rules/text.js";
import { keepAnswers } from "../study/memo.js";
import { dryRunCoding, runCodingJob, type CodingSummary, type DryRun } from "../coding/job.js";
import type { ContextWindow } from "../coding/llm/prompt.js";
import type { LlmClient } from "../llm/client.js";
import { displayURL, needsApiKey, type ModelCliOptions } from "../llm/config.js";
import type { CodebookPlan } from "../study/config.js";
import { batchAnsweredModel } from "../llm/batch/answered.js";
import type { BatchLimits } from "../llm/batch/files.js";
import type { BatchReplies } from "../llm/batch/collected.js";
import { submitCodingBatch, type BatchSubmitSummary } from "./batch.js";
import { listSessionIds } from "../study/study.js";
import { withTurns } from "../study/validated-sessions.js";
import { rulesValidation } from "./rules-validation.js";
import { CliError } from "../util/errors.js";
import type { StageEffects, StudyContext } from "./context.js";

/**
 * The code stage: code every not-yet-coded turn with each codebook x machine coder (offline
 * rules, or an LLM). Resumable: what is stored is never asked for again, and LLM replies are
 * cached in the study.
 */

export interface CodeStageOptions {
  /** One codebook (id or file); default: every codebook plan of colloquy.json. */
  codebook?: string;
  /** Machine coder for every job; default: each plan's coders ("rules" with --codebook). */
  coder?: "llm" | "rules" | "learned";
  /** Learned coder: the human coders whose codes it learns from ("human:alice"). */
  train?: string[];
  /** Learned coder: list the coded turns it is less sure about than this probability. */
  reviewBelow?: number;
  /** Learned coder: also measure agreement against training-set size. */
  learningCurve?: boolean;
  /** Learned coder: code even when the cross-validated estimate is below the floor (the codes then carry status "below-floor"). */
  allowBelowFloor?: boolean;
  /** Stored coder id (default "llm", "rules" or "learned"). */
  coderId?: string;
  /** Model settings given on the command line (win over colloquy.json and the environment). */
  model?: ModelCliOptions;
  context?: ContextWindow;
  samples?: number;
  batch?: number;
  /** LLM coder: show the most similar turns coded by these coders ("human:alice") as worked examples. */
  examples?: string[];
  /** LLM coder with examples: how many per request (default 8). */
  shots?: number;
  /** LLM coder with examples: never show a turn of the session being coded. */
  examplesExcludeSession?: boolean;
  /** Session ids to code (default: all). */
  sessions?: string[];
  noCache?: boolean;
  /** Plan only: the exact prompt of one turn and the estimated requests, nothing sent. */
  dryRun?: boolean;
  signal?: AbortSignal;
  /** "batch": write the LLM requests to the provider's Batch API instead of asking them now (collect later). */
  via?: "online" | "batch";
  /** With via "batch": requests and bytes per batch file (default: the provider's limits). */
  batchLimits?: Partial<BatchLimits>;
  /** Collecting: the replies of finished batches by request key; the LLM coder is answered from them. */
  answers?: BatchReplies;
  /** Code records per append and ms between appends (default 50 and 500; tests use smaller). */
  flushEvery?: number;
  flushMs?: number;
}

/** One codebook x coder to run. */
export interface CodingJobSpec {
  codebookRef: string;
  coder: "llm" | "rules" | "learned";
  context?: ContextWindow;
  samples?: number;
  /** From the codebook plan of colloquy.json (command-line flags win). */
  train?: string[];
  allowBelowFloor?: boolean;
  examples?: string[];
  shots?: number;
  examplesExcludeSession?: boolean;
}

/** What a codebook plan of colloquy.json says about the learned coder's training and the LLM's worked examples. */
const planTeaching = (plan: CodebookPlan | undefined) => ({
  train: plan?.train,
  allowBelowFloor: plan?.allowBelowFloor,
  examples: plan?.examples,
  shots: plan?.shots,
  examplesExcludeSession: plan?.examplesExcludeSession,
});

export interface CodeSummary {
  jobs: CodingSummary[];
  dryRuns: (DryRun & { codebook: string; coder: string })[];
  /** With via "batch": what was submitted (or on a dry run, would be) per LLM job. */
  batches: BatchSubmitSummary[];
  /** The model used (llm jobs only). */
  model?: { name: string; endpoint: string };
  /** Set on a dry run against an endpoint that will need a key the environment lacks. */
  keyNote?: string;
}

const planContext = (plan: CodebookPlan | undefined): ContextWindow | undefined =>
  plan?.context ? { before: plan.context[0], after: plan.context[1] } : undefined;

/** The jobs to run: one codebook from the options, or every codebook plan of colloquy.json. */
export function codingJobs(options: Pick<CodeStageOptions, "codebook" | "coder" | "context" | "samples">, plans: readonly CodebookPlan[]): CodingJobSpec[] {
  if (options.codebook) {
    const plan = plans.find((p) => p.codebook === options.codebook);
    return [
      {
        codebookRef: options.codebook,
        coder: options.coder ?? "rules",
        context: options.context ?? planContext(plan),
        samples: options.samples ?? plan?.samples,
        ...planTeaching(plan),
      },
    ];
  }
  if (plans.length === 0) throw new CliError("no --codebook given and colloquy.json lists no codebooks: pass --codebook bales-ipa (or a path)");
  return plans.flatMap((plan) =>
    (options.coder ? [options.coder] : plan.coders).map((coder) => ({
      codebookRef: plan.codebook,
      coder,
      context: options.context ?? planContext(plan),
      samples: options.samples ?? plan.samples,
      ...planTeaching(plan),
    })),
  );
}

async function selectSessions(context: StudyContext, wanted: string[] | undefined) {
  if (wanted) {
    const known = await listSessionIds(context.dir);
    const unknown = wanted.filter((id) => !known.includes(id));
    if (unknown.length > 0) {
      throw new CliError(
        `--sessions: no session ${unknown.map((s) => `"${s}"`).join(", ")} in ${context.dir} (it has ${known.length}: ${known.slice(0, 10).join(", ")}${known.length > 10 ? ", …" : ""})`,
      );
    }
  }
  const all = await context.sessions();
  const sessions = wanted ? all.filter((s) => wanted.includes(s.id)) : all;
  if (sessions.length === 0) throw new CliError(`${context.dir} has no sessions yet: import some with \`colloquy import <files> --study ${context.dir}\``);
  return sessions;
}

/**
 * Train the learned coder on the study's human codes of this codebook (all sessions, not only those
 * coded now), and say how good it is likely to be before any code is stored: below the floor it
 * stops, unless `allowBelowFloor`.
 */
async function trainLearner(
  context: StudyContext,
  codebook: Codebook,
  train: readonly string[],
  allowBelowFloor: boolean | undefined,
  effects: StageEffects,
  coderId = "learned",
): Promise<LearnedCoder> {
  if (train.length === 0) throw new CliError("the learned coder needs human codes to learn from: --train human:alice (or several: human:alice,human:bob)");
  const coders = (await context.coders())[codebook.id] ?? [];
  const missing = train.filter((c) => !coders.includes(c));
  if (missing.length > 0)
    throw new CliError(`--train: no codes of ${codebook.id} by ${missing.join(", ")} in ${context.dir} (coders with codes: ${coders.join(", ") || "none"})`);
  const training = (await Promise.all(train.map((c) => context.codes(codebook.id, c)))).flat();
  effects.log(`training the learned coder on ${training.length} human code(s) of ${codebook.id} by ${train.join(", ")}…`);
  let learner: LearnedCoder;
  try {
    learner = createLearnedCoder({ codebook, sessions: await context.sessions(), training, trainedOn: train, seed: context.config.model.seed });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  const estimate = describeEstimate(learner);
  effects.log(estimate);
  const { status } = learner;
  if (status.status !== "validated" && !allowBelowFloor)
    throw new CliError(
      `the learned coder for ${codebook.id} is not good enough to code on its own: ${status.reason} (${estimate}). Code more turns by hand: to let the coder pick the most useful ones, code with --allow-below-floor (\`colloquy study\` takes no such flag: set "allowBelowFloor": true in the ${codebook.id} plan of colloquy.json's "codebooks"; every code then records status ${status.status}), then \`colloquy sample ${context.dir} --codebook ${codebook.id} --strategy uncertain --coder learned --n 10 --out next.csv\` lists the turns it is least sure of; or draw a random sample (\`colloquy sample ${context.dir} --n 20 --out next.csv\`)` +
        (await outOfDate(context, codebook, coderId, learner)),
    );
  return learner;
}

/**
 * Refusing to code leaves the codes of an earlier training in place, and the report, the dashboard
 * and `sample --strategy uncertain` go on reading them with the status they were stored with
 * (e.g. "validated"): say so, since the human codes they were learned from have changed.
 */
async function outOfDate(context: StudyContext, codebook: Codebook, coderId: string, learner: LearnedCoder): Promise<string> {
  const stale = (await context.codes(codebook.id, coderId)).filter((r) => r.provenance.trainingHash !== learner.trainingHash);
  if (stale.length === 0) return "";
  const was = stale.find((r) => r.provenance.validation)?.provenance.validation as { status?: string } | undefined;
  return `. The ${stale.length} ${coderId} code(s) of ${codebook.id} already stored were learned from other human codes than the study has now and are out of date${was?.status ? ` (they still say "${was.status}")` : ""}: code again with --allow-below-floor to replace them, or do not use them`;
}

/** The estimate a researcher sees before any code is stored. */
function describeEstimate(learner: LearnedCoder): string {
  const v = learner.validation;
  const f = (x: number) => x.toFixed(2);
  if (!Number.isFinite(v.kappa)) return `learned coder: no estimate (${learner.status.reason})`;
  const interval = v.interval ? ` (95% CI ${f(v.interval.lower)}-${f(v.interval.upper)}, bootstrap over ${v.sessions} sessions)` : "";
  const { c, balanced } = v.settings;
  const { temperature, eceBefore, eceAfter } = v.calibration;
  // Why one model alone: its out-of-fold kappa beat the average's by more than the noise.
  const views = v.views;
  const gain = views && views.chosen !== "average" ? views.overAverage[views.chosen] : undefined;
  const why =
    views && gain
      ? ` (kappa ${f(views.kappa[views.chosen])} against the average's ${f(views.kappa.average)}, difference 95% CI ${f(gain.lower)}-${f(gain.upper)})`
      : "";
  return (
    `learned coder, estimated on this study by ${v.folds}-fold cross-validation grouped by session: kappa ${f(v.kappa)}${interval}, agreement ${(v.agreement * 100).toFixed(1)}% on ${v.n} human code(s); ` +
    `chose C=${c} (${balanced ? "balanced" : "unweighted"} classes, ${describeViews(v.settings)}${why}); calibration: temperature ${temperature}, ECE ${f(eceBefore)} -> ${f(eceAfter)}`
  );
}

/** Default number of worked examples per request. */
const DEFAULT_SHOTS = 8;

/** The worked-example picker for one codebook: the named coders' current codes over every session of the study. */
async function examplePicker(
  context: StudyContext,
  codebook: Codebook,
  options: Pick<CodeStageOptions, "examples" | "shots" | "examplesExcludeSession">,
  effects: StageEffects,
): Promise<ExamplePicker | undefined> {
  const from = options.examples ?? [];
  if (from.length === 0) return undefined;
  const coders = (await context.coders())[codebook.id] ?? [];
  const missing = from.filter((c) => !coders.includes(c));
  if (missing.length > 0)
    throw new CliError(
      `--examples: no codes of ${codebook.id} by ${missing.join(", ")} in ${context.dir} (coders with codes: ${coders.join(", ") || "none"}); code some turns first (colloquy codes import, or the coding sheet)`,
    );
  const records = await Promise.all(from.map(async (coder) => ({ coder, records: await context.codes(codebook.id, coder) })));
  const picker = createExamplePicker({
    codebook,
    sessions: await context.sessions(),
    records,
    shots: options.shots ?? DEFAULT_SHOTS,
    excludeSession: options.examplesExcludeSession,
  });
  if (picker.poolSize === 0)
    throw new CliError(
      `--examples: the codes of ${codebook.id} by ${from.join(", ")} name no turn of ${context.dir} as it reads now with a code this codebook still has, so there is nothing to show`,
    );
  effects.log(
    `worked examples for ${codebook.id}: the ${options.shots ?? DEFAULT_SHOTS} most similar of ${picker.poolSize} turn(s) coded by ${from.join(", ")}${options.examplesExcludeSession ? ", never from the session being coded" : ""}`,
  );
  return picker;
}

/** Worked examples from the command line when it names any, else from the codebook plan. */
function examplesOf(options: CodeStageOptions, spec: CodingJobSpec): Pick<CodeStageOptions, "examples" | "shots" | "examplesExcludeSession"> {
  if (options.examples?.length) return options;
  return { examples: spec.examples, shots: options.shots ?? spec.shots, examplesExcludeSession: options.examplesExcludeSession ?? spec.examplesExcludeSession };
}

/** A collected batch's successful replies, by request hash (failed ones go through the coder, which reports them). */
const answeredBy = (answers: BatchReplies) => async (hash: string) => {
  const answer = await answers.get(hash);
  return answer?.ok ? answer : undefined;
};

/** Run (or with `dryRun`, plan) every coding job. Stops at the first job that was stopped or aborted. */
export async function runCode(context: StudyContext, options: CodeStageOptions, effects: StageEffects): Promise<CodeSummary> {
  const sessions = await selectSessions(context, options.sessions);
  const specs = codingJobs(options, context.config.codebooks);
  const codebooks = await Promise.all(specs.map((s) => loadCodebook(s.codebookRef, context.dir)));
  const summary: CodeSummary = { jobs: [], dryRuns: [], batches: [] };
  if (options.via === "batch" && specs.some((s) => s.coder !== "llm"))
    throw new CliError("--via batch is for the LLM coder: add --coder llm (the rules and learned coders run offline at once)");
  if ((options.examples?.length ?? 0) === 0 && (options.shots !== undefined || options.examplesExcludeSession)) {
    throw new CliError("--shots and --examples-exclude-session go with --examples human:alice (the coders whose codes are shown as worked examples)");
  }
  if (options.examples?.length && specs.some((s) => s.coder !== "llm")) throw new CliError("--examples is for the LLM coder: add --coder llm");
  let model: LlmClient | undefined;
  if (specs.some((s) => s.coder === "llm")) {
    model = context.model(options.model ?? {}, effects);
    if (options.answers) model = batchAnsweredModel(model, options.answers);
    summary.model = { name: model.info.model, endpoint: displayURL(model.config.baseURL) };
    // The key only ever comes from the environment (see resolveModelConfig).
    if (needsApiKey(model.config.baseURL) && !process.env.OPENAI_API_KEY) {
      summary.keyNote = `note: the real run needs an API key for ${displayURL(model.config.baseURL)}: export OPENAI_API_KEY=sk-... (or use a local model with --base-url http://localhost:11434/v1)`;
    }
    if (!options.dryRun) {
      // Once, before any work: a missing key or a dead endpoint would otherwise fail every turn.
      const problem = await model.preflight();
      if (problem) throw new CliError(problem.message);
    }
  }
  // The rules coder's lexicon lookups of earlier runs: compromise loads only for words never asked.
  const rules = specs.some((s) => s.coder === "rules") && !options.dryRun;
  const saveAnswers = rules ? await keepAnswers(context.dir, "rules-lexicon", [imperativeAnswers()]) : undefined;
  // Offline coding, submitting or collecting a batch read one session at a time (bounded memory at
  // any study size), through withTurns: a session whose turns this process holds is given as is; one
  // read from its head is read again from the file it came from (checked to be unchanged) and let go after.
  const oneByOne = options.via === "batch" || options.answers !== undefined;
  try {
    for (const [i, spec] of specs.entries()) {
      const job = {
        study: context.dir,
        sessions,
        codebook: codebooks[i],
        coder: spec.coder,
        learner:
          spec.coder === "learned"
            ? await trainLearner(
                context,
                codebooks[i],
                options.train ?? spec.train ?? [],
                options.allowBelowFloor ?? spec.allowBelowFloor,
                effects,
                options.coderId,
              )
            : undefined,
        rulesValidation: spec.coder === "rules" && !options.dryRun ? await rulesValidation(context, codebooks[i], sessions, withTurns) : undefined,
        reviewBelow: options.reviewBelow,
        learningCurve: options.learningCurve,
        coderId: options.coderId,
        model: spec.coder === "llm" ? model : undefined,
        examples: spec.coder === "llm" ? await examplePicker(context, codebooks[i], examplesOf(options, spec), effects) : undefined,
        context: spec.context,
        samples: spec.samples,
        batch: options.batch,
        seed: options.model?.seed ?? context.config.model.seed,
        noCache: options.noCache,
        reporter: effects,
        reader: context,
        signal: options.signal,
        answered: spec.coder === "llm" && options.answers ? answeredBy(options.answers) : undefined,
        load: spec.coder !== "llm" || oneByOne ? withTurns : undefined,
        flushEvery: options.flushEvery,
        flushMs: options.flushMs,
      };
      if (options.via === "batch" && job.model) {
        const recorded: Parameters<typeof submitCodingBatch>[2] = {
          codebook: spec.codebookRef,
          coderId: options.coderId,
          context: spec.context,
          samples: spec.samples,
          batch: options.batch,
          examples: options.examples,
          shots: options.shots,
          examplesExcludeSession: options.examplesExcludeSession,
          sessions: options.sessions,
          seed: job.seed,
          temperature: options.model?.temperature,
        };
        summary.batches.push(
          await submitCodingBatch(context, { ...job, model: job.model }, recorded, { limits: options.batchLimits, dryRun: options.dryRun }, effects),
        );
        continue;
      }
      if (options.dryRun) {
        summary.dryRuns.push({ codebook: codebooks[i].id, coder: spec.coder, ...(await dryRunCoding(job)) });
        continue;
      }
      const result = await runCodingJob(job);
      summary.jobs.push(result);
      if (options.signal?.aborted || result.stoppedBy) break;
    }
  } finally {
    if (!options.dryRun) context.changed("codes");
  }
  await saveAnswers?.();
  return summary;
}

/** Why a coding run is not complete (stopped, failed turns, interrupted), as the error to raise; undefined when it is. */
export function incompleteCoding(summary: CodeSummary): CliError | undefined {
  const stopped = summary.jobs.find((s) => s.stoppedBy);
  if (stopped) return new CliError(`stopped coding ${stopped.codebook}: ${stopped.stoppedBy}`);
  const failed = summary.jobs.filter((s) => s.failed > 0);
  if (failed.length > 0) {
    const files = failed.map((s) => s.failuresFile).join(", ");
    const count = failed.reduce((n, s) => n + s.failed, 0);
    return new CliError(`${count} turn(s) could not be coded and were not stored as codes; the replies are in ${files}. Run the command again to retry them.`);
  }
  if (summary.jobs.some((s) => s.aborted))
    return new CliError("interrupted before every turn was coded; run the same command again to continue", { exitCode: 130 });
  return undefined;
}
