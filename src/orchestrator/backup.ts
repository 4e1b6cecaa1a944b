import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { artifacts } from "../study/artifacts.js";
import { validateSession } from "../transcript/validate.js";
import type { Session } from "../transcript/schema.js";
import { freshTimedPath, writeFileAtomic } from "../util/fs.js";

/**
 * Backups of orchestrated sessions (`<study>/backups/`, artifacts.sessionBackup): what a person
 * typed into a session is never replaced without a copy. Backups are not sessions of the study
 * (nothing reads the folder as such); to restore one, copy it back into sessions/ as `<id>.json`.
 */

/** Turns spoken by the session's human participants. */
export function humanTurns(session: Session): number {
  const humans = new Set(session.participants.filter((p) => p.kind === "human").map((p) => p.id));
  return session.turns.filter((t) => humans.has(t.speaker)).length;
}

/**
 * Keep a session before it is replaced (`replaced`: the file's exact bytes) or the attempt of an
 * overwrite that failed (`failed`: the session so far). Written atomically and synced before the
 * caller goes on. Returns the backup's path relative to the study.
 */
export async function backupSession(study: string, id: string, kind: "replaced" | "failed", content: Session | { file: string }): Promise<string> {
  const path = await freshTimedPath((time) => artifacts.sessionBackup.path(study, id, kind, time));
  if ("file" in content) await writeFileAtomic(path, await readFile(content.file), { sync: true });
  else await writeFileAtomic(path, JSON.stringify(validateSession(content, path), null, 2) + "\n", { sync: true });
  return relative(study, path);
}
