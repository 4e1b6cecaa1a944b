import type { SessionInput } from "../transcript/schema.js";
import type { TextEncoding } from "./encoding.js";

/**
 * The one error every importer throws for bad input. The message always names the file and
 * the line (or JSON path) and says what was expected, e.g.
 *   `chat.json: $[3].content: expected a string, got number`.
 */
/** The most of a problem an error message quotes: a 50 MB line must not become a 50 MB message. */
const PROBLEM_CHARS = 1000;

function capped(problem: string): string {
  if (problem.length <= PROBLEM_CHARS) return problem;
  return `${problem.slice(0, PROBLEM_CHARS)}… (${problem.length - PROBLEM_CHARS} more characters not shown)`;
}

export class ImportError extends Error {
  readonly file: string;
  readonly line?: number;
  readonly jsonPath?: string;
  readonly expected: string;
  constructor(details: { file: string; line?: number; jsonPath?: string; problem: string; expected: string }) {
    const where = details.line !== undefined ? `${details.file}:${details.line}` : details.jsonPath ? `${details.file}: ${details.jsonPath}` : details.file;
    super(`${where}: ${capped(details.problem)}; expected ${details.expected}`);
    this.name = "ImportError";
    this.file = details.file;
    this.line = details.line;
    this.jsonPath = details.jsonPath;
    this.expected = details.expected;
  }
}

/** What an importer reads: a file (text or lines, for streaming) or a folder (Slack export). */
export interface ImportInput {
  /** Path as the user gave it (used in messages and in session.metadata.source.file). */
  path: string;
  kind: "file" | "directory";
  /** Whole file as text, decoded from its encoding (UTF-8, UTF-16/32, a detected legacy one or --encoding) with any BOM removed. */
  readText(): Promise<string>;
  /** The file's lines without their line terminators ("\r\n", "\n" or a lone "\r"), decoded like readText, streamed. */
  lines(): AsyncIterable<string>;
  /** The file's bytes, undecoded, for binary formats (.docx). */
  readBytes(): Promise<Uint8Array>;
  /** The encoding the file was decoded from, once read (files only). */
  decodedAs?(): TextEncoding | undefined;
}

export interface ImportOptions {
  /** Slack paste: split a bare `h:mm` continuation into its own turn (default: keep in the same turn). */
  splitContinuations?: boolean;
  /** WebVTT/SRT: merge consecutive cues of one speaker into one turn. */
  mergeCues?: boolean;
  /** CSV: field -> column name, e.g. { speaker: "name", text: "message", time: "time_stamp" }. */
  columns?: Record<string, string>;
  /** CSV: column name -> coder id whose codes that column holds, e.g. { ipa_code: "human:alice" }. */
  codeColumns?: Record<string, string>;
  /** CSV: force a delimiter (default: detected among , ; tab). */
  delimiter?: string;
  /** Round-based logs: prompts as `system` turns (default) or kept in session metadata. */
  promptsAs?: "system" | "metadata";
  /** Names (or ids) of participants known to be AI agents (Slack export bots, CSV speakers). */
  agents?: string[];
  /** Names (or ids) of participants known to be people: wins over what the format says (every format). */
  humans?: string[];
  /** One person's name -> other names they appear under: merged into one participant (every format). */
  aliases?: Record<string, string[]>;
}

/** A code label found in a transcript or CSV column, not yet matched to a codebook category. */
export interface ImportedCode {
  /** Id of the session (as returned in `sessions`) and the turn id it codes. */
  session: string;
  turn: string;
  /** e.g. "human:alice", or "human:transcript" for labels written in the transcript itself. */
  coder: string;
  /** Codebook id when the source says it; otherwise the import command's --codebook. */
  codebook?: string;
  /** The label exactly as the source has it ("5", "Gives opinion", "gives-opinion"). */
  label: string;
}

export interface ImportResult {
  /** Sessions with ids proposed by the importer; the import command makes them unique in the study. */
  sessions: SessionInput[];
  codes: ImportedCode[];
  /** Non-fatal observations worth telling the user (e.g. "3 join/leave events skipped"). */
  warnings: string[];
}

export interface Importer {
  /** Format name used by --format (e.g. "slack-paste", "csv", "vtt"). */
  name: string;
  /** One line for `colloquy import --help`. */
  description: string;
  /** File extensions (lower case, with dot) this format commonly uses. */
  extensions: string[];
  input: "file" | "directory";
  /**
   * How sure this importer is that the input is its format, from 0 (no) to 1 (certain),
   * judged from the path and the first ~64 KiB of text (empty for directories).
   */
  detect(path: string, head: string): number;
  /** Parse; throws ImportError (and nothing else) on bad input. */
  parse(input: ImportInput, options: ImportOptions): Promise<ImportResult>;
}
