import type { ParticipantKind } from "../../transcript/schema.js";
import type { Importer, ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, childPath, expectArray, expectObject, isObject, optionalString, rest, shapeError, type JsonObject } from "./json-shape.js";

const EXPECTED =
  'a Claude.ai export: conversations.json, [{"uuid": …, "name": …, "chat_messages": [{"sender": "human" | "assistant", "text": …, "content": […]}]}]';
/** Sender -> participant kind: a Map, so that a sender named "valueOf" or "constructor" is no key of it. */
const KINDS = new Map<string, ParticipantKind>([
  ["human", "human"],
  ["assistant", "ai"],
]);

/**
 * Claude.ai data exports (`conversations.json`): an array of conversations
 * `{uuid, name, created_at, chat_messages: [{uuid, sender, text, content, attachments, files}]}`.
 * One session per conversation (id: its uuid, title: its name). A message's words come from its
 * `content` blocks when present: `text` blocks are the message, a `thinking` block becomes a
 * `reasoning` turn, `tool_use` and `tool_result` blocks become `action` turns; else from `text`.
 * When `text` differs from the joined text blocks it is kept in turn metadata `text`; attachments
 * (with their extracted content) and files stay in turn metadata. Senders: "human" (human) and
 * "assistant" (ai).
 */
export const claudeExportImporter: Importer = {
  name: "claude-export",
  description: "Claude.ai data export conversations.json",
  extensions: [".json"],
  input: "file",
  detect(_path, head) {
    return /"chat_messages"\s*:\s*\[/.test(head) ? 0.95 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const root = parseJson(await input.readText(), file);
    // Tools that keep exports wrap the array as {"conversations": [...]} beside their own keys.
    const wrapped = isObject(root) && Array.isArray(root.conversations) ? root.conversations : undefined;
    const listPath = wrapped ? "$.conversations" : "$";
    const list = wrapped ?? (Array.isArray(root) ? root : isObject(root) && "chat_messages" in root ? [root] : undefined);
    if (!list) throw shapeError(file, "$", EXPECTED, root);
    const agents = new Set(options.agents ?? []);
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    const stem = baseName(file).replace(/\.[^.]*$/, "");
    list.forEach((raw, i) => {
      const path = wrapped || Array.isArray(root) ? childPath(listPath, i) : "$";
      // One null record (a failed write, a redacted entry) costs that record, not the whole export.
      if (raw === null) {
        result.warnings.push(`${file}: ${path}: null instead of a conversation; skipped`);
        return;
      }
      const conv = expectObject(raw, file, path, 'a conversation {"uuid": …, "chat_messages": […]}');
      const messages = expectArray(conv.chat_messages, file, childPath(path, "chat_messages"), "an array of chat messages");
      const id = optionalString(conv, "uuid", file, path) ?? `${stem}-${i + 1}`;
      const metadata: Record<string, unknown> = { source: { file, format: "claude-export" }, ...rest(conv, ["chat_messages", "name"]) };
      const beside = wrapped ? rest(root as JsonObject, ["conversations"]) : undefined;
      if (beside) metadata.export = beside;
      const builder = new SessionBuilder(id, optionalString(conv, "name", file, path), metadata);
      let origin: number | undefined;
      messages.forEach((m, j) => {
        const at = childPath(childPath(path, "chat_messages"), j);
        if (m === null) {
          result.warnings.push(`${file}: ${at}: null instead of a message; skipped`);
          return;
        }
        const msg = expectObject(m, file, at, 'a message {"sender": …, "text": …}');
        const sender = optionalString(msg, "sender", file, at) ?? "unknown";
        const kind: ParticipantKind = agents.has(sender) ? "ai" : (KINDS.get(sender) ?? "human");
        const speaker = builder.participant(sender, { name: sender, kind, metadata: { messageRole: sender } });
        const timestamp = optionalString(msg, "created_at", file, at);
        const ms = timestamp === undefined ? NaN : Date.parse(timestamp);
        if (!Number.isNaN(ms)) origin ??= ms;
        const time = { timestamp, start: Number.isNaN(ms) || origin === undefined ? undefined : (ms - origin) / 1000 };
        const meta: JsonObject = rest(msg, ["sender", "text", "content", "created_at"]) ?? {};
        for (const key of ["attachments", "files"]) if (Array.isArray(meta[key]) && (meta[key] as unknown[]).length === 0) delete meta[key];
        const text = optionalString(msg, "text", file, at);
        if (!Array.isArray(msg.content) || msg.content.length === 0) {
          builder.turn({ speaker, text: text ?? "", ...time, metadata: meta });
          return;
        }
        const words: string[] = [];
        const others: { type: "reasoning" | "action"; text: string; block: JsonObject }[] = [];
        msg.content.forEach((b, k) => {
          const blockPath = childPath(childPath(at, "content"), k);
          const block = expectObject(b, file, blockPath, 'a content block {"type": "text", "text": …}');
          if (block.type === "text" && typeof block.text === "string") words.push(block.text);
          else if (block.type === "thinking" && typeof block.thinking === "string") others.push({ type: "reasoning", text: block.thinking, block });
          else if (block.type === "tool_use")
            others.push({ type: "action", text: `${typeof block.name === "string" ? block.name : "tool"}(${JSON.stringify(block.input ?? {})})`, block });
          else if (block.type === "tool_result") others.push({ type: "action", text: toolResultText(block.content), block });
          else others.push({ type: "action", text: "", block });
        });
        for (const o of others.filter((x) => x.type === "reasoning"))
          builder.turn({ speaker, text: o.text, type: "reasoning", ...time, metadata: { block: rest(o.block, ["thinking"]) } });
        const joined = words.join("\n");
        if (text !== undefined && text !== joined) meta.text = text;
        if (joined !== "" || others.length === 0 || Object.keys(meta).length > 0) builder.turn({ speaker, text: joined, ...time, metadata: meta });
        for (const o of others.filter((x) => x.type === "action"))
          builder.turn({ speaker, text: o.text, type: "action", ...time, metadata: { block: o.block } });
      });
      result.sessions.push(builder.build());
    });
    if (list.length === 0) result.warnings.push(`${file}: no conversations in the export`);
    return result;
  },
};

/** A tool result's words: its text blocks joined, or the string itself. */
function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => (isObject(c) && typeof c.text === "string" ? c.text : "")).join("\n");
  return "";
}
