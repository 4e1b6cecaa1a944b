import type { ParticipantKind, TurnType } from "../../transcript/schema.js";
import { ImportError, type Importer, type ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { childPath, epochToIso, expectArray, expectObject, isObject, optionalNumber, optionalString, shapeError, type JsonObject } from "./json-shape.js";

/**
 * ChatGPT data export (`conversations.json`): an array of conversations, each a tree of
 * message nodes in `mapping` ({id: {message, parent, children}}). Regenerated answers and
 * edited prompts make branches; the conversation the user last saw is the path from
 * `current_node` up to the root, which is what becomes the session's turns (in order).
 * Nodes off that path are not turns, but their text is kept in session metadata
 * `offBranch` so no words are lost. Empty or hidden system/context nodes are skipped
 * (hidden ones with text are kept in metadata `hidden`) and counted in the warnings.
 */
export const chatgptImporter: Importer = {
  name: "chatgpt",
  description: "ChatGPT data export conversations.json (follows each conversation's active branch)",
  extensions: [".json"],
  input: "file",
  detect(path, head) {
    if (/"mapping"\s*:\s*\{/.test(head) && /"current_node"|"parent"\s*:/.test(head)) return 0.95;
    return 0;
  },
  async parse(input) {
    const root = parseJson(await input.readText(), input.path);
    const list = Array.isArray(root) ? root : isObject(root) && "mapping" in root ? [root] : undefined;
    if (!list) throw shapeError(input.path, "$", 'an array of ChatGPT conversations (conversations.json) or one conversation with a "mapping"', root);
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    list.forEach((conv, i) => importConversation(conv, input.path, Array.isArray(root) ? `$[${i}]` : "$", result));
    if (list.length === 0) result.warnings.push(`${input.path}: the export holds no conversations`);
    return result;
  },
};

interface Node {
  id: string;
  message: JsonObject | null;
  parent: string | null;
  path: string;
}

function importConversation(raw: unknown, file: string, path: string, result: ImportResult): void {
  const conv = expectObject(raw, file, path, 'a conversation object with a "mapping"');
  const mapPath = childPath(path, "mapping");
  const mapping = expectObject(conv.mapping, file, mapPath, "an object of message nodes {id: {message, parent, children}}");
  const nodes = new Map<string, Node>();
  for (const [key, value] of Object.entries(mapping)) {
    const nodePath = childPath(mapPath, key);
    const node = expectObject(value, file, nodePath, "a node {message, parent, children}");
    const parent = optionalString(node, "parent", file, nodePath) ?? null;
    const message =
      node.message === null || node.message === undefined ? null : expectObject(node.message, file, childPath(nodePath, "message"), "a message object or null");
    nodes.set(key, { id: key, message, parent, path: nodePath });
  }
  const title = optionalString(conv, "title", file, path);
  const created = optionalNumber(conv, "create_time", file, path);
  const convId =
    optionalString(conv, "conversation_id", file, path) ?? optionalString(conv, "id", file, path) ?? title ?? `conversation-${result.sessions.length + 1}`;
  const label = `${file}: ${path} (${JSON.stringify(title ?? convId)})`;

  const active = activePath(conv, nodes, file, path, label, result.warnings);
  const onPath = new Set(active.map((n) => n.id));
  const metadata: Record<string, unknown> = { source: { file, format: "chatgpt" }, conversationId: convId };
  if (created !== undefined) {
    metadata.create_time = created;
    const iso = epochToIso(created);
    if (iso) metadata.date = iso;
  }
  const updated = optionalNumber(conv, "update_time", file, path);
  if (updated !== undefined) metadata.update_time = updated;

  const session = new SessionBuilder(convId, title, metadata);
  const hidden: JsonObject[] = [];
  let skippedEmpty = 0;
  for (const node of active) {
    if (!node.message) continue;
    const m = readMessage(node, file);
    if (m.hidden || (m.role === "system" && m.text === "" && !m.extra)) {
      if (m.text !== "" || m.extra) hidden.push({ id: node.id, role: m.role, text: m.text, ...(m.extra ? { content: m.extra } : {}) });
      else skippedEmpty++;
      continue;
    }
    const speaker = session.participant(`${m.role}\u0000${m.name ?? ""}`, { name: m.name ?? m.role, kind: m.kind, metadata: { messageRole: m.role } });
    const start = m.createTime !== undefined && created !== undefined ? m.createTime - created : undefined;
    const turnMeta: JsonObject = { nodeId: node.id };
    if (m.contentType !== "text") turnMeta.contentType = m.contentType;
    if (m.extra) turnMeta.content = m.extra;
    if (m.recipient && m.recipient !== "all") turnMeta.recipient = m.recipient;
    if (m.model) turnMeta.model = m.model;
    session.turn({
      speaker,
      text: m.text,
      type: m.type,
      start,
      timestamp: m.createTime !== undefined ? epochToIso(m.createTime) : undefined,
      metadata: turnMeta,
    });
  }
  const offBranch = [...nodes.values()]
    .filter((n) => !onPath.has(n.id) && n.message)
    .map((n) => {
      const m = readMessage(n, file);
      return { id: n.id, parent: n.parent, role: m.role, text: m.text, ...(m.extra ? { content: m.extra } : {}) };
    });
  if (offBranch.length > 0) {
    metadata.offBranch = offBranch;
    result.warnings.push(`${label}: ${offBranch.length} message(s) on inactive branches (regenerated or edited) kept in metadata.offBranch, not as turns`);
  }
  if (hidden.length > 0) metadata.hidden = hidden;
  if (hidden.length + skippedEmpty > 0) {
    result.warnings.push(
      `${label}: skipped ${skippedEmpty} empty and ${hidden.length} hidden system/context message(s)${hidden.length ? " (hidden text kept in metadata.hidden)" : ""}`,
    );
  }
  if (session.turnCount === 0) result.warnings.push(`${label}: no visible messages; imported an empty session`);
  result.sessions.push(session.build());
}

/** Nodes from the root down to `current_node` (or, without one, to the newest leaf). */
function activePath(conv: JsonObject, nodes: Map<string, Node>, file: string, path: string, label: string, warnings: string[]): Node[] {
  if (nodes.size === 0) return [];
  let current = optionalString(conv, "current_node", file, path);
  if (current === undefined) {
    current = newestLeaf(nodes);
    warnings.push(`${label}: no "current_node"; followed the branch ending at the newest message (${current})`);
  } else if (!nodes.has(current)) {
    throw new ImportErrorAt(file, childPath(path, "current_node"), `the id of a node in "mapping" (found ${JSON.stringify(current)}, which is not there)`);
  }
  const out: Node[] = [];
  const seen = new Set<string>();
  for (let id: string | null = current; id !== null;) {
    const node = nodes.get(id);
    if (!node) {
      throw new ImportErrorAt(
        file,
        childPath(out[out.length - 1]?.path ?? path, "parent"),
        `the id of a node in "mapping" (found ${JSON.stringify(id)}, which is not there)`,
      );
    }
    if (seen.has(id)) throw new ImportErrorAt(file, childPath(node.path, "parent"), "a tree (the parent links form a loop here)");
    seen.add(id);
    out.push(node);
    id = node.parent;
  }
  return out.reverse();
}

function newestLeaf(nodes: Map<string, Node>): string {
  const parents = new Set([...nodes.values()].map((n) => n.parent));
  let best: Node | undefined;
  let bestTime = -Infinity;
  for (const node of nodes.values()) {
    if (parents.has(node.id)) continue;
    const t = typeof node.message?.create_time === "number" ? node.message.create_time : -Infinity;
    if (!best || t >= bestTime) {
      best = node;
      bestTime = t;
    }
  }
  return (best ?? [...nodes.values()][0]).id;
}

interface ReadMessage {
  role: string;
  name?: string;
  kind: ParticipantKind;
  type: TurnType;
  text: string;
  /** Non-text content (images, browsing results…) kept whole. */
  extra?: unknown;
  contentType: string;
  createTime?: number;
  recipient?: string;
  model?: string;
  hidden: boolean;
}

/** Role -> participant kind: a Map, so that a role named "valueOf" or "constructor" is no key of it. */
const KINDS = new Map<string, ParticipantKind>([
  ["user", "human"],
  ["assistant", "ai"],
  ["system", "system"],
  ["tool", "system"],
]);

function readMessage(node: Node, file: string): ReadMessage {
  const msgPath = childPath(node.path, "message");
  const msg = node.message as JsonObject;
  const author = msg.author === undefined ? {} : expectObject(msg.author, file, childPath(msgPath, "author"), "an author object {role, name}");
  const role = optionalString(author, "role", file, childPath(msgPath, "author")) ?? "unknown";
  const name = optionalString(author, "name", file, childPath(msgPath, "author"));
  const content =
    msg.content === undefined || msg.content === null
      ? {}
      : expectObject(msg.content, file, childPath(msgPath, "content"), "a content object {content_type, parts}");
  const contentType = typeof content.content_type === "string" ? content.content_type : "text";
  const { text, extra } = contentText(content, file, childPath(msgPath, "content"));
  const meta = isObject(msg.metadata) ? msg.metadata : {};
  const recipient = typeof msg.recipient === "string" ? msg.recipient : undefined;
  const kind = KINDS.get(role) ?? "system";
  let type: TurnType = "message";
  if (role === "system") type = "system";
  else if (contentType === "thoughts" || contentType === "reasoning_recap") type = "reasoning";
  else if (role === "tool" || (recipient !== undefined && recipient !== "all")) type = "action";
  const hidden = meta.is_visually_hidden_from_conversation === true || (role === "system" && contentType === "user_editable_context");
  return {
    role,
    name,
    kind,
    type,
    text,
    extra,
    contentType,
    createTime: typeof msg.create_time === "number" ? msg.create_time : undefined,
    recipient,
    model: typeof meta.model_slug === "string" ? meta.model_slug : undefined,
    hidden,
  };
}

/**
 * The words of a ChatGPT content object. `parts` strings are joined by "\n"; `text`
 * (code, execution output), `result`, and `thoughts[].content` are text too. Anything
 * else (image pointers, quotes, browsing displays) is returned as `extra` to keep in metadata.
 */
function contentText(content: JsonObject, file: string, path: string): { text: string; extra?: unknown } {
  const texts: string[] = [];
  const extras: unknown[] = [];
  if (content.parts !== undefined && content.parts !== null) {
    const parts = expectArray(content.parts, file, childPath(path, "parts"), "an array of parts");
    for (const part of parts) {
      if (typeof part === "string") texts.push(part);
      else if (part !== null) extras.push(part);
    }
  }
  for (const key of ["text", "result"]) if (typeof content[key] === "string") texts.push(content[key] as string);
  if (Array.isArray(content.thoughts)) {
    for (const t of content.thoughts) {
      if (isObject(t) && typeof t.content === "string") texts.push(typeof t.summary === "string" ? `${t.summary}\n${t.content}` : t.content);
      else extras.push(t);
    }
  } else if (typeof content.content === "string") texts.push(content.content);
  const known = new Set(["content_type", "parts", "text", "result", "thoughts", "content"]);
  const leftover = Object.fromEntries(Object.entries(content).filter(([k, v]) => !known.has(k) && v !== null && v !== undefined && v !== ""));
  if (Object.keys(leftover).length > 0) extras.push(leftover);
  return { text: texts.join("\n"), extra: extras.length === 0 ? undefined : extras.length === 1 ? extras[0] : extras };
}

/** An ImportError at a JSON path with "expected …" wording. */
class ImportErrorAt extends ImportError {
  constructor(file: string, jsonPath: string, expected: string) {
    super({ file, jsonPath, problem: "broken conversation tree", expected });
  }
}
