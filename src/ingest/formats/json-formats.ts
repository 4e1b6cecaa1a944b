import type { Importer } from "../types.js";

/**
 * The JSON-based and folder-based importers (chat JSON, ChatGPT export, Slack export,
 * round-based discussion logs, native), in detection priority order.
 */
export const jsonImporters: Importer[] = [];
