import { CliError } from "../../util/errors.js";
import type { Participant, Session, Turn } from "../../transcript/schema.js";

/** Whose contributions an analysis counts: human participants, everyone, or named participants. */
export type SpeakerSelection = "human" | "all" | string[];

/** Parse `--speakers human|all|<name,name>`. */
export function parseSpeakers(value: string | readonly string[] | undefined): SpeakerSelection | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") return [...value];
  if (value === "human" || value === "all") return value;
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new CliError(`--speakers: give "human", "all" or a comma-separated list of participant names`);
  return names;
}

/** Does the selection include this participant? Names match the participant's name or id, ignoring case. */
export function isSelected(participant: Participant, selection: SpeakerSelection): boolean {
  if (selection === "all") return participant.kind !== "system";
  if (selection === "human") return participant.kind === "human";
  const wanted = selection.map((s) => s.toLowerCase());
  return wanted.includes(participant.name.toLowerCase()) || wanted.includes(participant.id.toLowerCase());
}

/** Fail when a named speaker matches no participant in any session (a typo would silently empty the analysis). */
export function checkSelection(sessions: readonly Session[], selection: SpeakerSelection): void {
  if (typeof selection === "string") return;
  const known = new Set(sessions.flatMap((s) => s.participants.flatMap((p) => [p.name.toLowerCase(), p.id.toLowerCase()])));
  const missing = selection.filter((name) => !known.has(name.toLowerCase()));
  if (missing.length > 0) {
    const names = [...new Set(sessions.flatMap((s) => s.participants.map((p) => p.name)))].sort();
    throw new CliError(`--speakers: no participant named ${missing.map((m) => `"${m}"`).join(", ")}; known: ${names.join(", ") || "(none)"}`);
  }
}

/**
 * The warning for a default selection that counts no one: in a study of AI agents alone (logs of
 * an LLM discussion) "human" leaves topics and concepts empty, which a researcher would otherwise
 * find only as an empty dashboard view. `setting` is the colloquy.json section ("topics", "concepts").
 */
export function noHumanSpeakers(sessions: readonly Pick<Session, "participants">[], selection: SpeakerSelection, setting: string): string | undefined {
  if (selection !== "human" || sessions.length === 0 || sessions.some((s) => s.participants.some((p) => p.kind === "human"))) return undefined;
  return `no session has a human participant, and ${setting} counts human speakers unless told otherwise: to count the AI agents, set "${setting}": {"speakers": "all"} in colloquy.json or pass --speakers all`;
}

/**
 * Turns that carry a participant's words: messages, backchannels and interruptions.
 * System notices, hidden reasoning, tool actions and file posts are not conversation.
 */
export function isSpokenTurn(turn: Turn): boolean {
  return turn.type === "message" || turn.type === "backchannel" || turn.type === "interruption";
}
