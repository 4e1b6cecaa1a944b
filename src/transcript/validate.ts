import type { z } from "zod";
import { sessionSchema, type Session } from "./schema.js";

/** Human-readable list of zod issues with JSON paths, e.g. `turns[3].speaker: Required`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${formatPath(issue.path as (string | number)[])}: ${issue.message}`).join("; ");
}

export function formatPath(path: readonly (string | number | symbol)[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || "(root)";
}

/**
 * Validate a session and its internal references (unique ids, speakers and addressees that
 * exist, indices in order). Throws an Error whose message starts with `where`.
 */
export function validateSession(value: unknown, where: string): Session {
  const parsed = sessionSchema.safeParse(value);
  if (!parsed.success) throw new Error(`${where}: invalid session: ${formatIssues(parsed.error)}`);
  const session = parsed.data;
  const participantIds = new Set<string>();
  for (const [i, p] of session.participants.entries()) {
    if (participantIds.has(p.id)) throw new Error(`${where}: participants[${i}].id "${p.id}" is used twice`);
    participantIds.add(p.id);
  }
  const turnIds = new Set<string>();
  for (const [i, turn] of session.turns.entries()) {
    if (turnIds.has(turn.id)) throw new Error(`${where}: turns[${i}].id "${turn.id}" is used twice`);
    turnIds.add(turn.id);
    if (turn.index !== i) throw new Error(`${where}: turns[${i}].index is ${turn.index}, expected ${i}`);
    if (!participantIds.has(turn.speaker)) {
      throw new Error(`${where}: turns[${i}].speaker "${turn.speaker}" is not a participant id`);
    }
    for (const a of turn.addressees ?? []) {
      if (!participantIds.has(a)) throw new Error(`${where}: turns[${i}].addressees has unknown participant "${a}"`);
    }
  }
  return session;
}
