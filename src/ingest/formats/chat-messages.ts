import type { ParticipantKind, SessionInput, TurnType } from "../../transcript/schema.js";
import { readContent } from "./content-parts.js";
import { SessionBuilder } from "./json-session.js";
import { epochToIso, expectArray, expectObject, expectString, isObject, optionalString, rest, shapeError, type JsonObject } from "./json-shape.js";

/** Keys of a message that become turn fields; every other key is kept in turn metadata. */
const MESSAGE_KEYS = new Set([
  "role",
  "name",
  "content",
  "tool_calls",
  "function_call",
  "tool_call_id",
  "reasoning_content",
  "reasoning",
  "timestamp",
  "created_at",
  "create_time",
  // Multi-agent logs: CAMEL's role_name/role_type, AutoGen-like `sender`/`speaker`.
  "role_name",
  "role_type",
  "sender",
  "speaker",
  "sender_id",
]);
const TIME_KEYS = ["timestamp", "created_at", "create_time"] as const;
const TOOL_ROLES = new Set(["tool", "function", "ipython"]);
/** Where a speaker's display name can be, in order of preference. */
const NAME_KEYS = ["name", "role_name", "sender", "speaker", "sender_id"] as const;

/**
 * OpenAI roles -> participant kind. Unknown roles are humans unless listed in --agents. A Map, so
 * that a role named "valueOf" or "constructor" is no key of it.
 */
const ROLE_KINDS = new Map<string, ParticipantKind>([
  ["user", "human"],
  ["human", "human"],
  ["assistant", "ai"],
  ["model", "ai"],
  ["ai", "ai"],
  ["system", "system"],
  ["developer", "system"],
  ["tool", "system"],
  ["function", "system"],
  ["ipython", "system"],
]);

/** One conversation to turn into a session. */
export interface ChatConversation {
  messages: unknown[];
  /** JSON path of the message list, for error messages (`$.messages`, `$[2].messages`). */
  listPath: string;
  /** Each message's own JSON path, when they are not `listPath[i]` (CAMEL's message_1, message_2…). */
  paths?: string[];
  id: string;
  title?: string;
  metadata: Record<string, unknown>;
  /** Speaker names the log itself lists as agents (a top-level `agents` list). */
  agents?: string[];
}

/**
 * One session from a list of OpenAI-style messages (see chat-json.ts for what is accepted).
 * Throws ImportError naming the JSON path of the first malformed message.
 */
export function chatSession(conversation: ChatConversation, file: string, agents: ReadonlySet<string>): SessionInput {
  const session = new SessionBuilder(conversation.id, conversation.title, conversation.metadata);
  const clock = new Clock();
  if (conversation.agents) agents = new Set([...agents, ...conversation.agents]);
  conversation.messages.forEach((m, i) => addMessage(session, m, file, conversation.paths?.[i] ?? `${conversation.listPath}[${i}]`, agents, clock));
  return session.build();
}

/** A message's role: `role`, or CAMEL's `role_type` ("USER"/"ASSISTANT") lower-cased. */
function roleOf(msg: JsonObject, file: string, path: string): { role: string; camel: boolean } {
  if (typeof msg.role === "string") return { role: msg.role, camel: false };
  if (msg.role === undefined && typeof msg.role_type === "string") return { role: msg.role_type.toLowerCase(), camel: true };
  // A log that names its speakers but gives no role: they are "participants" (humans unless --agents).
  if (msg.role === undefined && NAME_KEYS.some((k) => typeof msg[k] === "string")) return { role: "participant", camel: false };
  throw shapeError(file, `${path}.role`, 'a role such as "user", "assistant", "system" or "tool" (or a "name"/"sender" naming the speaker)', msg.role);
}

function addMessage(session: SessionBuilder, raw: unknown, file: string, path: string, agents: ReadonlySet<string>, clock: Clock): void {
  const msg = expectObject(raw, file, path, 'a message object {"role": …, "content": …}');
  const { role, camel } = roleOf(msg, file, path);
  let name: string | undefined;
  for (const key of NAME_KEYS) name ??= optionalString(msg, key, file, path);
  const display = name ?? role;
  // CAMEL's role-playing "AI User" and "AI Assistant" are both language models.
  const roleKind: ParticipantKind = camel ? "ai" : (ROLE_KINDS.get(role) ?? "human");
  const kind: ParticipantKind = agents.has(display) || agents.has(role) ? "ai" : roleKind;
  // A chat API's message role is a speaker kind, not a participant role; any other role (a CAMEL or custom "moderator") is one.
  const roleField = ROLE_KINDS.has(role) ? { metadata: { messageRole: role } } : { role };
  const speaker = session.participant(`${role}\u0000${name ?? ""}`, { name: display, ...roleField, kind });
  const time = clock.read(msg, file, path);
  const body = readContent(msg.content, file, `${path}.content`);

  const reasoningKey = typeof msg.reasoning_content === "string" ? "reasoning_content" : typeof msg.reasoning === "string" ? "reasoning" : undefined;
  if (reasoningKey) session.turn({ speaker, text: msg[reasoningKey] as string, type: "reasoning", ...time });
  else if (msg.reasoning !== undefined && msg.reasoning !== null) throw shapeError(file, `${path}.reasoning`, "a string", msg.reasoning);

  const metadata: JsonObject = rest(msg, MESSAGE_KEYS) ?? {};
  if (body.parts) metadata.parts = body.parts;
  if (body.refusal) metadata.refusal = true;
  const toolCallId = optionalString(msg, "tool_call_id", file, path);
  if (toolCallId !== undefined) metadata.toolCallId = toolCallId;
  // A name found under another key than `name` is also kept verbatim there, so nothing is renamed silently.
  for (const key of NAME_KEYS.slice(1)) if (typeof msg[key] === "string" && msg[key] !== display) metadata[key] = msg[key];

  const calls = toolCalls(msg, file, path);
  const type: TurnType = role === "system" || role === "developer" ? "system" : TOOL_ROLES.has(role) ? "action" : "message";
  // A pure tool-calling message (no words, no parts) is represented by its action turns alone.
  if (body.text !== "" || calls.length === 0 || Object.keys(metadata).length > 0) {
    session.turn({ speaker, text: body.text, type, ...time, metadata });
  }
  for (const call of calls) {
    session.turn({ speaker, text: `${call.name}(${call.arguments})`, type: "action", ...time, metadata: { toolCall: call.raw } });
  }
}

interface ToolCall {
  name: string;
  arguments: string;
  raw: JsonObject;
}

/** `tool_calls: [{id, type: "function", function: {name, arguments}}]` and legacy `function_call`. */
function toolCalls(msg: JsonObject, file: string, path: string): ToolCall[] {
  const noCalls = msg.tool_calls === undefined || msg.tool_calls === null;
  const noFunction = msg.function_call === undefined || msg.function_call === null;
  if (noCalls && noFunction) return NO_CALLS;
  const out: ToolCall[] = [];
  if (!noCalls) {
    const list = expectArray(msg.tool_calls, file, `${path}.tool_calls`, "an array of tool calls");
    list.forEach((c, i) => out.push(readCall(c, file, `${path}.tool_calls[${i}]`)));
  }
  if (!noFunction) out.push(readCall(msg.function_call, file, `${path}.function_call`));
  return out;
}
const NO_CALLS: ToolCall[] = [];

function readCall(value: unknown, file: string, at: string): ToolCall {
  const call = expectObject(value, file, at, 'a tool call {"function": {"name": …, "arguments": …}}');
  const fn = isObject(call.function) ? call.function : call;
  const fnPath = isObject(call.function) ? `${at}.function` : at;
  const name = expectString(fn.name, file, `${fnPath}.name`, "the called function's name");
  const args = fn.arguments;
  const argText = args === undefined || args === null ? "" : typeof args === "string" ? args : JSON.stringify(args);
  return { name, arguments: argText, raw: call };
}

/**
 * Turn times: an epoch number (seconds, or milliseconds when > 1e11) or a date-time string.
 * `timestamp` keeps the source's string (or the ISO form of a number); `start` counts seconds
 * from the first timed message.
 */
const NO_TIME: { timestamp?: string; start?: number } = {};

class Clock {
  private origin: number | undefined;
  read(msg: JsonObject, file: string, path: string): { timestamp?: string; start?: number } {
    let key: (typeof TIME_KEYS)[number] | undefined;
    for (const k of TIME_KEYS) if (msg[k] !== undefined && msg[k] !== null) key ??= k;
    if (!key) return NO_TIME;
    const value = msg[key];
    let seconds: number | undefined;
    let timestamp: string | undefined;
    if (typeof value === "number" && Number.isFinite(value)) {
      seconds = value > 1e11 ? value / 1000 : value;
      timestamp = epochToIso(seconds) ?? String(value);
    } else if (typeof value === "string") {
      timestamp = value;
      const ms = Date.parse(value);
      if (!Number.isNaN(ms)) seconds = ms / 1000;
    } else throw shapeError(file, `${path}.${key}`, "a date-time string or epoch seconds", value);
    if (seconds === undefined || timestamp === undefined) return timestamp === undefined ? {} : { timestamp };
    this.origin ??= seconds;
    return { timestamp, start: seconds - this.origin };
  }
}
