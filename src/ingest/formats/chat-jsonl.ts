import { slugify } from "../../transcript/ids.js";
import { ImportError, type Importer, type ImportResult } from "../types.js";
import { chatSession, type ChatConversation } from "./chat-messages.js";
import { conversationsOf } from "./chat-json.js";
import { parseJson } from "./json-parse.js";
import { baseName, idText, isObject, rest, type JsonObject } from "./json-shape.js";

/** What one JSONL line can be, for warnings about lines that are none of them. */
const LINE_SHAPES =
  'a conversation {"messages": […]} (fine-tuning file), a legacy {"prompt": …, "completion": …} line, a batch request {"custom_id": …, "body": {"messages": […]}} or a batch result {"custom_id": …, "response": {"body": {"choices": [{"message": …}]}}}';

/**
 * JSONL of conversations, one per line:
 * - fine-tuning files: `{"messages": [...]}` (plus `tools`, `parallel_tool_calls`, … kept in metadata);
 * - OpenAI Batch API input lines: `{"custom_id", "method", "url", "body": {"model", "messages"}}`;
 * - OpenAI Batch API output lines: `{"id", "custom_id", "response": {"status_code", "body":
 *   {"model", "choices": [{"message"}], "usage"}}, "error"}`: the reply as one assistant turn
 *   (the request is in the input file); a failed request has no words and becomes a warning;
 * - anything chat-json reads, one value per line (`{id, messages}`, AutoGen `chat_history`, CAMEL).
 * One session per line, id from `custom_id`/`id` or `<file>-<line>`. As JSONL readers do, a line
 * that is not JSON, or not a conversation, is skipped with a warning naming the file and line;
 * a file with no readable line at all is an error.
 */
export const chatJsonlImporter: Importer = {
  name: "chat-jsonl",
  description: "JSONL of conversations: fine-tuning files {messages}, OpenAI batch input/output lines",
  extensions: [".jsonl", ".ndjson"],
  input: "file",
  detect(path, head) {
    const first = head.split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
    if (!/^\s*\{/.test(first) || /"schemaVersion"\s*:/.test(first)) return 0;
    const chat =
      /"(messages|chat_history)"\s*:\s*\[/.test(first) ||
      (/"custom_id"\s*:/.test(first) && /"(body|response)"\s*:/.test(first)) ||
      (/"(prompt|query)"\s*:\s*"/.test(first) && /"(completion|response)"\s*:\s*"/.test(first));
    if (!chat) return 0;
    // One JSON object per line: the first line closes its own object.
    const oneLine = /\}\s*$/.test(first);
    return /\.(jsonl|ndjson)$/i.test(path) ? 0.95 : oneLine && /\n\s*\{/.test(head) ? 0.7 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const stem = baseName(file).replace(/\.[^.]*$/, "");
    const agents = new Set(options.agents ?? []);
    const result: ImportResult = { sessions: [], codes: [], warnings: [] };
    let lineNo = 0;
    let nonEmpty = 0;
    // Two batch runs appended to one file repeat their custom_ids: each repeat is its own session.
    const seen = new Set<string>();
    for await (const line of input.lines()) {
      lineNo++;
      if (line.trim() === "") continue;
      nonEmpty++;
      try {
        const value = parseJson(line, file, lineNo - 1);
        const conversations = lineConversations(value, file, lineNo, stem, result.warnings);
        for (const c of conversations) {
          if (seen.has(c.id)) {
            const id = `${c.id}-line-${lineNo}`;
            result.warnings.push(
              `${file}:${lineNo}: id "${c.id}" was already used by an earlier line (two runs appended in one file?); imported as session "${id}"`,
            );
            c.id = id;
          }
          seen.add(c.id);
          result.sessions.push(chatSession(c, file, agents));
        }
      } catch (error) {
        if (!(error instanceof ImportError)) throw error;
        // The located reason, then what happened to the line.
        result.warnings.push(`${error.message.replace(/^([^:]+): \$/, `$1:${lineNo}: $`)}; line ${lineNo} skipped`);
      }
    }
    if (result.sessions.length === 0 && nonEmpty > 0) {
      throw new ImportError({
        file,
        line: 1,
        problem: `none of its ${nonEmpty} line(s) is a conversation (${result.warnings[0] ?? "no reason"})`,
        expected: `one JSON object per line: ${LINE_SHAPES}`,
      });
    }
    if (nonEmpty === 0) result.warnings.push(`${file}: empty file; nothing imported`);
    return result;
  },
};

/** Where a batch request's body holds the conversation: chat completions `messages`, Responses API `input`. */
const BODY_LISTS = ["messages", "input"] as const;

function lineConversations(value: unknown, file: string, line: number, stem: string, warnings: string[]): ChatConversation[] {
  const fallbackId = `${stem}-${line}`;
  const metadata = (extra?: JsonObject): Record<string, unknown> => ({ source: { file, format: "chat-jsonl", line }, ...(extra ? { extra } : {}) });
  if (isObject(value) && typeof value.custom_id === "string" && (isObject(value.response) || "error" in value) && !("body" in value)) {
    return batchResult(value, file, line, metadata, warnings);
  }
  const listKey = isObject(value) && isObject(value.body) ? BODY_LISTS.find((k) => Array.isArray((value.body as JsonObject)[k])) : undefined;
  if (isObject(value) && isObject(value.body) && listKey) {
    // A batch request: the conversation sent, with model and settings as metadata.
    const extra = { ...rest(value, ["body"]), ...rest(value.body, [listKey]) };
    return [
      {
        messages: value.body[listKey] as unknown[],
        listPath: `$.body.${listKey}`,
        id: slugify(value.custom_id === undefined || value.custom_id === null ? fallbackId : idText(value.custom_id, file, "$.custom_id")),
        metadata: metadata(extra),
      },
    ];
  }
  return conversationsOf(value, file, fallbackId).map((c) => ({ ...c, metadata: { ...c.metadata, source: { file, format: "chat-jsonl", line } } }));
}

/** A batch output line: its reply (choices[].message, or Responses API output messages) as a conversation. */
function batchResult(
  value: JsonObject,
  file: string,
  line: number,
  metadata: (extra?: JsonObject) => Record<string, unknown>,
  warnings: string[],
): ChatConversation[] {
  const id = slugify(value.custom_id as string);
  const response = isObject(value.response) ? value.response : undefined;
  const body = response && isObject(response.body) ? response.body : undefined;
  if (!body) {
    const error =
      isObject(value.error) && typeof value.error.message === "string"
        ? `${typeof value.error.code === "string" ? value.error.code + ": " : ""}${value.error.message}`
        : JSON.stringify(value.error ?? null);
    warnings.push(`${file}:${line}: batch request "${value.custom_id as string}" has no response (error: ${error}); no session for it`);
    return [];
  }
  const listPath = "$.response.body";
  let messages: unknown[];
  let paths: string[];
  if (Array.isArray(body.choices)) {
    messages = body.choices.map((c) => (isObject(c) ? c.message : c));
    paths = body.choices.map((_, i) => `${listPath}.choices[${i}].message`);
  } else if (Array.isArray(body.output)) {
    // Responses API: output items of type "message" are the reply; reasoning and tool items are kept in metadata.
    const indices = body.output.flatMap((o, i) => (isObject(o) && o.type === "message" ? [i] : []));
    const output = body.output;
    messages = indices.map((i) => output[i]);
    paths = indices.map((i) => `${listPath}.output[${i}]`);
  } else {
    throw new ImportError({
      file,
      line,
      problem: "a batch result without choices or output",
      expected: 'response.body.choices [{"message": …}] (chat completions) or response.body.output (responses)',
    });
  }
  const extra: JsonObject = { ...rest(value, ["response"]), ...rest(response!, ["body"]), ...rest(body, ["choices", "output"]) };
  // Finish reasons and logprobs live beside each choice's message: kept too.
  if (Array.isArray(body.choices)) extra.choices = body.choices.map((c) => (isObject(c) ? (rest(c, ["message"]) ?? {}) : {}));
  if (Array.isArray(body.output)) extra.output = body.output.filter((o) => !(isObject(o) && o.type === "message"));
  return [{ messages, listPath, paths, id, metadata: metadata(extra) }];
}
