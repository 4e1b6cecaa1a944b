import { readFile } from "node:fs/promises";
import { writeJsonAtomic } from "../util/fs.js";
import { validateSession } from "./validate.js";
import type { Session } from "./schema.js";

/** Read one native session file, validated. Errors name the file and the JSON path. */
export async function readSessionFile(path: string): Promise<Session> {
  return validateSession(parseSessionText(await readFile(path, "utf8"), path), path);
}

/** The JSON of a session file's text, not yet validated; the error names the file. */
export function parseSessionText(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${path}: not valid JSON (${(error as Error).message})`);
  }
}

/** Validate, then write atomically (a crash never leaves half a session). */
export async function writeSessionFile(path: string, session: Session): Promise<void> {
  await writeJsonAtomic(path, validateSession(session, path));
}
