import type { ParticipantKind, TurnType } from "../../transcript/schema.js";
import type { Importer, ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, childPath, expectArray, expectObject, idText, isObject, optionalString, rest, shapeError } from "./json-shape.js";

const EXPECTED =
  'a DiscordChatExporter JSON export {"guild": …, "channel": …, "messages": [{"id": …, "type": …, "timestamp": …, "content": …, "author": {"id": …, "name": …}}]}';
/** Message types that are people talking; the rest (joins, pins, calls, thread notices) are system turns. */
const SPEECH_TYPES = new Set(["Default", "Reply", "ThreadStarterMessage", "ChatInputCommand", "ContextMenuCommand"]);
/** The same types as the Discord API numbers them (0 default, 19 reply, 20 and 23 commands, 21 thread starter). */
const SPEECH_TYPE_NUMBERS = new Set([0, 19, 20, 21, 23]);

/**
 * Discord channel exports written by DiscordChatExporter (JSON). One session per channel.
 * - Each message is a turn: `content` verbatim; embeds, attachments, stickers, reactions,
 *   mentions and the rest are kept whole in turn metadata; a reply names its parent turn
 *   (`replyTo`, or the raw `reference` when the parent is not in the export).
 * - Authors are keyed by id and named by nickname, else name. As in Slack exports, bots
 *   (`isBot`) are AI participants unless `--agents` is given, in which case only the listed
 *   ones are and other bots are `system`.
 * - Non-speech message types (GuildMemberJoin, ChannelPinnedMessage, Call, …) are `system` turns.
 * Also a raw Discord API message array (`GET /channels/{id}/messages`, as bots and transcript
 * tools save it): `[{id, type: 0, content, timestamp, author: {id, username, global_name, bot},
 * message_reference}]`, read with the same rules.
 */
export const discordImporter: Importer = {
  name: "discord",
  description: "Discord channel export (DiscordChatExporter JSON)",
  extensions: [".json"],
  input: "file",
  detect(_path, head) {
    const marks = [/"guild"\s*:\s*\{/, /"channel"\s*:\s*\{/, /"author"\s*:\s*\{/, /"isBot"\s*:/, /"exportedAt"\s*:/].filter((re) => re.test(head)).length;
    if (marks >= 3) return 0.95;
    return /^\s*\[\s*\{/.test(head) && /"author"\s*:\s*\{/.test(head) && /"username"\s*:/.test(head) && /"timestamp"\s*:/.test(head) ? 0.85 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const json = parseJson(await input.readText(), file);
    const raw = Array.isArray(json);
    const root = raw ? {} : expectObject(json, file, "$", EXPECTED);
    const listPath = raw ? "$" : "$.messages";
    const messages = raw ? json : expectArray(root.messages, file, listPath, EXPECTED);
    const channel = isObject(root.channel) ? root.channel : undefined;
    const metadata: Record<string, unknown> = { source: { file, format: "discord" }, ...rest(root, ["messages"]) };
    const title = channel && typeof channel.name === "string" ? channel.name : undefined;
    const builder = new SessionBuilder(baseName(file).replace(/\.[^.]*$/, ""), title, metadata);
    const agents = new Set(options.agents ?? []);
    const turnOf = new Map<string, string>();
    let origin: number | undefined;
    messages.forEach((raw, i) => {
      const path = childPath(listPath, i);
      const msg = expectObject(raw, file, path, 'a message {"id": …, "content": …, "author": {…}}');
      const author = expectObject(msg.author, file, childPath(path, "author"), 'an author {"id": …, "name": …}');
      const id = author.id === undefined || author.id === null ? "" : idText(author.id, file, childPath(childPath(path, "author"), "id"));
      const name =
        optionalString(author, "nickname", file, childPath(path, "author")) ||
        optionalString(author, "name", file, childPath(path, "author")) ||
        optionalString(author, "global_name", file, childPath(path, "author")) ||
        optionalString(author, "username", file, childPath(path, "author")) ||
        id ||
        "Unknown";
      const bot = author.isBot === true || author.bot === true;
      const listed = agents.has(name) || agents.has(id) || (typeof author.name === "string" && agents.has(author.name));
      const kind: ParticipantKind = listed ? "ai" : bot ? (agents.size === 0 ? "ai" : "system") : "human";
      const speaker = builder.participant(id || name, { name, kind, metadata: author });
      const content = msg.content === undefined || msg.content === null ? "" : msg.content;
      if (typeof content !== "string") throw shapeError(file, childPath(path, "content"), "the message text as a string", content);
      const speech = typeof msg.type === "string" ? SPEECH_TYPES.has(msg.type) : typeof msg.type === "number" ? SPEECH_TYPE_NUMBERS.has(msg.type) : true;
      const type: TurnType = speech ? "message" : "system";
      const meta: Record<string, unknown> = rest(msg, ["author", "content", "timestamp"]) ?? {};
      for (const key of ["attachments", "embeds", "stickers", "reactions", "mentions", "inlineEmojis"])
        if (Array.isArray(meta[key]) && (meta[key] as unknown[]).length === 0) delete meta[key];
      const reference = isObject(msg.reference) ? msg.reference.messageId : isObject(msg.message_reference) ? msg.message_reference.message_id : undefined;
      const ref = typeof reference === "string" ? turnOf.get(reference) : undefined;
      if (ref) meta.replyTo = ref;
      const timestamp = optionalString(msg, "timestamp", file, path);
      const ms = timestamp === undefined ? NaN : Date.parse(timestamp);
      origin ??= Number.isNaN(ms) ? undefined : ms;
      const turn = builder.turn({
        speaker,
        text: content,
        type,
        timestamp,
        start: Number.isNaN(ms) || origin === undefined ? undefined : (ms - origin) / 1000,
        metadata: meta,
      });
      if (typeof msg.id === "string") turnOf.set(msg.id, turn);
    });
    const result: ImportResult = { sessions: [builder.build()], codes: [], warnings: [] };
    if (messages.length === 0) result.warnings.push(`${file}: no messages; imported an empty session`);
    return result;
  },
};
