import { fileURLToPath } from "node:url";
import { directoryInput, fileInput, textInput } from "../../../src/ingest/input.js";
import type { Importer, ImportOptions, ImportResult } from "../../../src/ingest/types.js";
import { ImportError } from "../../../src/ingest/types.js";
import { validateSession } from "../../../src/transcript/validate.js";
import type { Session } from "../../../src/transcript/schema.js";

/** Absolute path of a file under fixtures/transcripts/. */
export function fixture(rel: string): string {
  return fileURLToPath(new URL(`../../../fixtures/transcripts/${rel}`, import.meta.url));
}

/** Run an importer on a fixture (file or folder) and validate every session it returns. */
export async function importFixture(importer: Importer, rel: string, options: ImportOptions = {}): Promise<{ result: ImportResult; sessions: Session[] }> {
  const path = fixture(rel);
  const input = importer.input === "directory" ? directoryInput(path) : fileInput(path);
  const result = await importer.parse(input, options);
  return { result, sessions: result.sessions.map((s, i) => validateSession(s, `${rel} session ${i}`)) };
}

/** Run an importer on in-memory text. */
export async function importText(
  importer: Importer,
  name: string,
  text: string,
  options: ImportOptions = {},
): Promise<{ result: ImportResult; sessions: Session[] }> {
  const result = await importer.parse(textInput(name, text), options);
  return { result, sessions: result.sessions.map((s, i) => validateSession(s, `${name} session ${i}`)) };
}

/** The ImportError an importer throws on `text` (fails the test if it throws anything else or nothing). */
export async function importErrorOf(importer: Importer, name: string, text: string, options: ImportOptions = {}): Promise<ImportError> {
  try {
    await importer.parse(textInput(name, text), options);
  } catch (error) {
    if (error instanceof ImportError) return error;
    throw new Error(`expected an ImportError, got ${String(error)}`);
  }
  throw new Error("expected an ImportError, but the import succeeded");
}

/** Name of a turn's speaker. */
export function speakerName(session: Session, index: number): string {
  const turn = session.turns[index];
  return session.participants.find((p) => p.id === turn.speaker)?.name ?? "?";
}
