import { slugify } from "../../transcript/ids.js";
import type { Importer, ImportOptions, ImportResult } from "../types.js";
import { chatSession, type ChatConversation } from "./chat-messages.js";
import { parseJson } from "./json-parse.js";
import { baseName, childPath, expectArray, isObject, optionalString, rest, shapeError, type JsonObject } from "./json-shape.js";

/** Keys that hold a conversation's message list: OpenAI `messages`, AutoGen's ChatResult `chat_history`. */
const LIST_KEYS = ["messages", "chat_history"] as const;
/** Keys of a conversation object that identify it (the session id). */
const ID_KEYS = ["id", "conversation_id", "custom_id"] as const;
/** CAMEL role-playing records number their messages: message_1, message_2, … */
const CAMEL_MESSAGE = /^message_(\d+)$/;

/**
 * A request and its reply as two strings: legacy fine-tuning lines `{prompt, completion}` and LLM
 * call logs `{query, response}` (often with a timestamp). The request is the user's turn, the
 * reply the assistant's.
 */
const EXCHANGE_KEYS = [
  ["prompt", "completion"],
  ["query", "response"],
] as const;

/** Every shape chat-json reads, for the error on anything else. */
const CHAT_SHAPES =
  'an array of chat messages [{"role": …, "content": …}], {"messages": […]} or {"chat_history": […]} (AutoGen), an array of conversations [{"id": …, "messages": […]}] or an object of them {"<name>": {"messages": […]}}, a CAMEL record {"message_1": {"role_name": …, "role_type": …, "content": …}, …}, or request/reply pairs {"prompt": …, "completion": …} / {"query": …, "response": …}';

/**
 * Chat JSON: OpenAI-style messages `{role, name?, content}` in one of these shapes:
 * - an array of messages (one session);
 * - `{messages: [...]}` or AutoGen's `{chat_history: [...]}`, other top-level keys (summary, cost,
 *   task, agents…) kept in session metadata `extra`;
 * - an array of conversations `[{id, title?, messages}, …]`: one session each, id from
 *   `id`/`conversation_id`/`custom_id`;
 * - a CAMEL role-playing record `{role_1, role_2, message_1: {role_name, role_type, content}, …}`:
 *   both role players are AI agents (CAMEL's "AI User" is a language model too); --humans says otherwise.
 * Messages: content may be a string, null, or an array of content parts (text parts are joined by "\n";
 * images and other parts are kept in turn metadata `parts`); `system`/`developer` messages are
 * `system` turns; `tool`/`function` results and each of an assistant's `tool_calls` (text
 * `name(arguments)`) are `action` turns; `reasoning_content`/`reasoning` becomes a `reasoning`
 * turn before the message; participants come from `name` (or `role_name`, `sender`, `speaker`),
 * else the role; `timestamp`/`created_at`/`create_time` (ISO string or epoch seconds) give the turn time.
 */
export const chatJsonImporter: Importer = {
  name: "chat-json",
  description: "OpenAI-style chat messages: [{role, name, content}, …], {messages: […]}, [{id, messages}, …], AutoGen chat_history, CAMEL records",
  extensions: [".json"],
  input: "file",
  detect(path, head) {
    const json = path.toLowerCase().endsWith(".json");
    if (/^\s*\[\s*\{\s*"(role|name|content)"\s*:/.test(head)) return json ? 0.9 : 0.7;
    if (/^\s*\[/.test(head) && /"role"\s*:\s*"(user|assistant|system|developer|tool)"/.test(head)) return json ? 0.75 : 0.6;
    if (/^\s*\{/.test(head) && /"(messages|chat_history)"\s*:\s*\[/.test(head) && /"(role|sender|speaker|role_name)"\s*:/.test(head)) return json ? 0.8 : 0.6;
    if (/^\s*\{/.test(head) && /"message_1"\s*:\s*\{/.test(head) && /"role_type"\s*:/.test(head)) return json ? 0.8 : 0.6;
    // Conversations whose messages name their sender by id: [{"conversation_id": …, "messages": [{"sender_id": …}]}].
    if (/^\s*\[/.test(head) && /"messages"\s*:\s*\[/.test(head) && /"sender(_id)?"\s*:/.test(head)) return json ? 0.7 : 0.5;
    if (/^\s*\[\s*\{/.test(head) && EXCHANGE_KEYS.some(([q, r]) => new RegExp(`"${q}"\\s*:\\s*"`).test(head) && new RegExp(`"${r}"\\s*:`).test(head)))
      return json ? 0.6 : 0.4;
    return 0;
  },
  async parse(input, options) {
    const root = parseJson(await input.readText(), input.path);
    return importChat(root, input.path, options);
  },
};

function importChat(root: unknown, file: string, options: ImportOptions): ImportResult {
  const stem = baseName(file).replace(/\.[^.]*$/, "");
  const conversations = conversationsOf(root, file, stem);
  const agents = new Set(options.agents ?? []);
  const sessions = conversations.map((c) => chatSession(c, file, agents));
  const warnings = conversations.filter((c) => c.messages.length === 0).map((c) => `${file}: ${c.listPath}: no messages; imported an empty session`);
  return { sessions, codes: [], warnings };
}

/** The conversations in a chat JSON document, or an ImportError listing the shapes it could be. */
export function conversationsOf(root: unknown, file: string, stem: string): ChatConversation[] {
  const metadata = (): Record<string, unknown> => ({ source: { file, format: "chat-json" } });
  if (Array.isArray(root)) {
    // [{id, messages: [...]}, …]: a list of conversations, not of messages.
    if (root.length > 0 && root.every(isConversation)) {
      return root.map((c, i) => wrapped(c as JsonObject, file, `$[${i}]`, `${stem}-${i + 1}`, metadata()));
    }
    if (root.length > 0 && root.every((c) => exchangeKeys(c) !== undefined)) {
      return root.map((c, i) => exchange(c as JsonObject, `$[${i}]`, `${stem}-${i + 1}`, metadata()));
    }
    return [{ messages: root, listPath: "$", id: stem, metadata: metadata() }];
  }
  if (isObject(root) && LIST_KEYS.some((k) => k in root)) return [wrapped(root, file, "$", stem, metadata())];
  if (isObject(root) && exchangeKeys(root)) return [exchange(root, "$", stem, metadata())];
  // {"<name>": {"messages": […]}, …}: conversations keyed by their names.
  const named = isObject(root) ? Object.entries(root) : [];
  if (named.length > 0 && named.every(([, c]) => isConversation(c))) {
    return named.map(([name, c]) => {
      const conversation = wrapped(c as JsonObject, file, childPath("$", name), slugify(name), metadata());
      return { ...conversation, title: conversation.title ?? name };
    });
  }
  if (isObject(root) && Object.keys(root).some((k) => CAMEL_MESSAGE.test(k))) return [camelRecord(root, file, stem, metadata())];
  throw shapeError(file, "$", CHAT_SHAPES, root);
}

function isConversation(value: unknown): boolean {
  return isObject(value) && LIST_KEYS.some((k) => Array.isArray(value[k])) && !("content" in value);
}

function exchangeKeys(value: unknown): (typeof EXCHANGE_KEYS)[number] | undefined {
  if (!isObject(value)) return undefined;
  return EXCHANGE_KEYS.find(([q, r]) => typeof value[q] === "string" && typeof value[r] === "string");
}

/** A request/reply pair as a two-turn conversation; its other keys (timestamp kept per turn) go to `extra`. */
function exchange(obj: JsonObject, path: string, id: string, metadata: Record<string, unknown>): ChatConversation {
  const [q, r] = exchangeKeys(obj)!;
  const time = typeof obj.timestamp === "string" || typeof obj.timestamp === "number" ? { timestamp: obj.timestamp } : {};
  const extra = rest(obj, [q, r]);
  if (extra) metadata.extra = extra;
  return {
    messages: [
      { role: "user", content: obj[q], ...time },
      { role: "assistant", content: obj[r], ...time },
    ],
    listPath: path,
    paths: [childPath(path, q), childPath(path, r)],
    id,
    metadata,
  };
}

/** `{messages | chat_history, id?, title?, …}`: other keys go to session metadata `extra`. */
function wrapped(obj: JsonObject, file: string, path: string, fallbackId: string, metadata: Record<string, unknown>): ChatConversation {
  const key = LIST_KEYS.find((k) => k in obj) ?? "messages";
  const listPath = childPath(path, key);
  const messages = expectArray(obj[key], file, listPath, "an array of messages");
  const title = optionalString(obj, "title", file, path);
  let id: string | undefined;
  for (const k of ID_KEYS) if (typeof obj[k] === "string" || typeof obj[k] === "number") id ??= String(obj[k]);
  const extra = rest(obj, [key, "title"]);
  if (extra) metadata.extra = extra;
  return { messages, listPath, id: id ? slugify(id) : fallbackId, title, metadata, agents: listedAgents(obj.agents) };
}

/**
 * Multi-agent logs often list their agents beside the messages (`"agents": ["Critic", …]` or
 * `[{"name": "Critic", "model": …}]`): those speakers are AI agents.
 */
function listedAgents(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const names = value.flatMap((a) => (typeof a === "string" ? [a] : isObject(a) && typeof a.name === "string" ? [a.name] : []));
  return names.length > 0 ? names : undefined;
}

/** CAMEL: message_1, message_2, … in numeric order; everything else (roles, task, termination) is metadata. */
function camelRecord(obj: JsonObject, file: string, stem: string, metadata: Record<string, unknown>): ChatConversation {
  const keys = Object.keys(obj)
    .filter((k) => CAMEL_MESSAGE.test(k))
    .sort((a, b) => Number(CAMEL_MESSAGE.exec(a)![1]) - Number(CAMEL_MESSAGE.exec(b)![1]));
  const extra = rest(obj, keys);
  if (extra) metadata.extra = extra;
  const title = typeof obj.specified_task === "string" ? obj.specified_task : typeof obj.original_task === "string" ? obj.original_task : undefined;
  const id = typeof obj.id === "string" || typeof obj.id === "number" ? slugify(String(obj.id)) : stem;
  return { messages: keys.map((k) => obj[k]), listPath: "$", paths: keys.map((k) => childPath("$", k)), id, title, metadata };
}
