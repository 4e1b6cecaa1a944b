import { readdir, rm } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import type { CachedReply } from "../llm/cache.js";
import type { LlmClient } from "../llm/client.js";
import type { ModelCliOptions } from "../llm/config.js";
import { isLoopbackEndpoint } from "../llm/config.js";
import { BatchApiError, REQUEST_HASH_KEY, type BatchApi, type BatchInfo } from "../llm/batch/api.js";
import { OPENAI_BATCH_LIMITS, writeRequestFiles, type BatchLimits, type BatchRequestLine } from "../llm/batch/files.js";
import { FINAL_STATUSES, emptyLedger, isOpen, type BatchEntry, type BatchLedger } from "../llm/batch/ledger.js";
import { batchResults, type BatchAnswer } from "../llm/batch/results.js";
import { CollectedReplies, keepsInCache, type BatchReplies } from "../llm/batch/collected.js";
import { batchPrice, estimateCost, priceFor } from "../llm/prices.js";
import { codingBatchRequests, type BatchPlanCounts } from "../coding/job-batch.js";
import type { CodingJobOptions } from "../coding/job.js";
import { artifacts, loadArtifact, writeArtifact } from "../study/artifacts.js";
import { STUDY_FOLDERS } from "../util/artifact.js";
import { CliError } from "../util/errors.js";
import { collectGarbage } from "../util/memory.js";
import type { StageEffects, StudyContext } from "./context.js";
import type { CodeStageOptions } from "./code.js";

/**
 * Batch coding: submit a coding job's requests to the provider's Batch API (half price, answered
 * within 24 h), and later, from any process, check, collect or cancel. What a later process
 * needs is in `<study>/.colloquy/batches.json`; the replies go to the response cache and
 * through the online coder (coding/job-batch.ts, llm/batch/answered.ts), so a batch codes
 * exactly as an online run would.
 */

/** What one submission did (or, on a dry run, would do). */
export interface BatchSubmitSummary {
  label: string;
  counts: BatchPlanCounts;
  /** The batches created: one per request file. */
  batches: { id: string; requests: number; bytes: number }[];
  /** USD at the standard (online) price and at the batch price; undefined when the price is unknown. */
  onlineCost?: number;
  batchCost?: number;
}

/** The job a batch serves, as recorded (enough to rebuild the coding job when collecting). */
export type CodingBatchJob = Pick<
  CodeStageOptions,
  "coderId" | "context" | "samples" | "batch" | "examples" | "shots" | "examplesExcludeSession" | "sessions"
> & {
  codebook: string;
  seed?: number;
  temperature?: number;
};

export async function loadLedger(study: string): Promise<BatchLedger> {
  const read = await loadArtifact(artifacts.batches, study);
  if (read.status === "missing") return emptyLedger();
  if (read.status === "invalid")
    throw new CliError(
      `${artifacts.batches.path(study)}: ${read.problem}; it lists the batches this study submitted (restore it from a copy of the study to collect them)`,
    );
  return read.value;
}

const saveLedger = (study: string, ledger: BatchLedger) => writeArtifact(artifacts.batches, study, ledger);

/** Batches of the study still waiting to be collected (for `colloquy study` and messages). */
export async function openBatches(study: string): Promise<BatchEntry[]> {
  return (await loadLedger(study)).batches.filter(isOpen);
}

export function costs(model: LlmClient, counts: Pick<BatchPlanCounts, "promptTokens" | "completionTokens">) {
  const price = priceFor(model.info.model, { overrides: model.config.prices, local: isLoopbackEndpoint(model.config.baseURL) });
  return {
    onlineCost: estimateCost(price, counts.promptTokens, counts.completionTokens),
    batchCost: estimateCost(batchPrice(price), counts.promptTokens, counts.completionTokens),
  };
}

/** Where a search for an entry's batch can stop (epoch seconds; a minute's margin for clocks that disagree). */
const createdSince = (entry: BatchEntry) => Math.floor(Date.parse(entry.createdAt) / 1000) - 60;

/**
 * Create the batch of an entry whose file is uploaded, at most once. Tagged with the request
 * file's hash and the study's folder name (never a path or a key), so that a create whose reply
 * was lost is found at the provider and adopted (llm/batch/api.ts). With `reconcile` (an entry a
 * killed process left "uploaded"), the provider is asked first whether that batch exists.
 */
async function createBatch(api: BatchApi, entry: BatchEntry, study: string, effects: StageEffects, reconcile: boolean): Promise<void> {
  const existing = reconcile ? await api.find(entry.inputFileId, entry.requestHash, createdSince(entry)) : undefined;
  if (existing) effects.log(`${entry.label}: batch ${existing.id} was created for file ${entry.inputFileId} before the reply was lost; adopted it`);
  const metadata: Record<string, string> = { colloquy: `${entry.kind} ${entry.label}`.slice(0, 512), colloquy_study: basename(resolve(study)).slice(0, 512) };
  if (entry.requestHash) metadata[REQUEST_HASH_KEY] = entry.requestHash;
  const batch = existing ?? (await api.create(entry.inputFileId, metadata));
  entry.id = batch.id;
  entry.state = "submitted";
  entry.status = batch.status;
}

/**
 * Submit one coding job as batches: write the request files (split by `limits`), upload each,
 * create its batch, record it in batches.json after every step. With `dryRun`, only count.
 */
export async function submitCodingBatch(
  context: StudyContext,
  job: CodingJobOptions & { model: LlmClient },
  spec: CodingBatchJob,
  options: { limits?: Partial<BatchLimits>; dryRun?: boolean },
  effects: StageEffects,
): Promise<BatchSubmitSummary> {
  const label = `${job.codebook.id}/${job.coderId ?? "llm"}`;
  const ledger = await loadLedger(context.dir);
  const { counts, lines } = codingBatchRequests(job, openKeys(ledger, "code"));
  if (options.dryRun) {
    for await (const _ of lines) void _;
    return { label, counts, batches: [], ...costs(job.model, counts) };
  }
  const batches = await submitLines(
    context,
    ledger,
    job.model,
    lines,
    { kind: "code", label, job: { ...spec }, prefix: job.codebook.id },
    options.limits,
    effects,
  );
  return { label, counts, batches, ...costs(job.model, counts) };
}

/** Request keys already asked by an open batch of this kind. */
export const openKeys = (ledger: BatchLedger, kind: BatchEntry["kind"]) =>
  new Set(ledger.batches.filter((b) => isOpen(b) && b.kind === kind).flatMap((b) => b.requests));

/** Write, upload and create the batches of `lines`; each step recorded in batches.json at once. */
export async function submitLines(
  context: StudyContext,
  ledger: BatchLedger,
  model: LlmClient,
  lines: AsyncIterable<BatchRequestLine> | Iterable<BatchRequestLine>,
  what: { kind: BatchEntry["kind"]; label: string; job: Record<string, unknown>; prefix: string },
  limits: Partial<BatchLimits> | undefined,
  effects: StageEffects,
): Promise<BatchSubmitSummary["batches"]> {
  const folder = requestsFolder(context.dir);
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  effects.log(`${what.label}: writing the batch request files…`);
  const api = model.batchApi();
  await removeLeftovers(api, ledger, folder, effects);
  const files = await writeRequestFiles(lines, folder, `${stamp}-${what.prefix}`, { ...OPENAI_BATCH_LIMITS, ...limits });
  const created: BatchSubmitSummary["batches"] = [];
  for (const [i, file] of files.entries()) {
    effects.log(`${what.label}: uploading request file ${i + 1} of ${files.length} (${file.keys.length} requests, ${(file.bytes / 1e6).toFixed(1)} MB)…`);
    const inputFileId = await apiCall(() => api.upload(file.path));
    const entry: BatchEntry = {
      inputFileId,
      kind: what.kind,
      job: what.job,
      label: what.label,
      model: model.info.model,
      endpointHost: model.info.endpointHost,
      state: "uploaded",
      createdAt: new Date().toISOString(),
      requests: file.keys,
      bytes: file.bytes,
      requestHash: file.sha256,
    };
    ledger.batches.push(entry);
    // Recorded before the batch exists: a process killed now leaves an entry the next one completes.
    await saveLedger(context.dir, ledger);
    await apiCall(() => createBatch(api, entry, context.dir, effects, false));
    await saveLedger(context.dir, ledger);
    created.push({ id: entry.id!, requests: file.keys.length, bytes: file.bytes });
    await rm(file.path, { force: true });
  }
  return created;
}

/** Where request files wait while they are uploaded. */
const requestsFolder = (study: string) => join(study, STUDY_FOLDERS.jobs, "requests");

/**
 * Request files a killed submission left (the folder only holds files being uploaded: one
 * writer at a time holds the study's lock): each is removed, and so is any upload of it
 * (same file name, purpose "batch") that no batch of the ledger points to.
 */
async function removeLeftovers(api: BatchApi, ledger: BatchLedger, folder: string, effects: StageEffects): Promise<void> {
  const names = (await readdir(folder).catch(() => [] as string[])).filter((name) => name.endsWith(".jsonl"));
  if (names.length === 0) return;
  const referenced = new Set(ledger.batches.map((b) => b.inputFileId));
  const uploads = await apiCall(() => api.listFiles());
  for (const name of names) {
    for (const upload of uploads.filter((f) => f.filename === name && !referenced.has(f.id))) await apiCall(() => api.deleteFile(upload.id));
    await rm(join(folder, name), { force: true });
  }
  effects.log(`removed ${names.length} request file(s) an interrupted submission left, and their uploads`);
}

/** Provider errors as CliErrors (their messages already say how to fix them and hold no key). */
async function apiCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof BatchApiError) throw new CliError(error.message);
    throw error;
  }
}

/** One batch as `colloquy batch status` shows it. */
export interface BatchStatusLine {
  id?: string;
  label: string;
  state: BatchEntry["state"];
  status?: string;
  requests: number;
  counts?: BatchInfo["counts"];
  createdAt: string;
  errors: string[];
}

/** The client for a batch's model, checked to point at the endpoint the batch was sent to. */
function clientFor(context: StudyContext, entry: BatchEntry, cli: ModelCliOptions, effects: StageEffects): LlmClient {
  const model = context.model({ ...cli, model: entry.model }, effects);
  if (model.info.endpointHost !== entry.endpointHost) {
    throw new CliError(
      `batch ${entry.id ?? entry.inputFileId} (${entry.label}) was sent to ${entry.endpointHost}, but the endpoint now is ${model.info.endpointHost}: pass --base-url for ${entry.endpointHost} (and its key in OPENAI_API_KEY)`,
    );
  }
  return model;
}

/** Ask the provider about every open batch; completes batches a killed process left uploaded, and removes what it left besides. */
async function refresh(context: StudyContext, ledger: BatchLedger, cli: ModelCliOptions, effects: StageEffects): Promise<Map<BatchEntry, BatchInfo>> {
  await removeLeftovers(context.model(cli, effects).batchApi(), ledger, requestsFolder(context.dir), effects);
  const infos = new Map<BatchEntry, BatchInfo>();
  for (const entry of ledger.batches.filter(isOpen)) {
    const api = clientFor(context, entry, cli, effects).batchApi();
    if (!entry.id) {
      await apiCall(() => createBatch(api, entry, context.dir, effects, true));
      await saveLedger(context.dir, ledger);
    }
    const info = await apiCall(() => api.retrieve(entry.id!));
    entry.status = info.status;
    entry.outputFileId = info.outputFileId;
    entry.errorFileId = info.errorFileId;
    infos.set(entry, info);
  }
  return infos;
}

const statusLine = (entry: BatchEntry, info?: BatchInfo): BatchStatusLine => ({
  id: entry.id,
  label: entry.label,
  state: entry.state,
  status: info?.status ?? entry.status,
  requests: entry.requests.length,
  counts: info?.counts,
  createdAt: entry.createdAt,
  errors: info?.errors ?? [],
});

/** `colloquy batch status`: every batch of the study, open ones refreshed from the provider. */
export async function batchStatus(context: StudyContext, cli: ModelCliOptions, effects: StageEffects): Promise<BatchStatusLine[]> {
  const ledger = await loadLedger(context.dir);
  const infos = await refresh(context, ledger, cli, effects);
  if (infos.size > 0) await saveLedger(context.dir, ledger);
  return ledger.batches.map((entry) => statusLine(entry, infos.get(entry)));
}

/** `colloquy batch cancel`: ask the provider to cancel every open batch; collect keeps what was answered before. */
export async function cancelBatches(context: StudyContext, cli: ModelCliOptions, effects: StageEffects): Promise<BatchStatusLine[]> {
  const ledger = await loadLedger(context.dir);
  const lines: BatchStatusLine[] = [];
  for (const entry of ledger.batches.filter(isOpen)) {
    const api = clientFor(context, entry, cli, effects).batchApi();
    if (!entry.id) {
      // A create whose reply was lost may have made the batch: that one is cancelled too.
      const made = await apiCall(() => api.find(entry.inputFileId, entry.requestHash, createdSince(entry)));
      if (!made) {
        entry.state = "cancelled";
        lines.push(statusLine(entry));
        continue;
      }
      entry.id = made.id;
      entry.state = "submitted";
    }
    const info = await apiCall(() => api.cancel(entry.id!));
    entry.status = info.status;
    lines.push(statusLine(entry, info));
  }
  await saveLedger(context.dir, ledger);
  return lines;
}

/** What reading one batch's files found. */
interface Downloaded {
  /** Requests the batch answered (successful replies). */
  replies: number;
  spent: Spent;
  problems: string[];
}

/** Why the batch did not answer a request it has no reply to. */
const unansweredWhy = (info: BatchInfo) =>
  info.status === "failed"
    ? `the batch failed validation${info.errors.length ? `: ${info.errors.slice(0, 3).join("; ")}` : ""}`
    : `the batch ended ${info.status} before answering it; \`colloquy code --via batch\` submits it again`;

/**
 * Replies read between two full garbage collections while downloading. Each pack chunk of replies
 * lives long enough to reach V8's old space, where it piled up as garbage to ~3x what was alive
 * (100,000 replies: 450 MB peak, issue 40); a collection costs tens of milliseconds.
 */
const REPLIES_PER_COLLECTION = 10_000;

/**
 * Download a finished batch's replies and errors into `collected`, line by line as they arrive:
 * each reply goes into the response cache (one pack per batch) before the next line is read, so
 * neither the file nor its replies are ever held whole.
 */
async function download(
  study: string,
  model: LlmClient,
  entry: BatchEntry,
  info: BatchInfo,
  collected: CollectedReplies,
  signal: AbortSignal | undefined,
): Promise<Downloaded> {
  const api = model.batchApi();
  // Ctrl-C: the download stops at once; the entry stays open and its files are downloaded again (free).
  const interrupted = () =>
    new CliError(`interrupted while downloading batch ${entry.id}; nothing is lost: run \`colloquy batch collect ${study}\` again`, { exitCode: 130 });
  const found: Downloaded = { replies: 0, spent: { requests: 0, promptTokens: 0, completionTokens: 0 }, problems: [] };
  const files = [
    [info.outputFileId, "output"],
    [info.errorFileId, "errors"],
  ] as const;
  async function* toKeep(): AsyncGenerator<[string, Omit<CachedReply, "receivedAt">]> {
    for (const [file, label] of files) {
      if (!file) continue;
      let body: AsyncIterable<string>;
      try {
        body = await apiCall(() => api.download(file, signal));
      } catch (error) {
        throw signal?.aborted ? interrupted() : error;
      }
      const lines = batchResults(body, `batch ${entry.id} ${label}`, found.problems);
      for (;;) {
        let next: IteratorResult<[string, BatchAnswer]>;
        try {
          next = await lines.next();
        } catch (error) {
          if (signal?.aborted) throw interrupted();
          // A connection lost mid-file: the pack being written is dropped, the file is downloaded again (free).
          throw new CliError(
            `downloading file ${file} of batch ${entry.id}: ${(error as Error).message}; nothing is lost: run \`colloquy batch collect ${study}\` again`,
          );
        }
        if (next.done) break;
        const [key, answer] = next.value;
        if (collected.add(key, answer) !== "new" || !answer.ok) continue;
        found.replies++;
        found.spent.promptTokens += answer.usage.promptTokens;
        found.spent.completionTokens += answer.usage.completionTokens;
        if (found.replies % REPLIES_PER_COLLECTION === 0) collectGarbage();
        // The ledger's string for the key: the cache's index then holds no second copy of it.
        if (keepsInCache(answer))
          yield [collected.own(key), { text: answer.text, model: answer.model, usage: answer.usage, finishReason: answer.finishReason }];
      }
    }
  }
  try {
    await model.rememberMany(toKeep());
  } catch (error) {
    if (error instanceof CliError) throw error;
    // Nothing is lost: the entry stays open and names the provider's files, downloaded again (free) by the next collect.
    throw new CliError(
      `could not keep the replies of batch ${entry.id} in the response cache (${(error as Error).message}); nothing was asked again and nothing is lost: ` +
        `the provider keeps them (file ${info.outputFileId ?? "none"}), and \`colloquy batch collect ${study}\` downloads them again once there is room`,
    );
  }
  found.spent.requests = found.replies;
  found.spent.cost = costs(model, found.spent).batchCost;
  return found;
}

/** The result of collecting one job's finished batches. */
export interface CollectedJob {
  label: string;
  batches: string[];
  /** Replies received and kept in the response cache. */
  replies: number;
  /** Requests the batches did not answer (each turn then in the failures file). */
  failedRequests: number;
  /** What the replies cost (their usage, at the batch price). */
  spent?: Spent;
  problems: string[];
  kind: BatchEntry["kind"];
  /** The recorded job: a CodingBatchJob for "code", the topics options for "topics". */
  job: Record<string, unknown>;
  /** The answers, looked up as the job is coded (replies in the response cache, the rest held). */
  answers: BatchReplies;
  model: LlmClient;
  entries: BatchEntry[];
}

/**
 * Download every finished open batch, keep each reply in the response cache (as the online call
 * would have), and return them per job, for the code stage to code (see runCode's `answers`).
 * Call `markCollected` once the job's codes are stored. Unfinished batches are left alone.
 */
export async function downloadFinished(
  context: StudyContext,
  cli: ModelCliOptions,
  effects: StageEffects,
  signal?: AbortSignal,
): Promise<{ jobs: CollectedJob[]; waiting: BatchStatusLine[]; ledger: BatchLedger }> {
  const ledger = await loadLedger(context.dir);
  const infos = await refresh(context, ledger, cli, effects);
  await saveLedger(context.dir, ledger);
  // Grouped by job first: the answers of a job's batches are one lookup (llm/batch/collected.ts).
  const groups = new Map<string, [BatchEntry, BatchInfo][]>();
  const waiting: BatchStatusLine[] = [];
  for (const [entry, info] of infos) {
    if (!FINAL_STATUSES.has(info.status)) {
      waiting.push(statusLine(entry, info));
      continue;
    }
    const groupKey = JSON.stringify([entry.kind, entry.model, entry.job]);
    const group = groups.get(groupKey) ?? [];
    group.push([entry, info]);
    groups.set(groupKey, group);
  }
  const jobs: CollectedJob[] = [];
  for (const batches of groups.values()) {
    const [first] = batches[0]!;
    const model = clientFor(context, first, cli, effects);
    const answers = new CollectedReplies(
      (key) => model.recall(key),
      batches.map(([entry, info]) => ({ requests: entry.requests, why: unansweredWhy(info) })),
    );
    const job: CollectedJob = {
      label: first.label,
      kind: first.kind,
      batches: [],
      replies: 0,
      failedRequests: 0,
      problems: [],
      job: first.job,
      answers,
      model,
      entries: [],
    };
    jobs.push(job);
    for (const [entry, info] of batches) {
      effects.log(`${entry.label}: downloading the replies of batch ${entry.id} (${info.status})…`);
      const found = await download(context.dir, clientFor(context, entry, cli, effects), entry, info, answers, signal);
      job.problems.push(...found.problems);
      job.batches.push(entry.id!);
      job.entries.push(entry);
      job.replies += found.replies;
      job.failedRequests += entry.requests.filter((key) => !answers.answered(key)).length;
      entry.spent = found.spent;
      job.spent = addSpent(job.spent, entry.spent);
    }
  }
  return { jobs, waiting, ledger };
}

type Spent = NonNullable<BatchEntry["spent"]>;

const addSpent = (a: Spent | undefined, b: Spent): Spent =>
  a
    ? {
        requests: a.requests + b.requests,
        promptTokens: a.promptTokens + b.promptTokens,
        completionTokens: a.completionTokens + b.completionTokens,
        cost: a.cost === undefined || b.cost === undefined ? undefined : a.cost + b.cost,
      }
    : b;

/** Record that a job's batches are collected (their codes and failures are stored). */
export async function markCollected(study: string, ledger: BatchLedger, job: CollectedJob): Promise<void> {
  const now = new Date().toISOString();
  for (const entry of job.entries) {
    entry.state = "collected";
    entry.collectedAt = now;
  }
  await saveLedger(study, ledger);
}
