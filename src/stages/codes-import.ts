import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { loadStudyCodebook } from "../coding/codebook/load.js";
import { chooseCodebook } from "./codebook-choice.js";
import type { CodeRecord } from "../coding/records.js";
import { cellReader, findColumn, planColumns, type CodeColumnPlan } from "../coding/sheet-cells.js";
import { fingerprintOfCell, humanCoderId, SHEET_KEY_COLUMNS } from "../coding/sheet.js";
import { readCodeHistory, replaceCodes } from "../coding/store.js";
import { sessionFingerprints } from "../transcript/fingerprint.js";
import type { Session, Turn } from "../transcript/schema.js";
import { parseTable, type TableRow } from "../util/csv.js";
import { CliError, errorMessage } from "../util/errors.js";
import { provenance } from "../util/provenance.js";
import type { StageEffects, StudyContext } from "./context.js";
import { listHumanCoders } from "./human-coders.js";

/**
 * `colloquy codes import`: one coder's codes from a filled coding sheet (or a column of any
 * CSV/TSV with session and turn, or session and index, columns) attached to the study's existing
 * turns. Rows are matched by session and turn id (or index); a fingerprint column, when the file
 * has one, must still match the turn, so a sheet made before a transcript was edited can never
 * code the wrong words. Sessions are never created. Every row that is not stored is reported by
 * line. Re-importing a file replaces the codes this coder got from that file, and only those.
 */

export interface CodesImportOptions {
  /** The filled sheet (CSV/TSV; BOM, `sep=` and `;` delimiters tolerated). */
  file: string;
  /** Codebook id or file (default: the one rule of ./codebook-choice.ts). */
  codebook?: string;
  /** "human:alice" (or "alice"). */
  coder: string;
  /** Nominal: the code column (default code_<name>). Scales: `scale=column` or column names. */
  columns?: readonly string[];
  sessionColumn?: string;
  turnColumn?: string;
  indexColumn?: string;
  fingerprintColumn?: string;
}

export const rowProblemKinds = ["unknown-session", "unknown-turn", "turn-changed", "unknown-label", "conflict", "no-turn"] as const;
export type RowProblemKind = (typeof rowProblemKinds)[number];

/** A row that was not stored, and why. */
export interface RowProblem {
  line: number;
  kind: RowProblemKind;
  message: string;
}

export interface CodesImportSummary {
  file: string;
  codebook: string;
  coder: string;
  /** Where the codes were read: `{ codes: "code_alice" }` or `{ sentiment: "code_alice_sentiment", … }`. */
  columns: Record<string, string>;
  /** Rows read (header and blank lines not counted). */
  rows: number;
  /** Turns now coded from this file (new or changed records, and unchanged ones). */
  stored: number;
  /** Of those, records identical to the last import of this file (kept as they were). */
  unchanged: number;
  /** Codes an earlier import of this file gave that it no longer gives (removed). */
  removed: number;
  /**
   * Codes an earlier import of this file gave that followed their words to another turn when an
   * edited transcript was re-imported: kept, although the rows that made them are now refused.
   */
  followed: number;
  /** Rows with nothing filled in (skipped). */
  empty: number;
  /** Scales codebooks: cells left empty in rows that rated other scales. */
  emptyCells: number;
  /** Rows repeating another row's turn with the same code (stored once). */
  duplicates: number;
  problems: RowProblem[];
  /** The coder was newly listed under humanCoders in colloquy.json. */
  listed: boolean;
  /** Problems per kind. */
  refused: Partial<Record<RowProblemKind, number>>;
}

const VIA = "colloquy codes import";

/** Which columns name the turn: session, and turn id or index (explicit flags first, then common names). */
function keyColumns(headers: readonly string[], options: CodesImportOptions): { session: string; turn?: string; index?: string; fingerprint?: string } {
  const pick = (flag: string, given: string | undefined, names: readonly string[]): string | undefined => {
    if (given !== undefined) {
      const found = findColumn(headers, given);
      if (found === undefined) throw new CliError(`${flag} ${given}: no such column in ${options.file} (its columns: ${headers.filter(Boolean).join(", ")})`);
      return found;
    }
    for (const name of names) {
      const found = findColumn(headers, name);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const session = pick("--session-column", options.sessionColumn, [SHEET_KEY_COLUMNS.session, "session_id"]);
  const turn = pick("--turn-column", options.turnColumn, [SHEET_KEY_COLUMNS.turn, "turn_id"]);
  const index = pick("--index-column", options.indexColumn, [SHEET_KEY_COLUMNS.index, "turn_index"]);
  const fingerprint = pick("--fingerprint-column", options.fingerprintColumn, [SHEET_KEY_COLUMNS.fingerprint]);
  if (session === undefined)
    throw new CliError(`${options.file}: no session column; name it with --session-column <name> (its columns: ${headers.filter(Boolean).join(", ")})`);
  if (turn === undefined && index === undefined) {
    throw new CliError(`${options.file}: no turn or index column to say which turn a row codes; name one with --turn-column <name> or --index-column <name>`);
  }
  return { session, turn, index, fingerprint };
}

interface Located {
  session: Session;
  turn: Turn;
  fingerprint: string;
}

/** A row refused because its turn changed, with the fingerprint of the words it coded. */
type Refused = RowProblem & { coded?: string };

/** The turn a row names, or the problem with it. */
function locate(row: TableRow, keys: ReturnType<typeof keyColumns>, sessions: ReadonlyMap<string, Session>): Located | Refused {
  const { line, cells } = row;
  const sessionId = (cells[keys.session] ?? "").trim();
  const turnId = keys.turn !== undefined ? (cells[keys.turn] ?? "").trim() : "";
  const indexCell = keys.index !== undefined ? (cells[keys.index] ?? "").trim() : "";
  if (sessionId === "" || (turnId === "" && indexCell === ""))
    return { line, kind: "no-turn", message: `no session and ${keys.turn ? "turn" : "index"} to say which turn this row codes` };
  const session = sessions.get(sessionId);
  if (!session)
    return {
      line,
      kind: "unknown-session",
      message: `session "${sessionId}" is not in the study (codes import never creates sessions; import the transcript first)`,
    };
  let turn: Turn | undefined;
  if (turnId !== "") {
    turn = session.turns.find((t) => t.id === turnId);
    if (!turn) return { line, kind: "unknown-turn", message: `session ${sessionId} has no turn "${turnId}"` };
    if (indexCell !== "" && String(turn.index) !== indexCell) {
      return {
        line,
        kind: "turn-changed",
        message: `turn ${sessionId}/${turnId} is at index ${turn.index} now, the row says ${indexCell}; the transcript changed since the sheet was made`,
      };
    }
  } else {
    if (!/^\d+$/.test(indexCell))
      return { line, kind: "unknown-turn", message: `index "${indexCell}" is not a turn index (0, 1, 2, … as in the session file)` };
    turn = session.turns.find((t) => t.index === Number(indexCell));
    if (!turn)
      return {
        line,
        kind: "unknown-turn",
        message: `session ${sessionId} has no turn at index ${indexCell} (it has ${session.turns.length} turns, indexed from 0)`,
      };
  }
  const fingerprints = sessionFingerprints(session);
  const fingerprint = fingerprints.get(turn.id)!;
  // Sheets write it as '<fingerprint> so Excel keeps it as text; read with or without the '.
  const expected = keys.fingerprint !== undefined ? fingerprintOfCell(cells[keys.fingerprint]) : "";
  if (expected !== "" && expected !== fingerprint) {
    const now = [...fingerprints].find(([, f]) => f === expected)?.[0];
    return {
      line,
      kind: "turn-changed",
      coded: expected,
      message: `turn ${session.id}/${turn.id} has changed since the sheet was made (its speaker or words differ)${now ? `; the words this row coded are now turn ${now}` : ""}; not stored: make a new sheet for it`,
    };
  }
  return { session, turn, fingerprint };
}

/** A stored value as text, to tell identical duplicate rows from conflicting ones. */
const valueKey = (r: { codes?: string[]; scores?: Record<string, number> }): string =>
  r.codes ? [...r.codes].sort().join("+") : JSON.stringify(Object.entries(r.scores ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));

function sameRecord(a: CodeRecord, b: CodeRecord): boolean {
  return (
    a.fingerprint === b.fingerprint &&
    a.codebookVersion === b.codebookVersion &&
    valueKey(a) === valueKey(b) &&
    a.provenance.line === b.provenance.line &&
    JSON.stringify(a.provenance.label) === JSON.stringify(b.provenance.label)
  );
}

export async function runCodesImport(context: StudyContext, options: CodesImportOptions, effects: StageEffects): Promise<CodesImportSummary> {
  let coder: string;
  try {
    coder = humanCoderId(options.coder);
  } catch (error) {
    throw new CliError(`--coder: ${errorMessage(error)}`);
  }
  const codebook = await loadStudyCodebook(context.dir, await chooseCodebook(context, options.codebook, { command: "codes import" }));
  let text: string;
  try {
    text = await readFile(options.file, "utf8");
  } catch (error) {
    throw new CliError(`${options.file}: cannot read it (${errorMessage(error)})`);
  }
  let table;
  let plan: CodeColumnPlan;
  try {
    table = parseTable(options.file, text);
    plan = planColumns(codebook, coder, table.headers, options.columns ?? []);
  } catch (error) {
    throw error instanceof CliError ? error : new CliError(errorMessage(error));
  }
  const keys = keyColumns(table.headers, options);
  const sessions = new Map((await context.sessions()).map((s) => [s.id, s]));
  const read = cellReader(codebook);
  const source = resolve(options.file);

  const problems: RowProblem[] = [];
  // session + fingerprint of the words a refused row coded before its turn changed -> its value.
  const codedWords = new Map<string, string>();
  let empty = 0;
  let emptyCells = 0;
  let duplicates = 0;
  // Per turn: the first row's record, and every line that codes it (to report conflicts).
  const byTurn = new Map<string, { record: CodeRecord; lines: number[]; conflict: boolean }>();
  for (const row of table.rows) {
    const reading = read(plan, row.cells);
    if (reading.status === "empty") {
      empty++;
      continue;
    }
    const located = locate(row, keys, sessions);
    if ("kind" in located) {
      const { coded, ...problem } = located;
      if (coded !== undefined && reading.status === "ok") codedWords.set(`${(row.cells[keys.session] ?? "").trim()}\u0000${coded}`, valueKey(reading));
      problems.push(problem);
      continue;
    }
    if (reading.status === "problem") {
      problems.push({ line: row.line, kind: "unknown-label", message: reading.problem });
      continue;
    }
    emptyCells += reading.emptyCells;
    const record: CodeRecord = {
      session: located.session.id,
      turn: located.turn.id,
      fingerprint: located.fingerprint,
      codebook: codebook.id,
      codebookVersion: codebook.version,
      coder,
      ...(reading.codes ? { codes: reading.codes } : { scores: reading.scores }),
      provenance: provenance({
        via: VIA,
        source,
        line: row.line,
        label: reading.label,
        columns: plan.kind === "nominal" ? plan.column : Object.fromEntries(plan.columns.map((c) => [c.scale.id, c.column])),
      }),
      createdAt: new Date().toISOString(),
    };
    const key = `${record.session}\u0000${record.turn}`;
    const seen = byTurn.get(key);
    if (!seen) byTurn.set(key, { record, lines: [row.line], conflict: false });
    else {
      seen.lines.push(row.line);
      if (valueKey(seen.record) === valueKey(record)) duplicates++;
      else seen.conflict = true;
    }
  }
  const fresh: CodeRecord[] = [];
  for (const { record, lines, conflict } of byTurn.values()) {
    if (!conflict) {
      fresh.push(record);
      continue;
    }
    for (const line of lines) {
      problems.push({
        line,
        kind: "conflict",
        message: `turn ${record.session}/${record.turn} is coded differently on lines ${lines.join(", ")}; none of them was stored (keep one row per turn)`,
      });
    }
  }
  problems.sort((a, b) => a.line - b.line);

  // Replace what this file gave this coder before; keep every other record of the file as it is
  // (read raw, not latest-per-turn: a turn coded from two sheets keeps the other sheet's record).
  const existing = await readCodeHistory(context.dir, codebook.id, coder);
  const fromHere = (r: CodeRecord) => r.provenance.via === VIA && r.provenance.source === source;
  const previous = new Map(existing.filter(fromHere).map((r) => [`${r.session}\u0000${r.turn}`, r]));
  let unchanged = 0;
  const records = fresh.map((record) => {
    const before = previous.get(`${record.session}\u0000${record.turn}`);
    if (before && sameRecord(before, record)) {
      unchanged++;
      return before;
    }
    return record;
  });
  const storedKeys = new Set(fresh.map((r) => `${r.session}\u0000${r.turn}`));
  // A code this file gave earlier that followed its words to another turn (a re-import of the
  // edited transcript moved it, coding/realign.ts) stays while the file still codes those words:
  // the row is refused (its turn id names other words now), the code it made, if the row still
  // gives it, is still right.
  const followed = (r: CodeRecord): boolean => {
    if (storedKeys.has(`${r.session}\u0000${r.turn}`) || codedWords.get(`${r.session}\u0000${r.fingerprint}`) !== valueKey(r)) return false;
    const session = sessions.get(r.session);
    return session !== undefined && sessionFingerprints(session).get(r.turn) === r.fingerprint;
  };
  const kept = existing.filter((r) => !fromHere(r) || followed(r));
  const keptHere = [...previous.values()].filter(followed).length;
  const removed = previous.size - keptHere - [...previous.keys()].filter((key) => storedKeys.has(key)).length;
  // Nothing new, changed or removed: leave the file as it is (a re-import is a no-op).
  if (unchanged < records.length || removed > 0) {
    await replaceCodes(context.dir, codebook.id, coder, [...kept, ...records]);
    context.changed("codes");
  }

  // A person's codes count in `colloquy study`'s agreement without a hand edit of colloquy.json (human-coders.ts).
  const listed = records.length > 0 && (await listHumanCoders(context.dir, [coder], effects)).length > 0;

  const refused: Partial<Record<RowProblemKind, number>> = {};
  for (const p of problems) refused[p.kind] = (refused[p.kind] ?? 0) + 1;
  effects.log(`codes import: ${records.length} code(s) of ${coder} for ${codebook.id} from ${options.file}`);
  return {
    file: options.file,
    codebook: codebook.id,
    coder,
    columns: plan.kind === "nominal" ? { codes: plan.column } : Object.fromEntries(plan.columns.map((c) => [c.scale.id, c.column])),
    rows: table.rows.length,
    stored: records.length,
    unchanged,
    removed,
    followed: keptHere,
    empty,
    emptyCells,
    duplicates,
    problems,
    refused,
    listed,
  };
}
