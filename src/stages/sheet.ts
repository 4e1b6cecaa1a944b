import { readFile } from "node:fs/promises";
import { loadStudyCodebook } from "../coding/codebook/load.js";
import { chooseCodebook } from "./codebook-choice.js";
import type { ContextWindow } from "../coding/llm/prompt.js";
import { codeableTurns, type CodeableTurn } from "../coding/sample.js";
import { codeColumns, fingerprintCell, fingerprintOfCell, humanCoderId, LEGEND_COLUMNS, legendPath, legendRows, SHEET_KEY_COLUMNS } from "../coding/sheet.js";
import { turnFingerprint } from "../transcript/fingerprint.js";
import type { Session } from "../transcript/schema.js";
import { parseTable, spreadsheetText, toCsv } from "../util/csv.js";
import { CliError, errorMessage } from "../util/errors.js";
import { writeFileAtomic } from "../util/fs.js";
import type { StageEffects, StudyContext } from "./context.js";
import { selectedContext, selectionOf, type SessionSelection } from "./selection.js";

/**
 * The sheet stage: a coding sheet for people, one row per turn to code (every codeable turn of
 * the selected sessions, or the turns of a sample), with the turns around it for context, the
 * turn's fingerprint, and an empty code column per coder; plus the codebook's legend in a second
 * file. `colloquy codes import` reads a filled sheet back. The condition is left out on purpose:
 * coders should not know which condition a turn comes from.
 */

export interface SheetStageOptions {
  /** Codebook id or file (default: the one rule of ./codebook-choice.ts). */
  codebook?: string;
  /** The sheet to write; the legend goes to `<out without .csv>.legend.csv`. */
  out: string;
  /** A sample file (`colloquy sample`): only its turns, checked against their fingerprints. */
  sample?: string;
  /** Only these sessions. */
  selection?: SessionSelection;
  /** One empty code column per coder ("alice" or "human:alice"); default colloquy.json humanCoders. */
  coders?: readonly string[];
  /** Turns shown before and after each turn (default 2 and 2, as the LLM coder sees them). */
  context?: ContextWindow;
  /** Start with a UTF-8 byte-order mark so Excel reads accents correctly. */
  excel?: boolean;
}

/** A sample row that did not make it onto the sheet, by line of the sample file. */
export interface SampleProblem {
  line: number;
  problem: string;
}

export interface SheetSummary {
  sheet: string;
  legend: string;
  rows: number;
  columns: string[];
  /** The empty columns coders fill in. */
  codeColumns: string[];
  /** Turns not on the sheet because nobody codes them (system, reasoning, empty), per reason. */
  skipped: Record<string, number>;
  sampleProblems: SampleProblem[];
}

/** "Ana: text" (with the turn type when it is not a message), as the LLM coder is shown context. */
function contextCell(session: Session, position: number, names: Map<string, string>): string {
  const turn = session.turns[position];
  if (!turn) return "";
  const type = turn.type === "message" ? "" : ` [${turn.type}]`;
  return `${names.get(turn.speaker) ?? turn.speaker}${type}: ${turn.text}`;
}

/** The sample's turns, in sample order; rows that name no turn, or a changed one, are problems. */
export async function sampledTurns(file: string, sessions: readonly Session[], selected: boolean, problems: SampleProblem[]): Promise<CodeableTurn[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CliError(`--sample ${file}: cannot read it (${errorMessage(error)})`);
  }
  let table;
  try {
    table = parseTable(file, text);
  } catch (error) {
    throw new CliError(errorMessage(error));
  }
  for (const column of [SHEET_KEY_COLUMNS.session, SHEET_KEY_COLUMNS.turn]) {
    if (!table.headers.includes(column))
      throw new CliError(`--sample ${file}: no "${column}" column (the header has ${table.headers.join(", ")}); make one with \`colloquy sample\``);
  }
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const out: CodeableTurn[] = [];
  for (const { line, cells } of table.rows) {
    const sessionId = cells[SHEET_KEY_COLUMNS.session].trim();
    const turnId = cells[SHEET_KEY_COLUMNS.turn].trim();
    const session = byId.get(sessionId);
    if (!session) {
      problems.push({ line, problem: `session "${sessionId}" is not ${selected ? "among the selected sessions" : "in the study"}` });
      continue;
    }
    const position = session.turns.findIndex((t) => t.id === turnId);
    if (position < 0) {
      problems.push({ line, problem: `session ${sessionId} has no turn "${turnId}"` });
      continue;
    }
    const turn = session.turns[position];
    const expected = fingerprintOfCell(cells[SHEET_KEY_COLUMNS.fingerprint]);
    if (expected && expected !== turnFingerprint(turn)) {
      problems.push({ line, problem: `turn ${sessionId}/${turnId} has changed since the sample was drawn (its speaker or words differ); draw a new sample` });
      continue;
    }
    const key = `${sessionId}\u0000${turnId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ session, turn, position });
  }
  return out;
}

export async function runSheet(context: StudyContext, options: SheetStageOptions, effects: StageEffects): Promise<SheetSummary> {
  const codebook = await loadStudyCodebook(context.dir, await chooseCodebook(context, options.codebook, { command: "sheet" }));
  const sessions = await selectedContext(context, options.selection).sessions();
  const window = options.context ?? { before: 2, after: 2 };
  let coders: (string | undefined)[];
  try {
    coders = (options.coders?.length ? options.coders : context.config.humanCoders).map(humanCoderId);
  } catch (error) {
    throw new CliError(errorMessage(error));
  }
  if (coders.length === 0) coders = [undefined];
  if (new Set(coders).size !== coders.length) throw new CliError(`--coders names a coder twice (${options.coders?.join(", ")})`);

  const sampleProblems: SampleProblem[] = [];
  const { turns: codeable, skipped } = codeableTurns(sessions);
  const turns = options.sample ? await sampledTurns(options.sample, sessions, selectionOf(options.selection) !== undefined, sampleProblems) : codeable;
  if (turns.length === 0) {
    throw new CliError(
      options.sample
        ? `--sample ${options.sample}: none of its turns can go on the sheet (${sampleProblems.length} problem(s), first: line ${sampleProblems[0]?.line}: ${sampleProblems[0]?.problem})`
        : `${context.dir}: no codeable turns in the selected sessions`,
    );
  }

  const before = Array.from({ length: window.before }, (_, i) => `before_${window.before - i}`);
  const after = Array.from({ length: window.after }, (_, i) => `after_${i + 1}`);
  const code = coders.flatMap((c) => codeColumns(codebook, c).map((x) => x.column));
  const { session: S, turn: T, index: I, fingerprint: F } = SHEET_KEY_COLUMNS;
  const columns = [S, T, I, "speaker", "speaker_kind", ...before, "text", ...after, F, ...code, "notes"];
  const names = new Map<Session, Map<string, string>>();
  const rows = turns.map(({ session, turn, position }) => {
    let people = names.get(session);
    if (!people) names.set(session, (people = new Map(session.participants.map((p) => [p.id, p.name]))));
    const speaker = session.participants.find((p) => p.id === turn.speaker);
    return [
      session.id,
      turn.id,
      turn.index,
      // Display cells (never read back by codes import) are escaped against formula injection.
      spreadsheetText(speaker?.name ?? turn.speaker),
      speaker?.kind ?? "",
      ...before.map((_, i) => spreadsheetText(contextCell(session, position - (window.before - i), people))),
      spreadsheetText(turn.text),
      ...after.map((_, i) => spreadsheetText(contextCell(session, position + i + 1, people))),
      fingerprintCell(turnFingerprint(turn)),
      ...code.map(() => ""),
      "",
    ];
  });
  await writeFileAtomic(options.out, toCsv(columns, rows, { excel: options.excel }));
  const legend = legendPath(options.out);
  await writeFileAtomic(
    legend,
    toCsv(
      LEGEND_COLUMNS,
      legendRows(codebook).map((row) => row.map(spreadsheetText)),
      { excel: options.excel },
    ),
  );
  effects.log(`sheet: ${rows.length} turn(s) to code with ${codebook.id}, columns ${code.join(", ")}`);
  return { sheet: options.out, legend, rows: rows.length, columns, codeColumns: code, skipped, sampleProblems };
}
