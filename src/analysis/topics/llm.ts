import { z } from "zod";
import type { ChatMessage, ChatModel, ChatRequest } from "../../llm/types.js";
import { sha256 } from "../../util/hash.js";
import { numberTree, type TopicTree } from "./tree.js";
import type { TopicUnit } from "./units.js";

/**
 * The LLM topic coder: the model reads the conversation and returns a topic tree as JSON
 * (response_format json_schema), validated with zod and against the turns it may cite.
 * A malformed reply is re-asked once with the error; a second malformed reply is reported as a
 * failure with the raw text, never repaired or invented.
 */

export const TOPIC_SYSTEM_PROMPT = `You analyse conversations from ideation studies. Segment the marked turns into a topic tree:
- main topics: the distinct subjects or ideas the speakers explore;
- sub-topics: more specific ideas, variations or elaborations developed under a main topic.
Give every topic a short label (a few words) and the ids of the marked turns it draws on (at least one).
Use only turn ids marked with "*"; unmarked turns are context only. Do not invent topics or ids.
Reply with one JSON object only: {"mainTopics":[{"label":"…","turns":["t0001"],"subtopics":[{"label":"…","turns":["t0002"]}]}]}`;

/** JSON schema sent as response_format (structured output). */
export const TOPIC_TREE_JSON_SCHEMA: Record<string, unknown> = {
  type: "object",
  additionalProperties: false,
  required: ["mainTopics"],
  properties: {
    mainTopics: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["label", "turns", "subtopics"],
        properties: {
          label: { type: "string" },
          turns: { type: "array", items: { type: "string" } },
          subtopics: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["label", "turns"],
              properties: { label: { type: "string" }, turns: { type: "array", items: { type: "string" } } },
            },
          },
        },
      },
    },
  },
};

/** Hash of everything that shapes the model's task (provenance: a changed prompt shows). */
// Bump USER_TEMPLATE_VERSION whenever topicPrompt's layout changes.
const USER_TEMPLATE_VERSION = "2: marked turns, context window";
export const TOPIC_PROMPT_HASH = sha256([TOPIC_SYSTEM_PROMPT, JSON.stringify(TOPIC_TREE_JSON_SCHEMA), USER_TEMPLATE_VERSION].join("\n")).slice(0, 16);

const replySchema = z.object({
  mainTopics: z.array(
    z.object({
      label: z.string().trim().min(1),
      turns: z.array(z.string()).default([]),
      subtopics: z.array(z.object({ label: z.string().trim().min(1), turns: z.array(z.string()).min(1) })).default([]),
    }),
  ),
});

/**
 * Context for participant scope: the whole conversation when it has at most this many spoken
 * turns; beyond that, each of the participant's turns with the {@link CONTEXT_BEFORE} turns
 * before it (what they were answering), gaps shown as "…", so long sessions fit the model.
 */
export const FULL_CONTEXT_TURNS = 120;
export const CONTEXT_BEFORE = 2;

/** The user message: the conversation with the unit's eligible turns marked. */
export function topicPrompt(unit: TopicUnit): ChatMessage[] {
  const names = new Map(unit.session.participants.map((p) => [p.id, p.name]));
  const eligible = new Set(unit.turns.map((t) => t.id));
  const who = unit.participant ? `${unit.participant.name}'s contributions` : "the selected speakers' turns";
  const spoken = unit.session.turns.filter((t) => t.type === "message" || t.type === "backchannel" || t.type === "interruption");
  let shown = spoken.map(() => true);
  if (unit.participant && spoken.length > FULL_CONTEXT_TURNS) {
    shown = spoken.map((_, i) => spoken.slice(i, i + CONTEXT_BEFORE + 1).some((t) => eligible.has(t.id)));
  }
  const lines: string[] = [];
  spoken.forEach((t, i) => {
    if (!shown[i]) {
      if (lines[lines.length - 1] !== "  …") lines.push("  …");
      return;
    }
    lines.push(`${eligible.has(t.id) ? "*" : " "} [${t.id}] ${names.get(t.speaker) ?? t.speaker}: ${t.text}`);
  });
  return [
    { role: "system", content: TOPIC_SYSTEM_PROMPT },
    { role: "user", content: `Session ${unit.session.id}. Build the topic tree of ${who} (marked *).\n\n${lines.join("\n")}` },
  ];
}

/** Parse and check a reply; an error message says what is wrong so the model can fix it. */
export function parseTopicReply(text: string, unit: TopicUnit): { ok: true; tree: TopicTree } | { ok: false; error: string } {
  // Text-mode fallbacks sometimes wrap JSON in a code fence.
  const body = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, "$1");
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { ok: false, error: `not valid JSON (${(error as Error).message})` };
  }
  const parsed = replySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: `${issue.path.join(".") || "(root)"}: ${issue.message}` };
  }
  const eligible = new Set(unit.turns.map((t) => t.id));
  const bad: string[] = [];
  const check = (ids: string[], where: string) => {
    for (const id of ids) if (!eligible.has(id)) bad.push(`${where} cites "${id}"`);
  };
  const mainTopics = parsed.data.mainTopics.map((m, i) => {
    check(m.turns, `mainTopics.${i}`);
    m.subtopics.forEach((s, j) => check(s.turns, `mainTopics.${i}.subtopics.${j}`));
    // A main topic that cites no turns of its own draws on its sub-topics' turns.
    const turns = m.turns.length > 0 ? m.turns : [...new Set(m.subtopics.flatMap((s) => s.turns))];
    return { id: "", label: m.label, turns, subtopics: m.subtopics.map((s) => ({ id: "", label: s.label, turns: s.turns })) };
  });
  const empty = mainTopics.findIndex((m) => m.turns.length === 0);
  if (empty >= 0) return { ok: false, error: `mainTopics.${empty} cites no turns` };
  if (bad.length > 0) {
    const allowed = unit.turns.map((t) => t.id);
    return {
      ok: false,
      error: `${bad.slice(0, 5).join("; ")}${bad.length > 5 ? ` (and ${bad.length - 5} more)` : ""}: only the marked turns may be cited (${allowed.slice(0, 30).join(", ")}${allowed.length > 30 ? ", …" : ""})`,
    };
  }
  return {
    ok: true,
    tree: numberTree({ scope: unit.scope, session: unit.session.id, participant: unit.participant?.id, mainTopics }),
  };
}

/** One run's outcome. */
export interface LlmTopicRun {
  run: number;
  seed: number;
  tree: TopicTree | null;
  /** Set when the run failed: the LLM error, or the validation error after one re-ask. */
  failure?: string;
  /** The last raw reply of a failed run (kept for inspection, never used as a tree). */
  raw?: string;
  reasked: boolean;
  requestHashes: string[];
  cached: boolean;
}

export interface LlmTopicOptions {
  /** Seed of run 0; run r sends seed + r so cached replies of different runs stay distinct. */
  seed?: number;
  temperature?: number;
  noCache?: boolean;
  signal?: AbortSignal;
}

/** Drop an unusable reply from the cache when the model supports it, so the next run asks again. */
async function forget(model: ChatModel, hash: string): Promise<void> {
  const client = model as ChatModel & { forget?: (hash: string) => Promise<void> };
  if (typeof client.forget === "function") await client.forget(hash);
}

/** Run the topic coder once for a unit. */
export async function llmTopicRun(model: ChatModel, unit: TopicUnit, run: number, options: LlmTopicOptions = {}): Promise<LlmTopicRun> {
  const seed = (options.seed ?? 0) + run;
  const messages = topicPrompt(unit);
  const request = (msgs: ChatMessage[]): ChatRequest => ({
    messages: msgs,
    seed,
    temperature: options.temperature,
    responseFormat: { type: "json_schema", name: "topic_tree", schema: TOPIC_TREE_JSON_SCHEMA },
    noCache: options.noCache,
    // "topics-reask": a batch collection sends follow-ups online (llm/batch/answered.ts).
    purpose: msgs === messages ? "topics" : "topics-reask",
    signal: options.signal,
  });
  const hashes: string[] = [];
  const first = await model.complete(request(messages));
  if (!first.ok) return { run, seed, tree: null, failure: first.error.message, reasked: false, requestHashes: hashes, cached: false };
  hashes.push(first.response.requestHash);
  const parsed = parseTopicReply(first.response.text, unit);
  if (parsed.ok) return { run, seed, tree: parsed.tree, reasked: false, requestHashes: hashes, cached: first.response.cached };
  await forget(model, first.response.requestHash);

  const retryMessages: ChatMessage[] = [
    ...messages,
    { role: "assistant", content: first.response.text },
    { role: "user", content: `That reply is not valid: ${parsed.error}. Reply again with only the corrected JSON object.` },
  ];
  const second = await model.complete(request(retryMessages));
  if (!second.ok)
    return {
      run,
      seed,
      tree: null,
      failure: `re-ask after "${parsed.error}" failed: ${second.error.message}`,
      raw: first.response.text,
      reasked: true,
      requestHashes: hashes,
      cached: false,
    };
  hashes.push(second.response.requestHash);
  const again = parseTopicReply(second.response.text, unit);
  if (again.ok) return { run, seed, tree: again.tree, reasked: true, requestHashes: hashes, cached: second.response.cached };
  await forget(model, second.response.requestHash);
  return {
    run,
    seed,
    tree: null,
    failure: `invalid reply after one re-ask: ${again.error}`,
    raw: second.response.text,
    reasked: true,
    requestHashes: hashes,
    cached: false,
  };
}
