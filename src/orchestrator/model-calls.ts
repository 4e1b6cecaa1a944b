import type { z } from "zod";
import type { ChatMessage, ChatModel, TokenUsage } from "../llm/types.js";
import type { Turn } from "../transcript/schema.js";
import { stripOwnName, systemPrompt, type Agent } from "./agent.js";
import type { Conversation } from "./conversation.js";
import type { InputKind } from "./journal.js";
import { parseJsonReply } from "./json-reply.js";
import { OrchestratorError } from "./orchestrator-error.js";

export interface CompleteOptions {
  /** What to do now, appended after the transcript ("It is your turn..."). */
  instruction: string;
  /** Turns this agent sees; default: the whole visible conversation. */
  history?: readonly Turn[];
  /** Pre-rendered history text (e.g. compressed); overrides `history`. */
  historyText?: string;
  maxTokens?: number;
  temperature?: number;
  /** What the call is for, kept with the usage ("reply", "confidence", "rank", ...). */
  purpose: string;
}

/** A JSON decision: what to ask, the JSON schema the model is given, and the zod schema its answer must pass. */
export type DecideOptions<T> = CompleteOptions & { name: string; jsonSchema: Record<string, unknown>; schema: z.ZodType<T>; systemText?: string };

/** What the model calls need of their session beyond its public state: the model, and the journaled look. */
interface ModelCallHost {
  model: ChatModel;
  look<T>(what: InputKind, live: () => Promise<T>): Promise<T>;
  replaying(): boolean;
}

/**
 * A session's model calls: the prompts (system prompt and transcript), each request through the
 * session's journal (a resumed session gets the first run's replies back), usage counted, JSON
 * decisions validated and re-asked once.
 */
export class ModelCalls {
  constructor(
    private readonly c: Conversation,
    private readonly host: ModelCallHost,
  ) {}

  private messages(agent: Agent, options: CompleteOptions): ChatMessage[] {
    const history = options.historyText ?? this.c.transcript(options.history ?? this.c.visible());
    return [
      { role: "system", content: systemPrompt(this.c.scenario, this.c.condition, agent, this.c.participants) },
      { role: "user", content: `Conversation so far:\n${history}\n\n${options.instruction}` },
    ];
  }

  private async call(
    agent: Agent | undefined,
    messages: ChatMessage[],
    options: { purpose: string; maxTokens?: number; temperature?: number; json?: { name: string; schema: Record<string, unknown> } },
  ): Promise<{ text: string; usage: TokenUsage; cached: boolean; requestHash: string }> {
    if (!this.host.replaying()) await this.c.live.observer?.gate?.();
    // A resumed session takes the replies its first run got from the journal (the same words, cache or not).
    const response = await this.host.look("llm", async () => {
      // A slow model (or the LLM layer's retries after errors) holds the session up: the operator's page says so until it answers.
      const observer = this.c.live.observer;
      // When it went out: an operator page opened (or reloaded) mid-call says since when, not since it opened.
      observer?.event({ type: "model", ...(agent ? { participant: agent.id } : {}), waiting: true, at: Date.now() });
      const result = await this.host.model
        .complete({
          messages,
          model: agent?.model ?? this.c.scenario.model.model,
          temperature: options.temperature ?? this.c.temperature,
          // The run's seed makes runs differ (and their cache entries distinct) while keeping replays exact.
          seed: this.c.seed,
          maxTokens: options.maxTokens ?? this.c.scenario.model.maxTokens,
          responseFormat: options.json ? { type: "json_schema", name: options.json.name, schema: options.json.schema } : undefined,
          purpose: `orchestrator:${options.purpose}`,
        })
        .finally(() => observer?.event({ type: "model", ...(agent ? { participant: agent.id } : {}), waiting: false }));
      if (!result.ok) throw new OrchestratorError(`${agent ? agent.name : "orchestrator"} (${options.purpose}): ${result.error.message}`);
      const { text, usage, cached, requestHash } = result.response;
      return { text, usage, cached, requestHash };
    });
    this.c.usage.requests += 1;
    this.c.usage.promptTokens += response.usage.promptTokens;
    this.c.usage.completionTokens += response.usage.completionTokens;
    return { text: response.text, usage: response.usage, cached: response.cached, requestHash: response.requestHash };
  }

  /**
   * Ask an agent for its next message. Returns the text (own-name prefix removed) and the
   * metadata to store with the turn (usage, and the raw reply when anything was removed).
   */
  async reply(agent: Agent, options: CompleteOptions): Promise<{ text: string; metadata: Record<string, unknown> }> {
    if (!this.host.replaying()) this.c.live.observer?.event({ type: "typing", participant: agent.id });
    const { text: raw, usage } = await this.call(agent, this.messages(agent, options), options);
    const text = stripOwnName(raw, agent);
    const metadata: Record<string, unknown> = { usage, purpose: options.purpose };
    if (text !== raw) metadata.rawReply = raw;
    if (agent.kind === "simulated-human") metadata.simulated = true;
    return { text, metadata };
  }

  /**
   * Ask a model for a JSON decision (confidence, ranking, choice). Structured output is
   * requested; the reply is validated with `schema` and re-asked once with the error.
   */
  async decide<T>(agent: Agent | undefined, options: DecideOptions<T>): Promise<{ value: T; usage: TokenUsage }> {
    const base: ChatMessage[] = agent
      ? this.messages(agent, options)
      : [
          { role: "system", content: options.systemText ?? "You observe a group conversation and answer questions about it in JSON." },
          {
            role: "user",
            content: `Conversation so far:\n${options.historyText ?? this.c.transcript(options.history ?? this.c.visible())}\n\n${options.instruction}`,
          },
        ];
    // A reply in JSON (with a nomination) is still someone writing a message: pages show them typing.
    if (agent && options.name === "reply" && !this.host.replaying()) this.c.live.observer?.event({ type: "typing", participant: agent.id });
    let messages = base;
    let lastProblem = "";
    const invalid: string[] = [];
    const total: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    for (let attempt = 0; attempt < 2; attempt++) {
      const { text, usage, requestHash } = await this.call(agent, messages, { ...options, json: { name: options.name, schema: options.jsonSchema } });
      total.promptTokens += usage.promptTokens;
      total.completionTokens += usage.completionTokens;
      const parsed = parseJsonReply(text, options.schema);
      if (parsed.ok) return { value: parsed.value, usage: total };
      invalid.push(requestHash);
      lastProblem = parsed.problem;
      messages = [
        ...base,
        { role: "assistant", content: text },
        { role: "user", content: `That reply was not valid: ${parsed.problem}. Answer again with only the JSON object.` },
      ];
    }
    // Giving up: drop the invalid replies from the cache so a resumed run asks the model again
    // (a reply that was fixed by the re-ask stays cached, so such sessions still replay exactly).
    for (const hash of invalid) await this.host.model.forget?.(hash);
    throw new OrchestratorError(`${agent ? agent.name : "orchestrator"} (${options.purpose}): invalid JSON decision twice: ${lastProblem}`);
  }
}
