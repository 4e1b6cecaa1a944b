import { provenance } from "../../util/provenance.js";
import type { Session } from "../../transcript/schema.js";
import type { ChatModel, ChatRequest, ChatResult, LlmErrorKind } from "../../llm/types.js";
import type { Codebook } from "../codebook/schema.js";
import { aggregateSamples } from "./aggregate.js";
import type { ExamplePicker, ShownExample } from "./examples.js";
import { parseBatchReply, parseReply, type CodeValue, type ParseOutcome } from "./parse.js";
import {
  EXAMPLES_TEMPLATE_HASH,
  PROMPT_TEMPLATE_HASH,
  PROMPT_TEMPLATE_VERSION,
  buildMessages,
  buildSystemPrompt,
  reaskMessages,
  type ContextWindow,
} from "./prompt.js";
import { codingResponseFormat } from "./schema.js";

/**
 * The LLM coder: codes target turns of one session through a ChatModel. One request per
 * target turn by default; with `batch` > 1 several targets share one request and one context
 * window. A reply that fails strict parsing or validation is re-asked once, quoting the
 * error; if the second reply fails too, the turn is a failure carrying the raw replies, never
 * a code. Network errors are failures too; aborts are reported as such so a resumed run
 * codes those turns later.
 */
export interface LlmCoderOptions {
  /** `formatSupport` and `forget` are used when present (LlmClient has both). */
  model: ChatModel & { formatSupport?: () => string; forget?: (requestHash: string) => Promise<void>; requestHash?: (request: ChatRequest) => string };
  codebook: Codebook;
  /** Turns shown before/after the target(s), same session only. Default 2:2. */
  context?: ContextWindow;
  /** Requests per target (seed varied per sample); majority / mean is stored. Default 1. */
  samples?: number;
  /** Targets per request; 1 (default) sends the single-turn format. */
  batch?: number;
  /** Default: the model's configured temperature (0 unless set). */
  temperature?: number;
  /** Base seed; sample i uses seed + i. Without samples it is sent only when set. */
  seed?: number;
  /** Reply budget per request; default 400 for one target, 120 per target + 200 in a batch. */
  maxTokens?: number;
  noCache?: boolean;
  /** Worked examples from the researchers' codes, picked per request (see examples.ts). */
  examples?: ExamplePicker;
}

interface TurnRef {
  session: string;
  turn: string;
  index: number;
}

export type TurnOutcome =
  | (TurnRef & {
      status: "coded";
      value: CodeValue;
      samples?: { n: number; agreement: number };
      provenance: Record<string, unknown>;
      cached: boolean;
    })
  | (TurnRef & {
      status: "failed";
      reason: string;
      raw?: string;
      cached: boolean;
      /** Set when the endpoint refused the request (not when the reply was unusable). */
      errorKind?: LlmErrorKind;
    })
  | (TurnRef & { status: "aborted" });

export interface LlmCoderStats {
  /** HTTP requests sent to the endpoint: every attempt, re-asks, retries and failed attempts included. */
  requests: number;
  /** Of `requests`, attempts that brought no usable reply (error status, timeout, lost connection, abort). */
  failedRequests: number;
  /** Of `requests`, attempts that repeated an earlier one (retries and structured-output fallbacks). */
  retriedRequests: number;
  /** Requests answered from the cache or an identical in-flight request. */
  cachedRequests: number;
  /** Prompt/completion tokens of every reply used, cached ones included (what the prompts cost). */
  promptTokens: number;
  completionTokens: number;
  /** Tokens of requests that went to the endpoint only (what the run paid for). */
  paidPromptTokens: number;
  paidCompletionTokens: number;
  reasks: number;
}

export interface LlmCoder {
  /** Code `targets` (indexes into session.turns, ascending). One outcome per target, in order. */
  code(session: Session, targets: readonly number[], signals?: RequestSignals): Promise<TurnOutcome[]>;
  /**
   * Code `targets` from a reply already in hand for their request (a collected batch), with no
   * call to the model: the outcomes `code` would return when that reply is valid for every
   * target (one sample). Undefined when it is not (no reply, cut off, a target fails
   * validation, several samples): `code` then runs as usual and re-asks.
   */
  codeFromReply(
    session: Session,
    targets: readonly number[],
    replyFor: (requestHash: string) => Promise<AnsweredReply | undefined>,
  ): Promise<TurnOutcome[] | undefined>;
  /** The exact request for one sample (for --dry-run and cache checks). */
  request(session: Session, targets: readonly number[], sample?: number): ChatRequest;
  stats(): LlmCoderStats;
  /** Settings shared by every record's provenance. */
  readonly settings: Record<string, unknown>;
}

/**
 * Ctrl-C (`signal`: cut everything off) and a halt (`stopStarting`: send nothing more, let what was
 * sent finish; `onResult` sees each result before the next request may start, to halt on it).
 */
export type RequestSignals = Pick<ChatRequest, "signal" | "stopStarting" | "onResult">;

/** A reply obtained without asking (a batch output line). */
export interface AnsweredReply {
  text: string;
  usage: { promptTokens: number; completionTokens: number };
  finishReason?: string;
}

type SampleOutcome = { ok: true; value: CodeValue } | { ok: false; reason: string; raw?: string; errorKind?: LlmErrorKind };
/** What this run paid the endpoint for one request's replies (a cached reply costs nothing). */
interface Paid {
  requests: number;
  promptTokens: number;
  completionTokens: number;
}
type SampleResult =
  { aborted: true } | { aborted: false; outcomes: Map<string, SampleOutcome>; hashes: string[]; cached: boolean; reasked: boolean; paid: Paid };

/**
 * One turn's share of what its requests cost, kept in its provenance (`spent`), so a codes file
 * says what it cost: a request that coded n turns (`--batch n`) is split evenly among them (the
 * share of a turn whose code failed is not in the codes file: failures are not codes). `batch`:
 * the replies came from the Batch API (billed at its price).
 */
function spentShare(paid: readonly Paid[], turns: number, batch: boolean): Record<string, unknown> | undefined {
  const total: Paid = { requests: 0, promptTokens: 0, completionTokens: 0 };
  for (const p of paid) {
    total.requests += p.requests;
    total.promptTokens += p.promptTokens;
    total.completionTokens += p.completionTokens;
  }
  if (total.requests === 0) return undefined;
  const share = (x: number) => Math.round((x / turns) * 1000) / 1000;
  const spent = { requests: share(total.requests), promptTokens: share(total.promptTokens), completionTokens: share(total.completionTokens) };
  return { spent: batch ? { ...spent, batch: true } : spent };
}

export function createLlmCoder(options: LlmCoderOptions): LlmCoder {
  const { model, codebook } = options;
  const context = options.context ?? { before: 2, after: 2 };
  const samples = options.samples ?? 1;
  const batchMode = (options.batch ?? 1) > 1;
  const temperature = options.temperature ?? model.info.temperature;
  const systemPrompt = buildSystemPrompt(codebook, batchMode);
  const singleFormat = codingResponseFormat(codebook);
  const stats: LlmCoderStats = {
    requests: 0,
    failedRequests: 0,
    retriedRequests: 0,
    cachedRequests: 0,
    promptTokens: 0,
    completionTokens: 0,
    paidPromptTokens: 0,
    paidCompletionTokens: 0,
    reasks: 0,
  };
  const settings = {
    coder: "llm",
    model: model.info.model,
    endpointHost: model.info.endpointHost,
    temperature,
    samples,
    context: `${context.before}:${context.after}`,
    batch: options.batch ?? 1,
    promptTemplate: options.examples ? EXAMPLES_TEMPLATE_HASH : PROMPT_TEMPLATE_HASH,
    promptTemplateVersion: PROMPT_TEMPLATE_VERSION,
    codebook: codebook.id,
    codebookVersion: codebook.version,
    ...(options.examples ? options.examples.settings : {}),
  };
  // One provenance stamp (its createdAt: when the run began) shared by the run's records, each adding its own details.
  const run = provenance(settings);
  const pickExamples = (session: Session, targets: readonly number[]) => options.examples?.pick(session, targets);

  const seedFor = (sample: number) => (samples > 1 ? (options.seed ?? 1) + sample : options.seed);

  function request(session: Session, targets: readonly number[], sample = 0): ChatRequest {
    return requestWith(session, targets, sample, pickExamples(session, targets));
  }

  function requestWith(session: Session, targets: readonly number[], sample: number, examples: readonly ShownExample[] | undefined): ChatRequest {
    const ids = targets.map((i) => session.turns[i].id);
    return {
      messages: buildMessages(systemPrompt, session, targets, context, examples),
      temperature,
      seed: seedFor(sample),
      maxTokens: options.maxTokens ?? (batchMode ? 120 * targets.length + 200 : 400),
      responseFormat: batchMode ? codingResponseFormat(codebook, ids) : singleFormat,
      noCache: options.noCache,
      purpose: "code",
    };
  }

  const parse = (text: string, ids: string[]): Map<string, ParseOutcome> | string => {
    if (!batchMode) return new Map([[ids[0], parseReply(codebook, text)]]);
    const batch = parseBatchReply(codebook, text, ids);
    return batch.ok ? batch.items : batch.error;
  };

  /** Count the HTTP requests one call took, whatever its outcome. */
  const countSent = (result: ChatResult) => {
    const sent = (result.ok ? result.response.httpRequests : result.error.httpRequests) ?? (result.ok && !result.response.cached ? 1 : 0);
    stats.requests += sent;
    stats.retriedRequests += Math.max(0, sent - 1);
    stats.failedRequests += result.ok ? Math.max(0, sent - 1) : sent;
  };

  /** Tokens of one reply (online, cached or collected from a batch) in the run's counts. */
  const account = (r: { cached: boolean; usage: { promptTokens: number; completionTokens: number } }) => {
    if (r.cached) stats.cachedRequests++;
    else {
      stats.paidPromptTokens += r.usage.promptTokens;
      stats.paidCompletionTokens += r.usage.completionTokens;
    }
    stats.promptTokens += r.usage.promptTokens;
    stats.completionTokens += r.usage.completionTokens;
  };

  /** What a coded turn's provenance adds to the run's stamp: the requests behind it and the examples shown. */
  const turnDetails = (requestHashes: string[], cached: boolean, examples: readonly ShownExample[] | undefined, reasked: boolean): Record<string, unknown> => ({
    requestHashes,
    cached,
    structuredOutput: model.formatSupport?.(),
    ...(reasked ? { reasked: true } : {}),
    // Which researchers' codes the model saw for this turn (session/turn ids, coder, similarity).
    ...(examples ? { examples: examples.map((e) => ({ session: e.session, turn: e.turn, coder: e.coder, similarity: e.similarity })) } : {}),
  });

  async function runSample(
    session: Session,
    targets: readonly number[],
    sample: number,
    examples: readonly ShownExample[] | undefined,
    signals: RequestSignals = {},
  ): Promise<SampleResult> {
    const ids = targets.map((i) => session.turns[i].id);
    const base = requestWith(session, targets, sample, examples);
    const outcomes = new Map<string, SampleOutcome>();
    const failAll = (reason: string, raw?: string, errorKind?: LlmErrorKind) => ids.forEach((id) => outcomes.set(id, { ok: false, reason, raw, errorKind }));
    const first = await model.complete({ ...base, ...signals });
    countSent(first);
    if (!first.ok) {
      if (first.error.kind === "aborted") return { aborted: true };
      failAll(`${first.error.kind}: ${first.error.message} (after ${first.error.attempts} attempt(s))`, undefined, first.error.kind);
      return { aborted: false, outcomes, hashes: [], cached: false, reasked: false, paid: { requests: 0, promptTokens: 0, completionTokens: 0 } };
    }
    const hashes = [first.response.requestHash];
    let cached = first.response.cached;
    const paid: Paid = { requests: 0, promptTokens: 0, completionTokens: 0 };
    const pay = (r: { cached: boolean; usage: { promptTokens: number; completionTokens: number } }) => {
      if (r.cached) return;
      paid.requests++;
      paid.promptTokens += r.usage.promptTokens;
      paid.completionTokens += r.usage.completionTokens;
    };
    account(first.response);
    pay(first.response);
    const truncated = (finish?: string) => finish === "length";
    if (truncated(first.response.finishReason)) {
      // Re-asking with the same budget would be cut off again: report it with the fix.
      failAll("the reply was cut off at the token limit (finish_reason=length); raise maxTokens or use a smaller --batch", first.response.text);
      return { aborted: false, outcomes, hashes, cached, reasked: false, paid };
    }
    const parsed = parse(first.response.text, ids);
    const errors =
      typeof parsed === "string"
        ? new Map(ids.map((id) => [id, parsed]))
        : new Map([...parsed].filter(([, o]) => !o.ok).map(([id, o]) => [id, (o as { error: string }).error]));
    if (typeof parsed !== "string") for (const [id, o] of parsed) if (o.ok) outcomes.set(id, o);
    if (errors.size === 0) return { aborted: false, outcomes, hashes, cached, reasked: false, paid };

    stats.reasks++;
    const errorText = typeof parsed === "string" ? parsed : [...errors].map(([id, e]) => (batchMode ? `${id}: ${e}` : e)).join("; ");
    // purpose "code-reask": a batch collection sends follow-ups online (llm/batch/answered.ts).
    const second = await model.complete({ ...base, messages: reaskMessages(base.messages, first.response.text, errorText), purpose: "code-reask", ...signals });
    countSent(second);
    if (!second.ok) {
      if (second.error.kind === "aborted") return { aborted: true };
      for (const [id, e] of errors) outcomes.set(id, { ok: false, reason: `${e}; the re-ask failed: ${second.error.message}`, raw: first.response.text });
      return { aborted: false, outcomes, hashes, cached: false, reasked: true, paid };
    }
    account(second.response);
    pay(second.response);
    hashes.push(second.response.requestHash);
    cached &&= second.response.cached;
    const raw = `${first.response.text}\n--- reply to the re-ask ---\n${second.response.text}`;
    if (truncated(second.response.finishReason)) {
      for (const [id, e] of errors) outcomes.set(id, { ok: false, reason: `${e}; the re-ask reply was cut off at the token limit`, raw });
      return { aborted: false, outcomes, hashes, cached, reasked: true, paid };
    }
    const again = parse(second.response.text, ids);
    for (const [id, e] of errors) {
      const o = typeof again === "string" ? { ok: false as const, error: again } : again.get(id)!;
      outcomes.set(id, o.ok ? o : { ok: false, reason: `${e}; after one re-ask: ${o.error}`, raw });
    }
    return { aborted: false, outcomes, hashes, cached, reasked: true, paid };
  }

  async function code(session: Session, targets: readonly number[], signals?: RequestSignals): Promise<TurnOutcome[]> {
    // Picked once per request: every sample (and the re-ask) shows the same examples.
    const examples = pickExamples(session, targets);
    const runs = await Promise.all(Array.from({ length: samples }, (_, s) => runSample(session, targets, s, examples, signals)));
    // "Failures are not cached": a reply that yielded no valid code for some turn is dropped
    // from the cache, so the next run asks again rather than replaying the failure.
    for (const run of runs) {
      if (!run.aborted && [...run.outcomes.values()].some((o) => !o.ok)) await Promise.all(run.hashes.map((h) => model.forget?.(h)));
    }
    return targets.map((index) => {
      const ref = { session: session.id, turn: session.turns[index].id, index };
      if (runs.some((r) => r.aborted)) return { ...ref, status: "aborted" as const };
      const done = runs as Array<Extract<SampleResult, { aborted: false }>>;
      const results = done.map((r) => r.outcomes.get(ref.turn)!);
      const cached = done.every((r) => r.cached);
      const good = results.filter((r): r is { ok: true; value: CodeValue } => r.ok);
      if (good.length === 0) {
        const firstFailure = results.find((r) => !r.ok) as Extract<SampleOutcome, { ok: false }>;
        return { ...ref, status: "failed" as const, reason: firstFailure.reason, raw: firstFailure.raw, cached, errorKind: firstFailure.errorKind };
      }
      const details = {
        ...turnDetails(
          done.flatMap((r) => r.hashes),
          cached,
          examples,
          done.some((r) => r.reasked),
        ),
        ...spentShare(
          done.map((r) => r.paid),
          targets.length,
          false,
        ),
      };
      if (samples === 1) {
        return { ...ref, status: "coded" as const, value: good[0].value, provenance: { ...run, seed: seedFor(0), ...details }, cached };
      }
      const aggregate = aggregateSamples(
        codebook,
        good.map((g) => g.value),
      );
      if (good.length < samples) details.failedSamples = samples - good.length;
      return {
        ...ref,
        status: "coded" as const,
        value: aggregate.value,
        samples: { n: good.length, agreement: aggregate.agreement },
        provenance: { ...run, seeds: Array.from({ length: samples }, (_, s) => seedFor(s)), ...details, ...aggregate.details },
        cached,
      };
    });
  }

  async function codeFromReply(
    session: Session,
    targets: readonly number[],
    replyFor: (requestHash: string) => Promise<AnsweredReply | undefined>,
  ): Promise<TurnOutcome[] | undefined> {
    if (samples !== 1 || !model.requestHash) return undefined;
    const examples = pickExamples(session, targets);
    const request = requestWith(session, targets, 0, examples);
    const hash = model.requestHash(request);
    const reply = await replyFor(hash);
    if (!reply || reply.finishReason === "length") return undefined;
    const ids = targets.map((i) => session.turns[i].id);
    const parsed = parse(reply.text, ids);
    if (typeof parsed === "string" || [...parsed.values()].some((o) => !o.ok)) return undefined;
    // Accounted as `code` accounts a reply that was not in the cache.
    account({ cached: false, usage: reply.usage });
    const details = {
      ...turnDetails([hash], false, examples, false),
      ...spentShare([{ requests: 1, promptTokens: reply.usage.promptTokens, completionTokens: reply.usage.completionTokens }], targets.length, true),
    };
    return targets.map((index, i) => {
      const outcome = parsed.get(ids[i]) as { ok: true; value: CodeValue };
      return {
        session: session.id,
        turn: ids[i],
        index,
        status: "coded" as const,
        value: outcome.value,
        provenance: { ...run, seed: seedFor(0), ...details },
        cached: false,
      };
    });
  }

  return { code, codeFromReply, request, stats: () => ({ ...stats }), settings };
}
