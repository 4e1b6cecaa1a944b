import type { ParticipantKind, TurnType } from "../../transcript/schema.js";
import type { Importer, ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, childPath, expectArray, expectObject, idText, isObject, optionalString, rest, shapeError } from "./json-shape.js";

const EXPECTED =
  'a DiscordChatExporter JSON export {"guild": …, "channel": …, "messages": [{"id": …, "type": …, "timestamp": …, "content": …, "author": {"id": …, "name": …}}]}';
/** Message types that are people talking; the rest (joins, pins, calls, thread notices) are system turns. */
const SPEECH_TYPES = new Set(["Default", "Reply", "ThreadStarterMessage", "ChatInputCommand", "ContextMenuCommand"]);

/**
 * Discord channel exports written by DiscordChatExporter (JSON). One session per channel.
 * - Each message is a turn: `content` verbatim; embeds, attachments, stickers, reactions,
 *   mentions and the rest are kept whole in turn metadata; a reply names its parent turn
 *   (`replyTo`, or the raw `reference` when the parent is not in the export).
 * - Authors are keyed by id and named by nickname, else name. As in Slack exports, bots
 *   (`isBot`) are AI participants unless `--agents` is given, in which case only the listed
 *   ones are and other bots are `system`.
 * - Non-speech message types (GuildMemberJoin, ChannelPinnedMessage, Call, …) are `system` turns.
 */
export const discordImporter: Importer = {
  name: "discord",
  description: "Discord channel export (DiscordChatExporter JSON)",
  extensions: [".json"],
  input: "file",
  detect(_path, head) {
    if (!/"messages"\s*:\s*\[/.test(head)) return 0;
    const marks = [/"guild"\s*:\s*\{/, /"channel"\s*:\s*\{/, /"author"\s*:\s*\{/, /"isBot"\s*:/, /"exportedAt"\s*:/].filter((re) => re.test(head)).length;
    return marks >= 3 ? 0.95 : 0;
  },
  async parse(input, options) {
    const file = input.path;
    const root = expectObject(parseJson(await input.readText(), file), file, "$", EXPECTED);
    const messages = expectArray(root.messages, file, "$.messages", EXPECTED);
    const channel = isObject(root.channel) ? root.channel : undefined;
    const metadata: Record<string, unknown> = { source: { file, format: "discord" }, ...rest(root, ["messages"]) };
    const title = channel && typeof channel.name === "string" ? channel.name : undefined;
    const builder = new SessionBuilder(baseName(file).replace(/\.[^.]*$/, ""), title, metadata);
    const agents = new Set(options.agents ?? []);
    const turnOf = new Map<string, string>();
    let origin: number | undefined;
    messages.forEach((raw, i) => {
      const path = childPath("$.messages", i);
      const msg = expectObject(raw, file, path, 'a message {"id": …, "content": …, "author": {…}}');
      const author = expectObject(msg.author, file, childPath(path, "author"), 'an author {"id": …, "name": …}');
      const id = author.id === undefined || author.id === null ? "" : idText(author.id, file, childPath(childPath(path, "author"), "id"));
      const name =
        optionalString(author, "nickname", file, childPath(path, "author")) ||
        optionalString(author, "name", file, childPath(path, "author")) ||
        id ||
        "Unknown";
      const bot = author.isBot === true;
      const listed = agents.has(name) || agents.has(id) || (typeof author.name === "string" && agents.has(author.name));
      const kind: ParticipantKind = listed ? "ai" : bot ? (agents.size === 0 ? "ai" : "system") : "human";
      const speaker = builder.participant(id || name, { name, kind, metadata: author });
      const content = msg.content === undefined || msg.content === null ? "" : msg.content;
      if (typeof content !== "string") throw shapeError(file, childPath(path, "content"), "the message text as a string", content);
      const type: TurnType = typeof msg.type === "string" && !SPEECH_TYPES.has(msg.type) ? "system" : "message";
      const meta: Record<string, unknown> = rest(msg, ["author", "content", "timestamp"]) ?? {};
      for (const key of ["attachments", "embeds", "stickers", "reactions", "mentions", "inlineEmojis"])
        if (Array.isArray(meta[key]) && (meta[key] as unknown[]).length === 0) delete meta[key];
      const ref = isObject(msg.reference) && typeof msg.reference.messageId === "string" ? turnOf.get(msg.reference.messageId) : undefined;
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
