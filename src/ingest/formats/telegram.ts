import type { TurnType } from "../../transcript/schema.js";
import type { Importer, ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, childPath, expectArray, expectObject, idText, isObject, optionalString, rest, shapeError, type JsonObject } from "./json-shape.js";

const EXPECTED =
  'a Telegram Desktop JSON export: one chat {"name": …, "type": …, "messages": [{"id": …, "type": "message", "date": …, "from": …, "text": …}]} or a full export {"chats": {"list": [chat, …]}}';

/**
 * Telegram Desktop's JSON export (Settings > Export chat history, "Machine-readable JSON"): one
 * chat (result.json of "Export chat history") or a whole account (`chats.list`). One session per
 * chat, id from its name (else its id).
 * - `type: "message"`: a turn of `from` (keyed by `from_id`). `text` is a string or a list of
 *   strings and `{type, text}` entities (links, bold, mentions): joined in order, verbatim; the
 *   entity list stays in turn metadata, as do replies (`reply_to_message_id`, and `replyTo`
 *   naming the turn), edits, forwards, media and the rest.
 * - `type: "service"` (group created, member added, pinned message, call): a system turn of a
 *   "Telegram" system participant, the person who acted in metadata (`actor`), never that
 *   person's words.
 * Telegram does not mark bots in exports: name them with --agents.
 */
export const telegramImporter: Importer = {
  name: "telegram",
  description: "Telegram Desktop JSON export (one chat's result.json, or a whole account's chats.list)",
  extensions: [".json"],
  input: "file",
  detect(_path, head) {
    if (/"date_unixtime"\s*:/.test(head)) return 0.96;
    return /"from_id"\s*:/.test(head) && /"text_entities"\s*:/.test(head) ? 0.96 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const root = expectObject(parseJson(await input.readText(), file), file, "$", EXPECTED);
    const chats: { chat: JsonObject; path: string }[] = [];
    if (isObject(root.chats)) {
      const list = expectArray(root.chats.list, file, "$.chats.list", EXPECTED);
      list.forEach((c, i) =>
        chats.push({ chat: expectObject(c, file, childPath("$.chats.list", i), "a chat {name, messages}"), path: childPath("$.chats.list", i) }),
      );
    } else if (Array.isArray(root.messages)) chats.push({ chat: root, path: "$" });
    else throw shapeError(file, "$", EXPECTED, root);
    const agents = new Set(options.agents ?? []);
    const warnings: string[] = [];
    const sessions = chats.map(({ chat, path }) => {
      const name = optionalString(chat, "name", file, path);
      const id = name ?? (chat.id !== undefined && chat.id !== null ? idText(chat.id, file, childPath(path, "id")) : baseName(file).replace(/\.[^.]*$/, ""));
      const builder = new SessionBuilder(id, name, { source: { file, format: "telegram" }, ...rest(chat, ["messages", "name"]) });
      const listPath = childPath(path, "messages");
      const messages = expectArray(chat.messages, file, listPath, EXPECTED);
      const turnOf = new Map<string, string>();
      let origin: number | undefined;
      messages.forEach((raw, i) => {
        const at = childPath(listPath, i);
        const msg = expectObject(raw, file, at, 'a message {"id": …, "type": …, "date": …, "text": …}');
        const service = msg.type === "service";
        const text = messageText(msg.text, file, childPath(at, "text"));
        let speaker: string;
        if (service) speaker = builder.participant("?telegram", { name: "Telegram", kind: "system" });
        else {
          const from = optionalString(msg, "from", file, at);
          const fromId = msg.from_id === undefined || msg.from_id === null ? undefined : idText(msg.from_id, file, childPath(at, "from_id"));
          // A deleted account has `from: null`: its words stay, under its id.
          const shown = from ?? fromId ?? "Deleted Account";
          const listed = agents.has(shown) || (fromId !== undefined && agents.has(fromId));
          speaker = builder.participant(fromId ?? shown, {
            name: shown,
            kind: listed ? "ai" : "human",
            ...(fromId ? { metadata: { telegramId: fromId } } : {}),
          });
        }
        const unix = idOf(msg.date_unixtime);
        const seconds = unix === undefined ? NaN : Number(unix);
        const date = optionalString(msg, "date", file, at);
        const when = Number.isFinite(seconds) ? seconds : date !== undefined ? Date.parse(date) / 1000 : NaN;
        if (!Number.isNaN(when)) origin ??= when;
        const meta: Record<string, unknown> = rest(msg, ["text", "from", "date", "type"]) ?? {};
        const reply = idOf(msg.reply_to_message_id);
        if (reply !== undefined && turnOf.has(reply)) meta.replyTo = turnOf.get(reply);
        const media = ["photo", "file", "sticker_emoji", "media_type"].some((k) => msg[k] !== undefined);
        const type: TurnType = service ? "system" : text === "" && media ? "file" : "message";
        const turn = builder.turn({
          speaker,
          text,
          type,
          ...(date !== undefined ? { timestamp: date } : {}),
          ...(!Number.isNaN(when) && origin !== undefined ? { start: when - origin } : {}),
          metadata: meta,
        });
        const own = idOf(msg.id);
        if (own !== undefined) turnOf.set(own, turn);
      });
      if (messages.length === 0) warnings.push(`${file}: ${listPath}: no messages; imported an empty session`);
      return builder.build();
    });
    const result: ImportResult = { sessions, codes: [], warnings };
    return result;
  },
};

/** A message's `text`: a string, or a list of strings and `{type, text}` entities joined in order. */
function messageText(value: unknown, file: string, path: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) throw shapeError(file, path, "the message text: a string or a list of strings and {type, text} parts", value);
  return value
    .map((part, i) => {
      if (typeof part === "string") return part;
      if (isObject(part) && typeof part.text === "string") return part.text;
      throw shapeError(file, childPath(path, i), 'a text part: a string or {"type": …, "text": …}', part);
    })
    .join("");
}

/**
 * A message id or epoch field as text when it is one (a string or a number), else undefined. The
 * field is kept in the turn's metadata either way; `String()` of another JSON value could throw
 * (an object whose `toString` is not a function) or link a reply to the wrong turn.
 */
function idOf(value: unknown): string | undefined {
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}
