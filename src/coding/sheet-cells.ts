import { categoryLabelIndex, matchCodeLabel, type LabelIndex } from "../ingest/code-labels.js";
import type { Codebook, Scale } from "./codebook/schema.js";
import { codeColumns } from "./sheet.js";

/**
 * Reading the code cells of a filled coding sheet (or any table with a code column): which
 * columns hold the coder's codes, and what a cell means under the codebook. Nothing is guessed:
 * a label that matches no category id, label or alias, a rating off the scale, or several codes
 * where the codebook allows one are problems, reported with the row's line.
 */

/** Where one coder's codes are: one column for a nominal codebook, one per rated scale. */
export type CodeColumnPlan = { kind: "nominal"; column: string } | { kind: "scales"; columns: { scale: Scale; column: string }[] };

const norm = (s: string): string => s.trim().replace(/\s+/g, " ").toLowerCase();

/** The header's column called `name` (exactly, else ignoring case and blanks), or undefined. */
export function findColumn(headers: readonly string[], name: string): string | undefined {
  return headers.find((h) => h === name) ?? headers.find((h) => norm(h) === norm(name));
}

/**
 * Resolve `--column` values against a header. Nominal: at most one column (default `code_<name>`).
 * Scales: `scale=column` pairs, or column names that are a scale's id or label or end in
 * `_<scale id>`; default `code_<name>_<scale>` for each scale whose column exists.
 * Throws an Error saying what to pass instead.
 */
export function planColumns(codebook: Codebook, coder: string, headers: readonly string[], given: readonly string[]): CodeColumnPlan {
  const header = headers.filter((h) => h !== "").join(", ");
  const need = (name: string, flag: string): string => {
    const found = findColumn(headers, name);
    if (found === undefined) throw new Error(`${flag}: no column "${name}" in the file (its columns: ${header})`);
    return found;
  };
  if (codebook.kind === "nominal") {
    if (given.length > 1) throw new Error(`--column: codebook ${codebook.id} gives one code per turn, so name one column (got ${given.join(", ")})`);
    if (given.length === 1) return { kind: "nominal", column: need(given[0], "--column") };
    const fallback = codeColumns(codebook, coder)[0].column;
    if (findColumn(headers, fallback) === undefined)
      throw new Error(`no column "${fallback}" in the file; name the column that holds ${coder}'s codes with --column <name> (its columns: ${header})`);
    return { kind: "nominal", column: need(fallback, "--column") };
  }
  const scales = new Map(codebook.scales.map((s) => [s.id, s]));
  const columns: { scale: Scale; column: string }[] = [];
  const add = (scale: Scale, column: string) => {
    if (columns.some((c) => c.scale.id === scale.id)) throw new Error(`--column: scale ${scale.id} is named twice`);
    columns.push({ scale, column });
  };
  for (const spec of given) {
    const eq = spec.indexOf("=");
    if (eq > 0) {
      const id = spec.slice(0, eq).trim();
      const scale = scales.get(id);
      if (!scale) throw new Error(`--column ${spec}: codebook ${codebook.id} has no scale "${id}" (its scales: ${[...scales.keys()].join(", ")})`);
      add(scale, need(spec.slice(eq + 1).trim(), `--column ${spec}`));
      continue;
    }
    const column = need(spec, `--column ${spec}`);
    const matches = codebook.scales.filter((s) => norm(column) === norm(s.id) || norm(column) === norm(s.label) || norm(column).endsWith(`_${norm(s.id)}`));
    if (matches.length !== 1) {
      throw new Error(`--column ${spec}: say which scale it rates, e.g. --column ${codebook.scales[0].id}=${spec} (scales: ${[...scales.keys()].join(", ")})`);
    }
    add(matches[0], column);
  }
  if (given.length === 0) {
    for (const { column, scale } of codeColumns(codebook, coder)) {
      const found = findColumn(headers, column);
      if (found !== undefined) add(scales.get(scale!)!, found);
    }
    if (columns.length === 0) {
      const expected = codeColumns(codebook, coder)
        .map((c) => c.column)
        .join(", ");
      throw new Error(`no column of ${coder}'s ratings in the file (expected ${expected}); name them with --column <scale>=<column> (its columns: ${header})`);
    }
  }
  return { kind: "scales", columns };
}

/** What one row says: nothing (all cells empty), a value, or a problem. */
export type CellReading =
  | { status: "empty" }
  | { status: "ok"; codes?: string[]; scores?: Record<string, number>; label: string | Record<string, string>; emptyCells: number }
  | { status: "problem"; problem: string };

/** Reads code cells of one codebook (category labels indexed once). */
export function cellReader(codebook: Codebook): (plan: CodeColumnPlan, cells: Record<string, string>) => CellReading {
  const index: LabelIndex = categoryLabelIndex(codebook);
  return (plan, cells) => (plan.kind === "nominal" ? readNominal(index, cells[plan.column] ?? "") : readScales(plan.columns, cells));
}

function readNominal(index: LabelIndex, raw: string): CellReading {
  const cell = raw.trim();
  if (cell === "") return { status: "empty" };
  const codebook = index.codebook;
  const { ids, unmatched } = matchCodeLabel(index, cell);
  if (unmatched.length === 0 && ids.length > 0) return { status: "ok", codes: ids, label: cell, emptyCells: 0 };
  const multiple = codebook.kind === "nominal" && codebook.multiple;
  if (!multiple && /[;|]/.test(cell)) {
    const parts = cell.split(/[;|]/).filter((p) => p.trim() !== "");
    if (parts.length > 1 && parts.every((p) => matchCodeLabel(index, p).unmatched.length === 0)) {
      return { status: "problem", problem: `"${cell}" gives ${parts.length} codes, but codebook ${codebook.id} allows one per turn` };
    }
  }
  const bad = unmatched.map((u) => JSON.stringify(u)).join(", ");
  const ambiguous = unmatched.filter((u) => index.ambiguous.has(norm(u)));
  const why = ambiguous.length
    ? `names more than one category of codebook ${codebook.id}`
    : `matches no category id, label or alias of codebook ${codebook.id}`;
  return { status: "problem", problem: `unknown label ${bad}: ${why}${multiple && ids.length ? " (nothing of this row was stored)" : ""}` };
}

function readScales(columns: readonly { scale: Scale; column: string }[], cells: Record<string, string>): CellReading {
  const scores: Record<string, number> = {};
  const label: Record<string, string> = {};
  let emptyCells = 0;
  for (const { scale, column } of columns) {
    const cell = (cells[column] ?? "").trim();
    if (cell === "") {
      emptyCells++;
      continue;
    }
    const rating = scaleRating(scale, cell);
    if (rating === undefined) {
      return {
        status: "problem",
        problem: `${column}: "${cell}" is not a rating of scale ${scale.id} (a whole number 1-${scale.points} or one of its anchors)`,
      };
    }
    scores[scale.id] = rating;
    label[scale.id] = cell;
  }
  if (Object.keys(scores).length === 0) return { status: "empty" };
  return { status: "ok", scores, label, emptyCells };
}

/** "5", "5.0" or an anchor's text -> 5; anything else undefined. */
function scaleRating(scale: Scale, cell: string): number | undefined {
  if (/^\d+(\.0+)?$/.test(cell)) {
    const n = Number(cell);
    return n >= 1 && n <= scale.points ? n : undefined;
  }
  const anchor = scale.anchors.findIndex((a) => norm(a) === norm(cell));
  return anchor >= 0 ? anchor + 1 : undefined;
}
