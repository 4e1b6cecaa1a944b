import { slugify } from "../transcript/ids.js";
import type { SessionInput } from "../transcript/schema.js";

/** The speaker kinds a user states on the command line: --agents and --humans. */
export interface StatedKinds {
  agents?: readonly string[];
  humans?: readonly string[];
}

/**
 * The keys a stated name matches: its lower-cased name and its participant id, so
 * `--agents "GPT 4"` finds `gpt-4` too. A name with no letter or digit (an emoji) has no id of
 * its own (such participants are "speaker", "speaker-2", …), so it matches by name only.
 */
function keysOf(name: string): string[] {
  const id = slugify(name, "");
  return id === "" ? [name.trim().toLowerCase()] : [name.trim().toLowerCase(), id];
}

function nameSet(names: readonly string[] = []): Set<string> {
  return new Set(names.flatMap(keysOf));
}

/**
 * The --agents names that some --humans name also matches (a contradiction the user must
 * resolve). Both flags are normalised the same way (lower-cased name and participant id), so
 * `--agents "GPT 4" --humans gpt-4` is reported: both would claim the participant `gpt-4`.
 */
export function conflictingKinds(stated: StatedKinds): string[] {
  const humans = nameSet(stated.humans);
  return (stated.agents ?? []).filter((a) => keysOf(a).some((k) => humans.has(k)));
}

/**
 * Apply --agents and --humans to every participant of every format, after its importer ran: a
 * participant whose name (case-insensitively) or id is listed becomes `ai` or `human`. Stated
 * kinds win over what the format says (a CAMEL "AI User" played by a person, a Slack bot that
 * relays a human). Importers that read --agents themselves (to decide more, e.g. Slack bots)
 * still do; this pass only makes both flags mean the same in every format.
 */
export function applyStatedKinds(sessions: readonly SessionInput[], stated: StatedKinds): void {
  const agents = nameSet(stated.agents);
  const humans = nameSet(stated.humans);
  if (agents.size === 0 && humans.size === 0) return;
  for (const session of sessions) {
    for (const p of session.participants) {
      const keys = [p.name.trim().toLowerCase(), p.id];
      if (keys.some((k) => agents.has(k))) p.kind = "ai";
      else if (keys.some((k) => humans.has(k))) p.kind = "human";
    }
  }
}

/**
 * Names that usually belong to an AI assistant. A file whose sessions have no AI participant but
 * such a name gets a hint naming --agents: plain, VTT and SRT transcripts cannot say who is an AI.
 */
const ASSISTANT_NAME = /\b(?:chat\s?gpt|gpt(?:[-\s]?\d[\w.]*|-\w+)?|claude|copilot|gemini|bard|assistant|bot|llm)\b/i;
/** "AI" only in capitals: "Ai" is also a given name. */
const AI_WORD = /\bAI\b/;

/** The hint for sessions without any AI speaker although some names look like assistants. */
export function agentHints(path: string, sessions: readonly SessionInput[], stated: StatedKinds = {}): string[] {
  const humans = nameSet(stated.humans);
  const names = [
    ...new Set(
      sessions
        .filter((s) => !s.participants.some((p) => p.kind === "ai"))
        .flatMap((s) =>
          s.participants
            .filter(
              (p) =>
                p.kind === "human" && !humans.has(p.name.trim().toLowerCase()) && !humans.has(p.id) && (ASSISTANT_NAME.test(p.name) || AI_WORD.test(p.name)),
            )
            .map((p) => p.name),
        ),
    ),
  ];
  if (names.length === 0) return [];
  const list = names.map((n) => `"${n}"`).join(", ");
  return [
    `${path}: no speaker is marked as an AI, but ${list} ${names.length === 1 ? "looks" : "look"} like an assistant; if so, import again with --agents ${JSON.stringify(names.join(","))} (or --humans to say they are people), or list them in "speakers": {"ai": [...]} of colloquy.json`,
  ];
}
