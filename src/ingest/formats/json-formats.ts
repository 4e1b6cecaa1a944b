import type { Importer } from "../types.js";
import { chatJsonImporter } from "./chat-json.js";
import { chatJsonlImporter } from "./chat-jsonl.js";
import { chatgptImporter } from "./chatgpt.js";
import { claudeExportImporter } from "./claude-export.js";
import { discordImporter } from "./discord.js";
import { meetingSegmentsImporter } from "./meeting-segments.js";
import { messengerImporter } from "./messenger.js";
import { revJsonImporter } from "./rev-json.js";
import { nativeImporter } from "./native.js";
import { roundsLogImporter } from "./rounds-log.js";
import { sharegptImporter } from "./sharegpt.js";
import { slackExportImporter } from "./slack-export.js";
import { telegramImporter } from "./telegram.js";

/**
 * The JSON-based and folder-based importers (chat JSON, ChatGPT export, Slack export,
 * round-based discussion logs, native), in detection priority order: the most specific
 * shapes first, so a tie-break by order (if a registry ever uses one) picks the right one.
 */
export const jsonImporters: Importer[] = [
  nativeImporter,
  chatgptImporter,
  claudeExportImporter,
  discordImporter,
  sharegptImporter,
  telegramImporter,
  messengerImporter,
  revJsonImporter,
  meetingSegmentsImporter,
  roundsLogImporter,
  chatJsonImporter,
  chatJsonlImporter,
  slackExportImporter,
];
