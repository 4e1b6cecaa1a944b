import { validateSession } from "../../transcript/validate.js";
import type { Session } from "../../transcript/schema.js";
import { ImportError, type Importer, type ImportInput, type ImportResult } from "../types.js";
import { parseJson } from "./json-parse.js";

const EXPECTED = "a Colloquy session {schemaVersion, id, participants, turns} (see src/transcript/schema.ts)";

/**
 * Colloquy's own session JSON: one session, an array of sessions, or JSONL (one session per
 * line, streamed so a large file is never held as one string). Every session is checked with
 * `validateSession`; a failure names the file and the line (JSONL) or `$[i]` path.
 * `metadata.source` is kept when the session already has one (it was imported before and
 * knows its origin); otherwise it is set to this file.
 */
export const nativeImporter: Importer = {
  name: "native",
  description: "Colloquy session JSON (one or an array) or JSONL (one session per line)",
  extensions: [".json", ".jsonl", ".ndjson"],
  input: "file",
  detect(path, head) {
    const native = /"schemaVersion"\s*:/.test(head) && /"participants"\s*:/.test(head) && /"turns"\s*:/.test(head);
    if (!native) return 0;
    return /\.(jsonl|ndjson)$/i.test(path) || /^\s*\{[^\n]*\}\s*\n\s*\{/.test(head) ? 1 : 0.95;
  },
  async parse(input) {
    const jsonl = /\.(jsonl|ndjson)$/i.test(input.path);
    return jsonl ? parseJsonl(input) : parseDocument(input);
  },
};

async function parseDocument(input: ImportInput): Promise<ImportResult> {
  const text = await input.readText();
  // A .json file that is really JSONL (several objects on separate lines) is read as JSONL.
  if (/^\s*\{[^\n]*\}\s*\r?\n\s*\{/.test(text)) return parseJsonl(input);
  const root = parseJson(text, input.path);
  const list = Array.isArray(root) ? root : [root];
  const sessions = list.map((value, i) => check(value, input.path, { jsonPath: Array.isArray(root) ? `$[${i}]` : "$" }));
  return { sessions, codes: [], warnings: sessions.length === 0 ? [`${input.path}: no sessions in the file`] : [] };
}

async function parseJsonl(input: ImportInput): Promise<ImportResult> {
  const sessions: Session[] = [];
  for await (const session of streamNativeJsonl(input)) sessions.push(session);
  return { sessions, codes: [], warnings: sessions.length === 0 ? [`${input.path}: no sessions in the file`] : [] };
}

/**
 * Native JSONL, one validated session at a time, without holding the file or the earlier
 * sessions: memory stays at one line plus one session, whatever the file size (for scripts
 * that convert or filter big session dumps). Throws ImportError naming the line.
 */
export async function* streamNativeJsonl(input: ImportInput): AsyncGenerator<Session> {
  let line = 0;
  for await (const text of input.lines()) {
    line++;
    if (text.trim() === "") continue;
    yield check(parseJson(text, input.path, line - 1), input.path, { line });
  }
}

function check(value: unknown, file: string, where: { line?: number; jsonPath?: string }): Session {
  let session: Session;
  try {
    session = validateSession(value, "@");
  } catch (error) {
    const problem = (error as Error).message.replace(/^@: /, "");
    throw new ImportError({ file, ...where, problem, expected: EXPECTED });
  }
  if (!session.metadata.source) session.metadata.source = { file, format: "native" };
  return session;
}
