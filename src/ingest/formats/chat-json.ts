import type { ParticipantKind, TurnType } from "../../transcript/schema.js";
import type { Importer, ImportOptions, ImportResult } from "../types.js";
import { readContent } from "./content-parts.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, epochToIso, expectArray, expectObject, expectString, isObject, optionalString, rest, shapeError, type JsonObject } from "./json-shape.js";

/** Keys of a message that become turn fields; every other key is kept in turn metadata. */
const MESSAGE_KEYS = new Set(["role", "name", "content", "tool_calls", "function_call", "tool_call_id", "reasoning_content", "reasoning", "timestamp", "created_at", "create_time"]);
const TIME_KEYS = ["timestamp", "created_at", "create_time"] as const;
const TOOL_ROLES = new Set(["tool", "function", "ipython"]);

/** OpenAI roles -> participant kind. Unknown roles are humans unless listed in --agents. */
const ROLE_KINDS: Record<string, ParticipantKind> = {
  user: "human",
  human: "human",
  assistant: "ai",
  model: "ai",
  ai: "ai",
  system: "system",
  developer: "system",
  tool: "system",
  function: "system",
  ipython: "system",
};

/**
 * Chat JSON: an array of OpenAI-style messages `{role, name?, content}` (or `{messages: [...]}`
 * with other top-level keys kept in session metadata). One session per file.
 * - content may be a string, null, or an array of content parts (text parts are joined by "\n";
 *   images and other parts are kept in turn metadata `parts`);
 * - `system`/`developer` messages are `system` turns; `tool`/`function` results and each of an
 *   assistant's `tool_calls` (text `name(arguments)`) are `action` turns;
 * - `reasoning_content`/`reasoning` becomes a `reasoning` turn before the message;
 * - participants come from `name`, else the role; `timestamp`/`created_at`/`create_time`
 *   (ISO string or epoch seconds) give the turn time.
 */
export const chatJsonImporter: Importer = {
  name: "chat-json",
  description: "OpenAI-style chat messages: [{role, name, content}, …] or {messages: […]}",
  extensions: [".json"],
  input: "file",
  detect(path, head) {
    const json = path.toLowerCase().endsWith(".json");
    if (/^\s*\[\s*\{\s*"(role|name|content)"\s*:/.test(head)) return json ? 0.9 : 0.7;
    if (/^\s*\[/.test(head) && /"role"\s*:\s*"(user|assistant|system|developer|tool)"/.test(head)) return json ? 0.75 : 0.6;
    if (/^\s*\{/.test(head) && /"messages"\s*:\s*\[/.test(head) && /"role"\s*:/.test(head)) return json ? 0.8 : 0.6;
    return 0;
  },
  async parse(input, options) {
    const root = parseJson(await input.readText(), input.path);
    return importChat(root, input.path, options);
  },
};

function importChat(root: unknown, file: string, options: ImportOptions): ImportResult {
  let messages: unknown[];
  let listPath = "$";
  const metadata: Record<string, unknown> = { source: { file, format: "chat-json" } };
  let title: string | undefined;
  if (Array.isArray(root)) messages = root;
  else if (isObject(root) && "messages" in root) {
    listPath = "$.messages";
    messages = expectArray(root.messages, file, listPath, "an array of messages");
    title = optionalString(root, "title", file, "$");
    const extra = rest(root, ["messages", "title"]);
    if (extra) metadata.extra = extra;
  } else throw shapeError(file, "$", 'an array of chat messages [{"role": …, "content": …}] or {"messages": […]}', root);

  const stem = baseName(file).replace(/\.[^.]*$/, "");
  const session = new SessionBuilder(stem, title, metadata);
  const agents = new Set(options.agents ?? []);
  const clock = new Clock();
  for (let i = 0; i < messages.length; i++) addMessage(session, messages[i], file, `${listPath}[${i}]`, agents, clock);
  const warnings = messages.length === 0 ? [`${file}: no messages; imported an empty session`] : [];
  return { sessions: [session.build()], codes: [], warnings };
}

function addMessage(session: SessionBuilder, raw: unknown, file: string, path: string, agents: Set<string>, clock: Clock): void {
  const msg = expectObject(raw, file, path, 'a message object {"role": …, "content": …}');
  const role = msg.role;
  if (typeof role !== "string") throw shapeError(file, `${path}.role`, 'a role such as "user", "assistant", "system" or "tool"', role);
  const name = optionalString(msg, "name", file, path);
  const display = name ?? role;
  const kind: ParticipantKind = agents.has(display) || agents.has(role) ? "ai" : (ROLE_KINDS[role] ?? "human");
  const speaker = session.participant(`${role}\u0000${name ?? ""}`, { name: display, role, kind });
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
    for (const k of TIME_KEYS) if (msg[k] !== undefined && msg[k] !== null) (key ??= k);
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
