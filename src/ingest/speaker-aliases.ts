import { participantId } from "../transcript/ids.js";
import type { SessionInput } from "../transcript/schema.js";

/** One person's name -> the other names they appear under (colloquy.json `speakers.aliases`). */
export type SpeakerAliases = Readonly<Record<string, readonly string[]>>;

const key = (name: string) => name.trim().toLowerCase();

/** Alias names listed under two people (a contradiction the user must resolve). */
export function conflictingAliases(aliases: SpeakerAliases = {}): string[] {
  const owner = new Map<string, string>();
  const conflicts: string[] = [];
  for (const [person, names] of Object.entries(aliases)) {
    for (const name of [person, ...names]) {
      const previous = owner.get(key(name));
      if (previous !== undefined && previous !== key(person)) conflicts.push(name);
      else owner.set(key(name), key(person));
    }
  }
  return conflicts;
}

/**
 * Participants whose name (case-insensitively) or id is one of a person's aliases become that
 * person: one participant named as the person, with the person's id when it is free (so the same
 * person has one id in every session), whose turns are those of all the merged names. The names
 * the source used are kept in the participant's `metadata.namesInSource`; no turn's words change.
 */
export function applyAliases(sessions: readonly SessionInput[], aliases: SpeakerAliases = {}): void {
  const personOf = new Map<string, string>();
  for (const [person, names] of Object.entries(aliases)) for (const name of [person, ...names]) personOf.set(key(name), person);
  if (personOf.size === 0) return;
  for (const session of sessions) {
    const merged = new Map<string, SessionInput["participants"][number]>();
    const renamed = new Map<string, string>();
    const kept: SessionInput["participants"] = [];
    for (const p of session.participants) {
      const person = personOf.get(key(p.name)) ?? personOf.get(p.id);
      if (person === undefined) {
        kept.push(p);
        continue;
      }
      const first = merged.get(person);
      if (first) {
        renamed.set(p.id, first.id);
        const names = first.metadata!.namesInSource as string[];
        if (!names.includes(p.name)) names.push(p.name);
        continue;
      }
      const id = participantId(person);
      const free = !session.participants.some((o) => o.id === id && personOf.get(key(o.name)) !== person);
      if (free && id !== p.id) renamed.set(p.id, id);
      const one = { ...p, id: free ? id : p.id, name: person, metadata: { ...p.metadata, namesInSource: [p.name] } };
      merged.set(person, one);
      kept.push(one);
    }
    if (merged.size === 0) continue;
    session.participants = kept;
    if (renamed.size === 0) continue;
    for (const turn of session.turns) {
      turn.speaker = renamed.get(turn.speaker) ?? turn.speaker;
      if (turn.addressees) turn.addressees = [...new Set(turn.addressees.map((a) => renamed.get(a) ?? a))];
    }
  }
}
