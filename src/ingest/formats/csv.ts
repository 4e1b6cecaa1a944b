import Papa from "papaparse";
import { ClockTimeline, parseClock, parseOffset } from "../clock.js";
import { SessionBuilder, sessionIdFromPath, type TurnDraft } from "../builder.js";
import { turnTypes, type ParticipantKind, type SessionInput, type TurnType } from "../../transcript/schema.js";
import { ImportError, type ImportedCode, type Importer, type ImportInput, type ImportOptions, type ImportResult } from "../types.js";

/**
 * CSV/TSV, one row per turn (papaparse). Columns are mapped to turn fields by `--columns`
 * (field=column) or, failing that, by common header names. Unmapped columns go to turn
 * metadata, so no cell is lost; `--code-column col=coder` turns a column into imported codes.
 *
 * Sessions are keyed by one column, or by several joined in order (`--columns
 * session=experimental_condition+run`, key "<condition>-<run>"). A file with no session column
 * but a condition and a run column is keyed by condition+run by default (a warning says so):
 * published datasets number runs within each condition, so the run alone would merge them.
 */

/** Fields a column can map to, and the header names recognised for each (normalised: lower case, `_`). */
export const csvFieldAliases: Record<string, readonly string[]> = {
  speaker: ["speaker", "name", "author", "user", "from", "sender", "speaker_name", "participant", "username"],
  text: ["text", "message", "content", "utterance", "body", "transcript", "msg"],
  time: ["time", "timestamp", "start", "time_stamp", "start_time", "ts", "datetime", "date_time", "created_at", "date"],
  end: ["end", "end_time", "stop"],
  session: ["session", "session_id", "conversation", "conversation_id", "run", "dialog_id", "dialogue_id", "chat_id", "thread"],
  condition: ["condition", "group", "experimental_condition", "treatment"],
  run: ["run_id", "run_number", "run_no", "replicate"],
  role: ["role", "speaker_role"],
  kind: ["kind", "type", "speaker_type", "participant_kind", "is_ai", "is_bot", "is_agent", "ai"],
  /** Turn type (message, backchannel, …): only by --columns type=<col>, since "type" usually means kind. */
  type: [],
};

const normalise = (header: string): string =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");

function guessDelimiter(path: string, firstLine: string): string {
  if (/\.tsv$/i.test(path)) return "\t";
  const counts = [",", ";", "\t", "|"].map((d) => ({ d, n: firstLine.split(d).length - 1 }));
  counts.sort((a, b) => b.n - a.n);
  return counts[0]!.n > 0 ? counts[0]!.d : ",";
}

interface ColumnMap {
  columns: Map<string, number>;
  /** `--columns session=a+b`: the columns whose values, joined in order, key a session. */
  sessionParts?: number[];
}

/** Resolve which header each field uses: explicit --columns first, then aliases. */
function mapColumns(
  path: string,
  headers: string[],
  columnsAt: TableLocus,
  explicit: Record<string, string> = {},
  codeColumns: Record<string, string> = {},
): ColumnMap {
  const map = new Map<string, number>();
  let sessionParts: number[] | undefined;
  const byName = new Map(headers.map((h, i) => [h.trim(), i] as const));
  const find = (column: string): number => byName.get(column.trim()) ?? headers.findIndex((h) => normalise(h) === normalise(column));
  for (const [field, column] of Object.entries(explicit)) {
    if (!(field in csvFieldAliases)) {
      throw new ImportError({
        file: path,
        ...columnsAt,
        problem: `--columns names unknown field "${field}"`,
        expected: `one of ${Object.keys(csvFieldAliases).join(", ")}`,
      });
    }
    const index = find(column);
    if (index < 0 && field === "session" && column.includes("+")) {
      // A composite key: several columns, joined in order (a header that itself contains "+" wins above).
      const parts = column.split("+").map((c) => c.trim());
      sessionParts = parts.map((part) => {
        const i = part === "" ? -1 : find(part);
        if (i < 0)
          throw new ImportError({
            file: path,
            ...columnsAt,
            problem: `--columns session=${column}: no column "${part}" in the header`,
            expected: `columns joined by "+", each one of the header's columns: ${headers.join(", ")}`,
          });
        return i;
      });
      continue;
    }
    if (index < 0) {
      throw new ImportError({
        file: path,
        ...columnsAt,
        problem: `--columns ${field}=${column}: no column "${column}" in the header`,
        expected: `one of the header's columns: ${headers.join(", ")}`,
      });
    }
    map.set(field, index);
  }
  const used = new Set([...map.values()]);
  for (const col of Object.keys(codeColumns)) {
    const i = headers.findIndex((h) => h.trim() === col.trim());
    if (i >= 0) used.add(i);
  }
  for (const [field, aliases] of Object.entries(csvFieldAliases)) {
    if (map.has(field) || (field === "session" && sessionParts)) continue;
    for (const alias of aliases) {
      const index = headers.findIndex((h, i) => !used.has(i) && normalise(h) === alias);
      if (index >= 0) {
        map.set(field, index);
        used.add(index);
        break;
      }
    }
  }
  return { columns: map, sessionParts };
}

/** A yes/no kind column (`is_ai`, `is_bot`): which of its values mean AI and which mean a person. */
const YES = new Set(["true", "yes", "y", "1", "t"]);
const NO = new Set(["false", "no", "n", "0", "f"]);
const booleanKindColumn = (header: string): boolean => /^(is_)?(ai|bot|agent)$/.test(normalise(header));

const kindWords: Record<string, ParticipantKind> = {
  ai: "ai",
  bot: "ai",
  agent: "ai",
  assistant: "ai",
  llm: "ai",
  model: "ai",
  human: "human",
  user: "human",
  person: "human",
  system: "system",
};

interface SessionState {
  builder: SessionBuilder;
  timeline: ClockTimeline;
  firstDate?: number;
  condition?: string;
}

/** Whether some run value occurs under two different conditions in the table's data rows. */
async function runsShared(table: TurnTable, iRun: number, iCondition: number): Promise<boolean> {
  const conditionOf = new Map<string, string>();
  for await (const chunk of table.chunks()) {
    for (let r = chunk.from; r < chunk.rows.length; r++) {
      const run = chunk.rows[r]![iRun];
      const condition = chunk.rows[r]![iCondition];
      if (run === undefined || condition === undefined || run.trim() === "" || condition.trim() === "") continue;
      const seen = conditionOf.get(run.trim());
      if (seen === undefined) conditionOf.set(run.trim(), condition.trim());
      else if (seen !== condition.trim()) return true;
    }
  }
  return false;
}

/** Turn a time cell into {start, timestamp}: media offsets as seconds, clock times and dates relative to the session's first. */
function placeTime(raw: string, state: SessionState): number | undefined {
  const offset = parseOffset(raw);
  if (offset !== undefined) return offset;
  const clock = parseClock(raw);
  if (clock) return state.timeline.place(clock);
  if (/\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{2,4}/.test(raw)) {
    const ms = Date.parse(raw);
    if (Number.isFinite(ms)) {
      state.firstDate ??= ms;
      return (ms - state.firstDate) / 1000;
    }
  }
  return undefined;
}

/**
 * Parse a whole CSV/TSV text. Papaparse parses in one pass (much faster than its per-row step
 * callback); file line numbers are then recovered by counting the line breaks inside each row's
 * cells, which is exact because line ends were normalised to "\n" first.
 *
 * Sessions are returned together at the end of the file rather than streamed as papaparse's
 * `step`/`chunk` callbacks would allow, on purpose: rows of different sessions may interleave,
 * so a session is only known to be complete at the end of the file; and `colloquy import` saves
 * a file whole or not at all, so a bad row on line 90,000 must not leave the sessions before it
 * half-imported. Memory is bounded per file instead: the import command streams file by file
 * (importEach), so a corpus of many CSV files holds one file at a time.
 */
export async function parseCsv(path: string, rawText: string, options: ImportOptions = {}): Promise<ImportResult> {
  // One line terminator throughout (papaparse picks a single one; mixed files would leave "\r" in cells).
  const text = rawText.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const newline = text.indexOf("\n");
  const delimiter = options.delimiter ?? guessDelimiter(path, newline >= 0 ? text.slice(0, newline) : text);
  const parsed = Papa.parse<string[]>(text, { delimiter, newline: "\n", skipEmptyLines: false });
  const rows = parsed.data;
  // File line on which each row starts.
  const rowLines = new Array<number>(rows.length);
  let line = 1;
  for (let r = 0; r < rows.length; r++) {
    rowLines[r] = line;
    line++;
    for (const cell of rows[r]!) {
      for (let at = cell.indexOf("\n"); at >= 0; at = cell.indexOf("\n", at + 1)) line++;
    }
  }
  const quoteError = parsed.errors.find((e) => e.type === "Quotes");
  if (quoteError) {
    const at = quoteError.row !== undefined && quoteError.row < rows.length ? rowLines[quoteError.row]! : line;
    throw new ImportError({
      file: path,
      line: at,
      problem: `malformed quoting (${quoteError.message})`,
      expected: 'cells with a delimiter, quote or line break wrapped in "double quotes", inner quotes doubled ("")',
    });
  }

  let first = 0;
  while (first < rows.length && rows[first]!.every((c) => c.trim() === "")) first++;
  if (first >= rows.length) throw new ImportError({ file: path, line: 1, problem: "the file is empty", expected: "a header row and one row per turn" });
  const headerLine = rowLines[first]!;
  const table: TurnTable = {
    path,
    format: "csv",
    delimiter,
    headers: rows[first]!.map((c) => c.trim()),
    headerAt: { line: headerLine },
    columnsAt: { line: 1 },
    emptyAt: { line: headerLine + 1 },
    chunks: () => [{ rows, from: first + 1, place: (r) => ({ line: rowLines[r]! }) }],
  };
  return tableSessions(table, options);
}

/** Where in its file a row of a turn table is: a line (CSV) or a row number counted from 1 (Parquet). */
export type RowPlace = { line: number } | { row: number };
/** Where a problem is, as ImportError takes it. */
export type TableLocus = { line: number } | { jsonPath: string };

const locusOf = (place: RowPlace): TableLocus => ("line" in place ? place : { jsonPath: `row ${place.row}` });
const describePlace = (path: string, at: TableLocus) => ("line" in at ? `${path}:${at.line}` : `${path}: ${at.jsonPath}`);

/** Rows of a turn table, as string cells: `rows[from..]`, each placed in its file by `place(r)`. */
export interface TableChunk {
  rows: readonly (readonly string[])[];
  from: number;
  place(r: number): RowPlace;
}

/** A table of turns (a CSV, a Parquet file): its header and its data rows, chunk after chunk. */
export interface TurnTable {
  path: string;
  /** Recorded in each session's metadata.source. */
  format: string;
  /** A text table's delimiter (named when a row has too many fields). */
  delimiter?: string;
  headers: string[];
  /** The header, for messages about columns; `columnsAt` for --columns that name none of them. */
  headerAt: TableLocus;
  columnsAt: TableLocus;
  /** Where the first data row would be (the message for a table without one). */
  emptyAt: TableLocus;
  /** The data rows; may be read twice (a pre-scan of condition and run columns). */
  chunks(): Iterable<TableChunk> | AsyncIterable<TableChunk>;
}

/**
 * Sessions from a table of turns, one row per turn: columns mapped to fields as the CSV importer
 * documents (above); unmapped columns kept in each turn's metadata.
 */
export async function tableSessions(table: TurnTable, options: ImportOptions = {}): Promise<ImportResult> {
  const { path, headers } = table;
  const headerWhere = describePlace(path, table.headerAt);
  const { columns, sessionParts: explicitParts } = mapColumns(path, headers, table.columnsAt, options.columns, options.codeColumns);
  for (const field of ["speaker", "text"] as const) {
    if (!columns.has(field)) {
      throw new ImportError({
        file: path,
        ...table.headerAt,
        problem: `no ${field} column (header: ${headers.join(", ")})`,
        expected: `a column named ${csvFieldAliases[field]!.slice(0, 4).join("/")} or --columns ${field}=<column>`,
      });
    }
  }
  const warnings: string[] = [];
  const codes: ImportedCode[] = [];
  const codeColumns: { index: number; coder: string }[] = [];
  for (const [column, coder] of Object.entries(options.codeColumns ?? {})) {
    const index = headers.findIndex((h) => h === column.trim());
    // One import may mix files with and without a code column: say so, but import the turns.
    if (index < 0) warnings.push(`${headerWhere}: --code-column ${column}: no such column (header: ${headers.join(", ")}); no ${coder} codes from this file`);
    else codeColumns.push({ index, coder });
  }
  const col = (field: string): number => columns.get(field) ?? -1;
  // eslint-disable-next-line prefer-const -- iSession and iRun change when sessions are keyed by condition+run
  let [iSpeaker, iText, iTime, iEnd, iSession, iCondition, iRun, iRole, iKind, iType] = [
    "speaker",
    "text",
    "time",
    "end",
    "session",
    "condition",
    "run",
    "role",
    "kind",
    "type",
  ].map(col) as number[];
  let sessionParts = explicitParts;
  let sessionIsRun = iSession! >= 0 && normalise(headers[iSession!]!) === "run" && iRun! < 0;
  // No session column of its own, but condition and run columns: runs are numbered within each
  // condition in published datasets, so key sessions by condition+run (the run alone would merge
  // the conditions' run 1s, the condition alone their runs).
  // A detected "run" session column whose runs each belong to one condition already keys the
  // sessions right: kept as it was (same session ids on re-import).
  if (
    !sessionParts &&
    iCondition! >= 0 &&
    (sessionIsRun ? await runsShared(table, iSession!, iCondition!) : iSession! < 0 && iRun! >= 0) &&
    !options.columns?.session
  ) {
    const run = sessionIsRun ? iSession! : iRun!;
    sessionParts = [iCondition!, run];
    columns.delete("session");
    columns.set("run", run);
    iSession = -1;
    iRun = run;
    sessionIsRun = false;
    warnings.push(
      `${headerWhere}: no session column; sessions keyed by condition+run (columns "${headers[iCondition!]}"+"${headers[run]}"); pass --columns session=<column> to key them otherwise`,
    );
  }
  const mapped = new Set([...columns.values(), ...(sessionParts ?? []), ...codeColumns.map((c) => c.index)]);
  const unmapped = headers.map((h, i) => ({ name: h || `column ${i + 1}`, i })).filter((c) => !mapped.has(c.i));
  const sessions = new Map<string, SessionState>();

  for await (const chunk of table.chunks())
    for (let r = chunk.from; r < chunk.rows.length; r++) {
      const cells = chunk.rows[r]!;
      const place = chunk.place(r);
      const at = locusOf(place);
      const where = describePlace(path, at);
      if (cells.length === 1 && cells[0]!.trim() === "") continue;
      if (cells.length !== headers.length) {
        if (cells.every((c) => c.trim() === "")) continue;
        throw new ImportError({
          file: path,
          ...at,
          problem: `row has ${cells.length} field(s) but the header has ${headers.length}`,
          expected: `one field per header column${table.delimiter ? ` (quote cells that contain "${table.delimiter === "\t" ? "\\t" : table.delimiter}" or line breaks)` : ""}`,
        });
      }
      const speakerName = cells[iSpeaker!]!;
      if (speakerName.trim() === "") {
        if (cells.every((c) => c.trim() === "")) continue;
        throw new ImportError({
          file: path,
          ...at,
          problem: `empty speaker cell (column "${headers[iSpeaker!]}")`,
          expected: "every row to name its speaker",
        });
      }
      const keyParts = sessionParts?.map((i) => cells[i]!.trim());
      const sessionKey = keyParts ? (keyParts.every((k) => k === "") ? "" : keyParts.join("-")) : iSession! >= 0 ? cells[iSession!]! : "";
      // Parts kept apart in the map key: ("a-b", "c") and ("a", "b-c") are different sessions.
      const mapKey = keyParts ? JSON.stringify(keyParts) : sessionKey;
      let state = sessions.get(mapKey);
      if (!state) {
        const metadata: Record<string, unknown> = { source: { file: path, format: table.format } };
        if (sessionKey !== "") metadata.sessionKey = sessionKey;
        if (keyParts && sessionKey !== "")
          metadata.sessionColumns = Object.fromEntries(sessionParts!.map((i, n) => [headers[i] || `column ${i + 1}`, keyParts[n]]));
        if (sessionIsRun && sessionKey !== "") metadata.run = sessionKey;
        const id = sessionKey === "" ? sessionIdFromPath(path) : sessionIdFromPath(path, sessionKey);
        const clash = [...sessions.values()].find((other) => other.builder.id === id);
        if (clash)
          throw new ImportError({
            file: path,
            ...at,
            problem: `session key ${JSON.stringify(keyParts ?? sessionKey)} gives the session id "${id}", which another key of this file already gives`,
            expected: "session keys that stay distinct as ids (letters, digits and '-'); key the sessions by other columns with --columns session=<a>+<b>",
          });
        state = { builder: new SessionBuilder(id, metadata, options.agents), timeline: new ClockTimeline() };
        sessions.set(mapKey, state);
      }
      const metadata: Record<string, unknown> = { ...place };
      for (const { name, i } of unmapped) if (cells[i] !== "") metadata[name] = cells[i];
      if (iCondition! >= 0 && cells[iCondition!] !== "") {
        const condition = cells[iCondition!]!;
        if (state.condition === undefined) {
          state.condition = condition;
          state.builder.metadata.condition = condition;
        } else if (state.condition !== condition) {
          warnings.push(`${where}: condition "${condition}" differs from "${state.condition}" earlier in the same session; kept in the turn's metadata`);
          metadata.condition = condition;
        }
      }
      if (iRun! >= 0 && cells[iRun!] !== "") {
        const run = cells[iRun!]!;
        const known = state.builder.metadata.run;
        if (known === undefined) state.builder.metadata.run = run;
        // A run that differs within one session is the row's own: kept on the turn, never dropped.
        else if (known !== run) metadata[headers[iRun!] || "run"] = run;
      }
      let kind: ParticipantKind | undefined;
      if (iKind! >= 0 && cells[iKind!]!.trim() !== "") {
        const value = cells[iKind!]!.trim().toLowerCase();
        kind = booleanKindColumn(headers[iKind!] ?? "") ? (YES.has(value) ? "ai" : NO.has(value) ? "human" : undefined) : kindWords[value];
        if (!kind) metadata[headers[iKind!]!] = cells[iKind!];
      }
      const role = iRole! >= 0 && cells[iRole!] !== "" ? cells[iRole!] : undefined;
      const speaker = state.builder.participant(speakerName, { role, kind });
      const timeRaw = iTime! >= 0 ? cells[iTime!]!.trim() : "";
      const endRaw = iEnd! >= 0 ? cells[iEnd!]!.trim() : "";
      const start = timeRaw ? placeTime(timeRaw, state) : undefined;
      const endTime = endRaw ? placeTime(endRaw, state) : undefined;
      if (timeRaw && start === undefined) warnings.push(`${where}: time "${timeRaw}" not understood; kept as the turn's timestamp only`);
      let type: TurnType = "message";
      if (iType! >= 0 && cells[iType!]!.trim() !== "") {
        const value = cells[iType!]!.trim();
        if ((turnTypes as readonly string[]).includes(value)) type = value as TurnType;
        else metadata[headers[iType!]!] = cells[iType!];
      }
      const draft: TurnDraft = { text: cells[iText!]!, type, metadata };
      if (start !== undefined) draft.start = start;
      if (endTime !== undefined) draft.end = endTime;
      if (timeRaw) draft.timestamp = timeRaw;
      const turnId = state.builder.turn(speaker, draft);
      for (const { index, coder } of codeColumns) {
        const label = cells[index]!.trim();
        if (label !== "") codes.push({ session: state.builder.id, turn: turnId, coder, label });
      }
    }
  if (sessions.size === 0) throw new ImportError({ file: path, ...table.emptyAt, problem: "no rows after the header", expected: "one row per turn" });
  const result: SessionInput[] = [...sessions.values()].map((s) => s.builder.build());
  return { sessions: result, codes, warnings };
}

export const csvImporter: Importer = {
  name: "csv",
  description: "CSV/TSV, one row per turn (--columns speaker=name,text=message,…; --code-column col=coder)",
  extensions: [".csv", ".tsv"],
  input: "file",
  detect(path, head) {
    const ext = /\.(csv|tsv)$/i.test(path);
    const first = head.split(/\r?\n/, 1)[0] ?? "";
    const delimiter = guessDelimiter(path, first);
    const names = first.split(delimiter).map((h) => normalise(h.replace(/^"|"$/g, "")));
    const hasSpeaker = names.some((n) => csvFieldAliases.speaker!.includes(n));
    const hasText = names.some((n) => csvFieldAliases.text!.includes(n));
    if (ext) return hasSpeaker && hasText ? 0.95 : 0.8;
    return hasSpeaker && hasText && names.length >= 2 && !first.trimStart().startsWith("{") && !first.trimStart().startsWith("[") ? 0.5 : 0;
  },
  async parse(input: ImportInput, options: ImportOptions) {
    return parseCsv(input.path, await input.readText(), options);
  },
};
