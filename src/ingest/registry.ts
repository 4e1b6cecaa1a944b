import { existsSync } from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { errorMessage } from "../util/errors.js";
import type { SessionInput } from "../transcript/schema.js";
import { csvImporter } from "./formats/csv.js";
import { parquetImporter } from "./formats/parquet.js";
import { jsonImporters } from "./formats/json-formats.js";
import { plainImporter } from "./formats/plain.js";
import { slackPasteImporter } from "./formats/slack-paste.js";
import { sbvImporter, srtImporter, vttImporter } from "./formats/subtitles.js";
import { whatsappImporter } from "./formats/whatsapp.js";
import { chatChaImporter } from "./formats/chat-cha.js";
import { textgridImporter } from "./formats/textgrid.js";
import { zoomChatImporter } from "./formats/zoom-chat.js";
import { googleMeetImporter } from "./formats/google-meet.js";
import { xmlImporters } from "./formats/xml-formats.js";
import { decodeHead, encodingLabel, knownEncoding, type TextEncoding } from "./encoding.js";
import { directoryInput, fileInput, stripBom } from "./input.js";
import { compilePathPattern, type PathPattern } from "./path-pattern.js";
import { applyAliases, conflictingAliases } from "./speaker-aliases.js";
import { agentHints, applyStatedKinds, conflictingKinds } from "./speaker-kinds.js";
import { ImportError, type Importer, type ImportOptions, type ImportResult } from "./types.js";

/** Every importer Colloquy ships. Text formats first; JSON and folder formats from json-formats.ts. */
export const importers: readonly Importer[] = [
  slackPasteImporter,
  csvImporter,
  vttImporter,
  srtImporter,
  sbvImporter,
  whatsappImporter,
  zoomChatImporter,
  chatChaImporter,
  textgridImporter,
  plainImporter,
  googleMeetImporter,
  ...jsonImporters,
  ...xmlImporters,
  parquetImporter,
];

/** How much of a file detect() sees. */
export const DETECT_HEAD_BYTES = 64 * 1024;

/** Problems choosing a format (unknown --format, nothing recognised, a tie). */
export class FormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FormatError";
  }
}

function formatList(list: readonly Importer[] = importers): string {
  return list.map((i) => i.name).join(", ");
}

/** The importer called `name` (for --format), or a FormatError listing the names. */
export function importerByName(name: string): Importer {
  const found = importers.find((i) => i.name === name.toLowerCase());
  if (!found) throw new FormatError(`unknown format "${name}"; known formats: ${formatList()}`);
  return found;
}

/**
 * Pick the file importer for `path` from its extension and first bytes: the highest detect()
 * score wins. No score above 0, or two importers tied at the top, is an error telling the user to
 * pass --format (a guess between two formats would silently mis-read someone's data).
 */
export function detectFormat(path: string, head: string, candidates: readonly Importer[] = importers): Importer {
  const scored = candidates
    .filter((i) => i.input === "file")
    .map((importer) => ({ importer, score: safeDetect(importer, path, head) }))
    .sort((a, b) => b.score - a.score);
  const best = scored[0];
  if (!best || best.score <= 0) {
    throw new FormatError(`${path}: format not recognised from its content or extension; known formats: ${formatList(candidates)}. Pass --format <name>`);
  }
  const tied = scored.filter((s) => s.score === best.score);
  if (tied.length > 1) {
    throw new FormatError(`${path}: could be ${tied.map((t) => t.importer.name).join(" or ")} (equally likely); pass --format <name> to choose`);
  }
  return best.importer;
}

/** detect() must never break detection of other formats. */
function safeDetect(importer: Importer, path: string, head: string): number {
  try {
    const score = importer.detect(path, head);
    return Number.isFinite(score) ? Math.max(0, Math.min(1, score)) : 0;
  } catch {
    return 0;
  }
}

/** The folder importer for `dir` (a Slack export), if any accepts it. */
export function detectDirectoryFormat(dir: string): Importer | undefined {
  const scored = importers
    .filter((i) => i.input === "directory")
    .map((importer) => ({ importer, score: safeDetect(importer, dir, "") }))
    .sort((a, b) => b.score - a.score);
  if (scored[0] && scored[0].score > 0) return scored[0].importer;
  // users.json + channels.json is how Slack exports look even if detect() is conservative.
  if (existsSync(join(dir, "users.json")) && existsSync(join(dir, "channels.json"))) {
    return scored.find((s) => s.importer.name.includes("slack"))?.importer;
  }
  return undefined;
}

async function readHead(path: string, encoding: string | undefined): Promise<string> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(DETECT_HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, DETECT_HEAD_BYTES, 0);
    // Decoded like the import will be (UTF-16, legacy), leniently: detection reads structure.
    // Lone-CR line ends (classic Mac, some exporters) become "\n", as the importers' line reader
    // reads them, so every detector sees the lines (most split on "\n").
    return stripBom(decodeHead(buffer.subarray(0, bytesRead), encoding)).replace(/\r(?!\n)/g, "\n");
  } finally {
    await handle.close();
  }
}

export interface ImportFilesOptions extends ImportOptions {
  /** Force a format by name (skips detection for files; folders still expand). */
  format?: string;
  /** e.g. "{condition}/{run}/*". */
  pathPattern?: string;
  /** Decode every file with this encoding (an iconv-lite name: "windows-1252", "utf-16le") instead of detecting it. */
  encoding?: string;
  /** Set on every imported session (wins over the path pattern and the source). */
  condition?: string;
  run?: string;
}

/** What happened to one input (a file, or a Slack export folder). */
export interface FileImport {
  path: string;
  /** Importer used, when one was chosen. */
  format?: string;
  result?: ImportResult;
  /** Why the file was not imported (ImportError message, unreadable file, unknown format). */
  error?: string;
  /** True for files inside a folder that are clearly not transcripts (images, PDFs): reported, not failed. */
  skipped?: boolean;
}

/** Extensions that mean "this is meant to be a transcript": undetectable ones are errors, others skipped. */
function transcriptLike(path: string): boolean {
  const ext = extname(path).toLowerCase();
  return importers.some((i) => i.extensions.includes(ext));
}

/**
 * Import files and folders, one input at a time: each input's FileImport is yielded as soon as it
 * is parsed, and nothing of it is kept here, so a consumer that saves and drops each result holds
 * at most one file's sessions whatever the size of the corpus (`colloquy import` does exactly
 * that). Folders are walked recursively (hidden entries ignored, names in natural order); a folder
 * an importer accepts as a whole (Slack export) is imported as one input. One broken file never
 * stops the others: it is yielded with its `error`. Sessions carry `metadata.source`
 * ({file, format}) plus condition/run (and any other captures) from --path-pattern, --condition,
 * --run. An unknown --format or a bad --path-pattern throws on the first step, before any file
 * is read.
 */
export async function* importEach(paths: readonly string[], options: ImportFilesOptions = {}): AsyncGenerator<FileImport> {
  const forced = options.format ? importerByName(options.format) : undefined;
  const pattern = options.pathPattern ? compilePathPattern(options.pathPattern) : undefined;
  const conflicts = conflictingKinds(options);
  if (conflicts.length > 0)
    throw new FormatError(
      `${conflicts.map((c) => `"${c}"`).join(", ")} named both as AI and as human (--agents / --humans, or "speakers" in colloquy.json); name each speaker in one of them`,
    );
  const twice = conflictingAliases(options.aliases);
  if (twice.length > 0)
    throw new FormatError(
      `${twice.map((c) => `"${c}"`).join(", ")} listed as an alias of two people in "speakers"."aliases" of colloquy.json; give each name one person`,
    );
  if (options.encoding !== undefined && !knownEncoding(options.encoding)) {
    throw new FormatError(`unknown encoding "${options.encoding}"; pass a name such as utf-8, utf-16le, utf-16be, windows-1252, iso-8859-2 or shift_jis`);
  }
  async function* visit(path: string, explicit: boolean): AsyncGenerator<FileImport> {
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      yield { path, error: `${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)})` };
      return;
    }
    if (info.isDirectory()) {
      const folderImporter = forced?.input === "directory" ? forced : detectDirectoryFormat(path);
      if (folderImporter) {
        yield await runImporter(folderImporter, path, "directory", options, pattern);
        return;
      }
      const entries = (await readdir(path)).filter((n) => !n.startsWith(".")).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      if (entries.length === 0 && explicit) yield { path, error: `${path}: empty folder, nothing to import` };
      for (const entry of entries) yield* visit(join(path, entry), false);
      return;
    }
    let importer = forced;
    if (!importer) {
      try {
        importer = detectFormat(path, await readHead(path, options.encoding));
      } catch (error) {
        const skip = !explicit && !transcriptLike(path);
        yield { path, error: errorMessage(error), ...(skip ? { skipped: true } : {}) };
        return;
      }
    }
    yield await runImporter(importer, path, "file", options, pattern);
  }
  for (const path of paths) yield* visit(path, true);
}

/**
 * Every input's FileImport in one array (see importEach). Holds all sessions of all files at
 * once: fine for a handful of transcripts and for tests; use importEach for a corpus.
 */
export async function importFiles(paths: readonly string[], options: ImportFilesOptions = {}): Promise<FileImport[]> {
  const results: FileImport[] = [];
  for await (const file of importEach(paths, options)) results.push(file);
  return results;
}

async function runImporter(
  importer: Importer,
  path: string,
  kind: "file" | "directory",
  options: ImportFilesOptions,
  pattern: PathPattern | undefined,
): Promise<FileImport> {
  if (importer.input !== kind) {
    return { path, format: importer.name, error: `${path}: format ${importer.name} reads a ${importer.input}, but this is a ${kind}` };
  }
  let result: ImportResult;
  const input = kind === "file" ? fileInput(path, { encoding: options.encoding }) : directoryInput(path);
  try {
    result = await importer.parse(input, options);
  } catch (error) {
    // ImportErrors already name file and line; anything else is prefixed with the file.
    const message = error instanceof ImportError ? error.message : `${path}: ${errorMessage(error)}`;
    return { path, format: importer.name, error: message };
  }
  const encoding = input.decodedAs?.();
  applyAliases(result.sessions, options.aliases);
  applyStatedKinds(result.sessions, options);
  const warnings = [...(encoding ? encodingWarnings(path, encoding) : []), ...result.warnings, ...agentHints(path, result.sessions, options)];
  let captured: Record<string, string> | undefined;
  if (pattern) {
    captured = pattern.match(path);
    if (!captured) warnings.push(`${path}: does not match --path-pattern "${pattern.source}"; no metadata taken from its path`);
  }
  for (const session of result.sessions) applyMetadata(session, path, importer.name, captured, options, encoding);
  return { path, format: importer.name, result: { ...result, warnings } };
}

/** A file not read as UTF-8 says so, unless --encoding chose it. */
function encodingWarnings(path: string, encoding: TextEncoding): string[] {
  const label = encodingLabel(encoding.name);
  if (encoding.source === "bom" || encoding.source === "nul-pattern")
    return [`${path}: read as ${label} (${encoding.source === "bom" ? "byte-order mark" : "no byte-order mark; its NUL bytes fall as in " + label})`];
  if (encoding.source === "detected")
    return [
      `${path}: not valid UTF-8; read as ${label} (detected, confidence ${encoding.confidence ?? 0}%); if accented letters or quotes look wrong, pass --encoding <the file's encoding>`,
    ];
  return [];
}

function applyMetadata(
  session: SessionInput,
  path: string,
  format: string,
  captured: Record<string, string> | undefined,
  options: ImportFilesOptions,
  encoding: TextEncoding | undefined,
): void {
  const metadata = (session.metadata ??= {});
  const source = (metadata.source ?? {}) as Record<string, unknown>;
  metadata.source = { ...source, file: (source.file as string | undefined) ?? path, format: (source.format as string | undefined) ?? format };
  // Provenance: the text was decoded from another encoding (UTF-8 is the default and not recorded).
  if (encoding && encoding.name.toLowerCase() !== "utf-8") (metadata.source as Record<string, unknown>).encoding = encodingLabel(encoding.name);
  for (const [key, value] of Object.entries(captured ?? {})) metadata[key] = value;
  if (options.condition !== undefined) metadata.condition = options.condition;
  if (options.run !== undefined) metadata.run = String(options.run);
}
