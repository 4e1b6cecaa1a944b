import type { TurnType } from "../../transcript/schema.js";
import type { Importer, ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";
import { SessionBuilder } from "./json-session.js";
import { baseName, childPath, expectArray, expectObject, optionalString, rest, shapeError } from "./json-shape.js";

const EXPECTED =
  'a Facebook Messenger / Instagram JSON export {"participants": [{"name": …}], "messages": [{"sender_name": …, "timestamp_ms": …, "content": …}], "title": …}';

/**
 * Facebook Messenger (and Instagram) chats from "Download your information" in JSON: one
 * `message_N.json` per chunk of a conversation, one session each.
 * - Facebook writes every non-ASCII character as its UTF-8 bytes, each escaped as a Latin-1 code
 *   point ("SchÃ¶n" for "Schön", four characters for one emoji). Every string whose characters
 *   are all below U+0100 and whose bytes are valid UTF-8 is decoded back (repairUtf8AsLatin1),
 *   with a warning counting them; a string that is not valid UTF-8 that way is kept as written.
 * - Messages are stored newest first: turns are in time order.
 * - `content` is the turn's text; photos, videos, files, stickers, reactions, shares and the rest
 *   stay in turn metadata (a message with only media is a `file` turn). Unsent messages keep
 *   their placeholder with `is_unsent` in metadata.
 */
export const messengerImporter: Importer = {
  name: "messenger",
  description: "Facebook Messenger / Instagram JSON export (message_1.json), its mojibake UTF-8 repaired",
  extensions: [".json"],
  input: "file",
  detect(_path, head) {
    return /"sender_name"\s*:/.test(head) && /"timestamp_ms"\s*:/.test(head) ? 0.96 : 0;
  },
  async parse(input) {
    const file = input.path;
    const counter = { repaired: 0 };
    const root = expectObject(repairStrings(parseJson(await input.readText(), file), counter), file, "$", EXPECTED);
    const messages = expectArray(root.messages, file, "$.messages", EXPECTED);
    const title = optionalString(root, "title", file, "$");
    const builder = new SessionBuilder(baseName(file).replace(/\.[^.]*$/, ""), title, {
      source: { file, format: "messenger" },
      ...rest(root, ["messages", "title"]),
    });
    const timed = messages.map((raw, i) => {
      const at = childPath("$.messages", i);
      const msg = expectObject(raw, file, at, 'a message {"sender_name": …, "timestamp_ms": …}');
      const ms = msg.timestamp_ms;
      // A Date holds +-8.64e15 ms: a number past that (or not finite) has no time to give the turn.
      if (typeof ms !== "number" || !Number.isFinite(new Date(ms).getTime()))
        throw shapeError(file, childPath(at, "timestamp_ms"), "the time in epoch milliseconds", ms);
      return { msg, at, ms, i };
    });
    // Newest first in the file, oldest first in the session (equal times: the later in the file is the older).
    timed.sort((a, b) => a.ms - b.ms || b.i - a.i);
    const origin = timed[0]?.ms;
    for (const { msg, at, ms } of timed) {
      const name = optionalString(msg, "sender_name", file, at) ?? "Facebook user";
      const speaker = builder.participant(name, { name, kind: "human" });
      const content = msg.content === undefined || msg.content === null ? "" : msg.content;
      if (typeof content !== "string") throw shapeError(file, childPath(at, "content"), "the message text as a string", content);
      const media = ["photos", "videos", "audio_files", "files", "gifs", "sticker", "share"].some((k) => msg[k] !== undefined);
      const type: TurnType = content === "" && media ? "file" : "message";
      builder.turn({
        speaker,
        text: content,
        type,
        timestamp: new Date(ms).toISOString(),
        start: (ms - origin!) / 1000,
        metadata: rest(msg, ["sender_name", "content"]) ?? {},
      });
    }
    const warnings: string[] = [];
    if (counter.repaired > 0)
      warnings.push(`${file}: ${counter.repaired} text(s) were UTF-8 written as Latin-1 escapes (Facebook's export encoding) and were decoded back`);
    if (messages.length === 0) warnings.push(`${file}: no messages; imported an empty session`);
    const result: ImportResult = { sessions: [builder.build()], codes: [], warnings };
    return result;
  },
};

const strict = new TextDecoder("utf-8", { fatal: true });

/** "SchÃ¶n" -> "Schön": a string of Latin-1 code points that spell valid UTF-8 bytes, decoded. */
export function repairUtf8AsLatin1(text: string): string | undefined {
  let high = false;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0xff) return undefined;
    if (code >= 0x80) high = true;
    bytes[i] = code;
  }
  if (!high) return undefined;
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

function repairStrings(value: unknown, counter: { repaired: number }): unknown {
  if (typeof value === "string") {
    const repaired = repairUtf8AsLatin1(value);
    if (repaired === undefined) return value;
    counter.repaired++;
    return repaired;
  }
  if (Array.isArray(value)) return value.map((v) => repairStrings(v, counter));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, repairStrings(v, counter)]));
  return value;
}
