import { existsSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { ParticipantKind, SessionInput } from "../../transcript/schema.js";
import { encodingLabel } from "../encoding.js";
import { readTextFile } from "../input.js";
import { ImportError, type Importer, type ImportOptions, type ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { childPath, expectArray, expectObject, isObject, optionalString, rest, shapeError, type JsonObject } from "./json-shape.js";

/** Events that are not anybody's words: skipped, counted in the warnings. */
const MEMBERSHIP = new Set(["channel_join", "channel_leave", "group_join", "group_leave"]);
/** Channel housekeeping posted by a user: kept as `system` turns. */
const HOUSEKEEPING = new Set([
  "channel_topic",
  "channel_purpose",
  "channel_name",
  "channel_archive",
  "channel_unarchive",
  "group_topic",
  "group_purpose",
  "group_name",
  "pinned_item",
  "tombstone",
]);
/** Message keys that become turn fields; the rest (reactions, blocks, client_msg_id…) stays in metadata. */
const USED_KEYS = new Set([
  "type",
  "user",
  "text",
  "ts",
  "thread_ts",
  "subtype",
  "bot_id",
  "username",
  "files",
  "edited",
  "user_profile",
  "parent_user_id",
  "replies",
  "reply_users",
  "reply_count",
  "reply_users_count",
  "latest_reply",
  "blocks",
]);
/** Integration events: posted by the human who added or removed the bot (their `bot_id` names the integration, not the poster). */
const BOT_EVENTS_BY_PEOPLE = new Set(["bot_add", "bot_remove", "bot_enable", "bot_disable"]);
const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.json$/;
const CHANNEL_LISTS = ["channels.json", "groups.json", "mpims.json", "dms.json"];

/**
 * Slack workspace export: a folder with `users.json`, `channels.json` (and `groups.json`,
 * `mpims.json`, `dms.json` for private channels and DMs), and one folder per channel of daily
 * `YYYY-MM-DD.json` message arrays. One session per channel (title `#name`), messages in `ts`
 * order.
 *
 * - Speakers: users.json `real_name`, else `profile.display_name`, else `name`, else the id.
 * - Mentions `<@U123>` stay verbatim in the text and become `addressees`.
 * - Threads: replies carry `metadata.thread` (the thread's `thread_ts`) and `metadata.parent`
 *   (the turn id of the thread's first message, when it is in the export).
 * - Bots (`bot_id` or `subtype: "bot_message"` without a known human `user`, or a user with
 *   `is_bot`; `bot_add`/`bot_remove` events are posted by the human who added the integration,
 *   so they are that human's): our choice is that,
 *   without `--agents`, every bot is an AI participant (in human-AI team studies the Slack bots
 *   are the agents); with `--agents`, only the bots (or users) named there are `ai` and other
 *   bots are `system` (notifiers and integrations). Users named in `--agents` are `ai` too.
 * - `channel_join`/`channel_leave` events are skipped and counted in the warnings.
 * - `ts` becomes the ISO `timestamp`, `start` is seconds since the channel's first message, and
 *   the raw `ts` is kept in `metadata.ts`; edits are recorded in `metadata.edited`.
 * - A message with `files` is a `file` turn; `metadata.files` lists the names (and titles,
 *   types and any text preview).
 * - A bot post whose words are only in `attachments` (`pretext`, `title`, `text`, `fields`, else
 *   `fallback`) gets that text as its turn text; `metadata.attachments` keeps the original
 *   structure and `metadata.textFrom` says "attachments".
 * - Bots are named by `username` or `bot_profile.name` (from any of their messages), not their
 *   raw `B…` id, when the export has a name for them.
 * - A legacy `file_comment` without `user` is the commenter's (`comment.user`); a message with no
 *   poster at all is kept under an "unknown speaker" with a warning naming its file and path.
 */
export const slackExportImporter: Importer = {
  name: "slack-export",
  description: "Slack workspace export folder (users.json, channels.json, <channel>/YYYY-MM-DD.json)",
  extensions: [],
  input: "directory",
  detect(path) {
    try {
      if (!statSync(path).isDirectory()) return 0;
      const users = existsSync(join(path, "users.json"));
      const channels = CHANNEL_LISTS.some((f) => existsSync(join(path, f)));
      return users && channels ? 0.95 : users || channels ? 0.6 : 0;
    } catch {
      return 0;
    }
  },
  async parse(input, options) {
    const dir = input.path;
    const warnings: string[] = [];
    if (!isDirectory(dir))
      throw new ImportError({
        file: dir,
        problem: "not a folder",
        expected: "a Slack export folder with users.json, channels.json and one folder per channel",
      });
    const users = await readUsers(dir, warnings);
    const channels = await readChannels(dir, warnings);
    const folders = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name);
    if (!users.size && channels.size === 0 && folders.length === 0) {
      throw new ImportError({
        file: dir,
        problem: "no users.json, channels.json or channel folders found",
        expected: "a Slack export folder (unzip the export first)",
      });
    }
    const names = [...new Set([...[...channels.values()].map((c) => c.folder), ...folders])].sort();
    const sessions: SessionInput[] = [];
    for (const name of names) {
      if (!folders.includes(name)) {
        warnings.push(`${dir}: channel "${name}" is listed but has no folder; no messages exported`);
        continue;
      }
      if (![...channels.values()].some((c) => c.folder === name) && channels.size > 0)
        warnings.push(`${dir}: folder "${name}" is not in the channel lists; imported as a channel anyway`);
      const session = await importChannel(
        dir,
        name,
        [...channels.values()].find((c) => c.folder === name),
        users,
        options,
        warnings,
      );
      if (session) sessions.push(session);
    }
    return { sessions, codes: [], warnings } satisfies ImportResult;
  },
};

interface User {
  id: string;
  name: string;
  isBot: boolean;
  meta: JsonObject;
}

interface Channel {
  id?: string;
  folder: string;
  meta: JsonObject;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A JSON file of the export, decoded like every input (encoding.ts); a file not in UTF-8 is reported. */
async function readJsonFile(path: string, warnings: string[]): Promise<unknown> {
  const { text, encoding } = await readTextFile(path);
  if (encoding.name !== "utf-8")
    warnings.push(
      `${path}: read as ${encodingLabel(encoding.name)} (${encoding.source === "detected" ? "not valid UTF-8; detected" : "byte-order mark or NUL pattern"})`,
    );
  return parseJson(text, path);
}

async function readUsers(dir: string, warnings: string[]): Promise<Map<string, User>> {
  const file = join(dir, "users.json");
  const users = new Map<string, User>();
  if (!existsSync(file)) {
    warnings.push(`${dir}: no users.json; speakers are shown by their Slack ids`);
    return users;
  }
  const list = expectArray(await readJsonFile(file, warnings), file, "$", "an array of users");
  list.forEach((raw, i) => {
    const path = `$[${i}]`;
    const u = expectObject(raw, file, path, "a user object {id, name, real_name, profile}");
    const id = optionalString(u, "id", file, path);
    if (id === undefined) throw shapeError(file, childPath(path, "id"), 'the user\'s id (a string such as "U01ABC")', u.id);
    const profile = isObject(u.profile) ? u.profile : {};
    const pick = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v : undefined);
    const name = pick(u.real_name) ?? pick(profile.real_name) ?? pick(profile.display_name) ?? pick(u.name) ?? id;
    const meta: JsonObject = { slackId: id };
    if (typeof u.name === "string") meta.handle = u.name;
    if (typeof profile.display_name === "string" && profile.display_name !== "") meta.displayName = profile.display_name;
    if (typeof profile.title === "string" && profile.title !== "") meta.title = profile.title;
    if (u.deleted === true) meta.deleted = true;
    const isBot = u.is_bot === true || u.is_app_user === true;
    if (typeof profile.bot_id === "string") users.set(profile.bot_id, { id, name, isBot: true, meta });
    users.set(id, { id, name, isBot, meta });
  });
  return users;
}

async function readChannels(dir: string, warnings: string[]): Promise<Map<string, Channel>> {
  const channels = new Map<string, Channel>();
  for (const listName of CHANNEL_LISTS) {
    const file = join(dir, listName);
    if (!existsSync(file)) continue;
    const list = expectArray(await readJsonFile(file, warnings), file, "$", "an array of channels");
    list.forEach((raw, i) => {
      const path = `$[${i}]`;
      const c = expectObject(raw, file, path, "a channel object {id, name}");
      const id = optionalString(c, "id", file, path);
      // DMs have no name; their folder is named by id.
      const folder = optionalString(c, "name", file, path) ?? id;
      if (folder === undefined) throw shapeError(file, path, 'a channel with a "name" or "id"', c);
      const meta: JsonObject = { name: folder, list: listName };
      if (id !== undefined) meta.id = id;
      for (const key of ["topic", "purpose"]) if (isObject(c[key]) && typeof c[key].value === "string" && c[key].value !== "") meta[key] = c[key].value;
      channels.set(id ?? folder, { id, folder, meta });
    });
  }
  return channels;
}

interface Located {
  msg: JsonObject;
  file: string;
  path: string;
  /** Microseconds since the epoch, exact (ts has six decimals). */
  micros: number;
  ts: string;
}

async function importChannel(
  dir: string,
  folder: string,
  channel: Channel | undefined,
  users: Map<string, User>,
  options: ImportOptions,
  warnings: string[],
): Promise<SessionInput | undefined> {
  const folderPath = join(dir, folder);
  const entries = (await readdir(folderPath)).sort();
  const others = entries.filter((f) => !DAY_FILE.test(f) && !f.startsWith("."));
  if (others.length > 0)
    warnings.push(
      `${folderPath}: ignored ${others.length} file(s) that are not daily YYYY-MM-DD.json logs (${others.slice(0, 3).join(", ")}${others.length > 3 ? ", …" : ""})`,
    );
  const located: Located[] = [];
  for (const day of entries.filter((f) => DAY_FILE.test(f))) {
    const file = join(folderPath, day);
    const list = expectArray(await readJsonFile(file, warnings), file, "$", "an array of Slack messages");
    list.forEach((raw, i) => {
      const path = `$[${i}]`;
      const msg = expectObject(raw, file, path, "a Slack message object {type, user, text, ts}");
      const tsValue = msg.ts;
      const ts = typeof tsValue === "number" ? String(tsValue) : tsValue;
      if (typeof ts !== "string" || tsIso(ts) === undefined)
        throw shapeError(file, childPath(path, "ts"), 'a Slack timestamp such as "1700000000.123456"', tsValue);
      located.push({ msg, file, path, micros: tsMicros(ts), ts });
    });
  }
  // Stable sort keeps the export's order for messages with the same ts.
  located.sort((a, b) => a.micros - b.micros);

  const channelName = channel?.folder ?? folder;
  const metadata: Record<string, unknown> = { source: { file: dir, format: "slack-export" }, channel: channel?.meta ?? { name: folder } };
  if (located.length > 0) metadata.date = tsIso(located[0].ts)?.slice(0, 10);
  const session = new SessionBuilder(channelName, `#${channelName}`, metadata);
  const agents = new Set(options.agents ?? []);
  const turnByTs = new Map<string, string>();
  let skipped = 0;
  let orphans = 0;
  // Seconds count from the first message that becomes a turn (not from a skipped join).
  // (A subtype that is not a string is named as an error below, where its message is read.)
  const origin = located.find((l) => !(typeof l.msg.subtype === "string" && MEMBERSHIP.has(l.msg.subtype)))?.micros ?? 0;

  const speakerFor = (key: string, name: string, bot: boolean, meta: JsonObject | undefined): string => {
    const listed = agents.has(name) || agents.has(key);
    const kind: ParticipantKind = listed ? "ai" : bot ? (agents.size === 0 ? "ai" : "system") : "human";
    return session.participant(key, { name, kind, role: bot ? "bot" : undefined, metadata: meta });
  };
  // A bot's name from any of its messages, so a bot is not named by its raw B… id only because
  // its first message lacked `username`/`bot_profile`.
  const botNames = new Map<string, string>();
  for (const { msg } of located) {
    if (typeof msg.bot_id !== "string" || botNames.has(msg.bot_id)) continue;
    const name = nonEmpty(msg.username) ?? (isObject(msg.bot_profile) ? nonEmpty(msg.bot_profile.name) : undefined);
    if (name !== undefined) botNames.set(msg.bot_id, name);
  }
  let unknownPosters = 0;
  const userSpeaker = (id: string): string => {
    const u = users.get(id);
    return speakerFor(u?.id ?? id, u?.name ?? id, u?.isBot ?? false, u?.meta ?? { slackId: id });
  };

  for (const { msg, file, path, micros, ts } of located) {
    const subtype = optionalString(msg, "subtype", file, path);
    if (subtype && MEMBERSHIP.has(subtype)) {
      skipped++;
      continue;
    }
    const rawText = msg.text === undefined || msg.text === null ? "" : msg.text;
    if (typeof rawText !== "string") throw shapeError(file, childPath(path, "text"), "the message text as a string", rawText);
    let text = rawText;
    let textFrom: string | undefined;
    if (text.trim() === "" && Array.isArray(msg.attachments)) {
      const fromAttachments = attachmentText(msg.attachments);
      if (fromAttachments !== "") {
        text = rawText === "" ? fromAttachments : `${rawText}${fromAttachments}`;
        textFrom = "attachments";
      }
    }
    let user = optionalString(msg, "user", file, path);
    let userFrom: string | undefined;
    // Legacy file comments carry the commenter in `comment.user`, not `user`.
    if (user === undefined && isObject(msg.comment) && typeof msg.comment.user === "string" && msg.comment.user !== "") {
      user = msg.comment.user;
      userFrom = "comment.user";
    }
    const botId = optionalString(msg, "bot_id", file, path);
    const username = optionalString(msg, "username", file, path);
    const botName = isObject(msg.bot_profile) ? nonEmpty(msg.bot_profile.name) : undefined;
    const knownUser = user !== undefined ? users.get(user) : undefined;
    // bot_add/bot_remove carry the integration's bot_id but are posted by a person.
    const byPerson = subtype !== undefined && BOT_EVENTS_BY_PEOPLE.has(subtype);
    const isBot = !byPerson && (knownUser ? knownUser.isBot : botId !== undefined || subtype === "bot_message");
    let speaker: string;
    if (subtype === "tombstone") {
      // A deleted message's placeholder ("This message was deleted.", posted as Slackbot) keeps
      // its place (a thread hangs on it) but is no one's words: a system turn marked deleted.
      speaker = session.participant("?deleted", { name: "deleted message", kind: "system", metadata: { placeholder: true } });
    } else if (isBot && (user === undefined || (knownUser === undefined && botId !== undefined))) {
      const key = botId ?? nonEmpty(username) ?? botName ?? "bot";
      const known = botId ? users.get(botId) : undefined;
      const name = nonEmpty(username) ?? botName ?? (botId ? botNames.get(botId) : undefined) ?? known?.name ?? key;
      speaker = speakerFor(known?.id ?? key, name, true, {
        ...(botId ? { botId } : {}),
        ...(user !== undefined ? { slackId: user } : {}),
        ...(known?.meta ?? {}),
      });
    } else if (user !== undefined) {
      const profileName = isObject(msg.user_profile) ? nonEmpty(msg.user_profile.real_name) : undefined;
      speaker = speakerFor(user, knownUser?.name ?? profileName ?? user, isBot, knownUser?.meta ?? { slackId: user });
    } else {
      // Never lose a whole export to one message without a poster: keep its words, say where it is.
      unknownPosters++;
      warnings.push(
        `${file}: ${path}: message without "user", "comment.user" or "bot_id"${subtype ? ` (subtype ${subtype})` : ""}; kept under "unknown speaker"`,
      );
      speaker = session.participant("?unknown", { name: "unknown speaker", kind: "human", metadata: { unknown: true } });
    }

    const addressees: string[] = [];
    for (const m of text.matchAll(/<@([A-Z0-9]+)(?:\|[^>]*)?>/g)) addressees.push(userSpeaker(m[1]));

    const meta: JsonObject = { ts, ...(rest(msg, USED_KEYS) ?? {}) };
    if (subtype) meta.subtype = subtype;
    if (subtype === "tombstone") {
      meta.deleted = true;
      // The placeholder is no one's words, but who Slack says posted it is still kept.
      if (user !== undefined) meta.slackUser = user;
    }
    if (userFrom) meta.userFrom = userFrom;
    if (textFrom) meta.textFrom = textFrom;
    const thread = msg.thread_ts;
    if (!(thread === undefined || thread === null || typeof thread === "string" || typeof thread === "number")) {
      throw shapeError(file, childPath(path, "thread_ts"), 'the thread\'s Slack timestamp such as "1700000000.123456"', thread);
    }
    const threadTs = thread === undefined || thread === null ? undefined : String(thread);
    if (threadTs !== undefined && threadTs !== ts) {
      meta.thread = threadTs;
      const parent = turnByTs.get(threadTs);
      if (parent) meta.parent = parent;
      else orphans++;
    } else if (threadTs !== undefined) meta.thread = threadTs;
    if (isObject(msg.edited)) {
      const e = msg.edited;
      const at = typeof e.ts === "string" ? tsIso(e.ts) : undefined;
      meta.edited = { ...(typeof e.ts === "string" ? { ts: e.ts } : {}), ...(at ? { at } : {}), ...(typeof e.user === "string" ? { by: e.user } : {}) };
    }
    if (!text && Array.isArray(msg.blocks) && msg.blocks.length > 0) meta.blocks = msg.blocks;
    let type: "message" | "system" | "file" = subtype && HOUSEKEEPING.has(subtype) ? "system" : "message";
    if (msg.files !== undefined && msg.files !== null) {
      const files = expectArray(msg.files, file, childPath(path, "files"), "an array of file objects");
      meta.files = files.map((f, i) => fileInfo(f, file, childPath(childPath(path, "files"), i)));
      if (files.length > 0) type = "file";
    }
    const id = session.turn({ speaker, text, type, timestamp: tsIso(ts), start: (micros - origin) / 1e6, addressees, metadata: meta });
    if (!turnByTs.has(ts)) turnByTs.set(ts, id);
  }
  if (unknownPosters > 0) warnings.push(`#${channelName}: ${unknownPosters} message(s) without a poster kept under "unknown speaker"`);
  if (skipped > 0) warnings.push(`#${channelName}: skipped ${skipped} join/leave event(s)`);
  if (orphans > 0)
    warnings.push(`#${channelName}: ${orphans} thread repl(y/ies) whose parent message is not in the export (metadata.thread kept, no metadata.parent)`);
  if (session.turnCount === 0) {
    warnings.push(`#${channelName}: no messages; no session created`);
    return undefined;
  }
  return session.build();
}

const nonEmpty = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

/**
 * The words of legacy message attachments, one per line: `pretext`, `author_name`, `title`,
 * `text` and `fields` ("title: value"); `fallback` (a plain-text summary of the rest) only for
 * an attachment with none of those.
 */
function attachmentText(attachments: unknown[]): string {
  const lines: string[] = [];
  for (const a of attachments) {
    if (!isObject(a)) continue;
    const own: string[] = [];
    for (const key of ["pretext", "author_name", "title", "text"]) {
      const v = nonEmpty(a[key]);
      if (v !== undefined) own.push(v);
    }
    if (Array.isArray(a.fields)) {
      for (const f of a.fields) {
        if (!isObject(f)) continue;
        const title = nonEmpty(f.title);
        const value = nonEmpty(f.value);
        if (title !== undefined || value !== undefined) own.push(title !== undefined && value !== undefined ? `${title}: ${value}` : (title ?? value)!);
      }
    }
    const fallback = nonEmpty(a.fallback);
    if (own.length === 0 && fallback !== undefined) own.push(fallback);
    lines.push(...own);
  }
  return lines.join("\n");
}

function fileInfo(raw: unknown, file: string, path: string): JsonObject {
  const f = expectObject(raw, file, path, "a file object {name, title}");
  const out: JsonObject = {};
  for (const key of ["name", "title", "mimetype", "filetype", "url_private", "preview", "plain_text", "mode"]) {
    if (typeof f[key] === "string") out[key] = f[key];
  }
  if (out.name === undefined && typeof f.id === "string") out.id = f.id;
  return out;
}

/** "1700000000.123456" -> 1700000000123456 (exact: below 2^53 until the year 2255). */
function tsMicros(ts: string): number {
  const [sec, frac = ""] = ts.split(".");
  return Number(sec) * 1e6 + Number((frac + "000000").slice(0, 6));
}

/** ISO date-time of a Slack ts, or undefined when it is not one. */
function tsIso(ts: string): string | undefined {
  if (!/^\d{1,12}(\.\d+)?$/.test(ts)) return undefined;
  const date = new Date(tsMicros(ts) / 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
