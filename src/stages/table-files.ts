import { parquetWriteBuffer } from "hyparquet-writer";
import { toCsv } from "../util/csv.js";
import type { Cell, Column, Table } from "./tables.js";
import { columnLabel } from "../report/glossary.js";

/** A table as CSV, JSONL or Parquet, and its data dictionary as CSV. */

/** RFC 4180 CSV with CRLF rows (util/csv.ts); `excel` starts it with a UTF-8 byte-order mark. */
export function tableCsv(table: Table, excel = false): string {
  const names = table.columns.map((c) => c.name);
  return toCsv(
    names,
    table.rows.map((r) => names.map((n) => r[n])),
    { excel },
  );
}

export function tableJsonl(table: Table): string {
  return table.rows.map((r) => JSON.stringify(r)).join("\n") + (table.rows.length ? "\n" : "");
}

const PARQUET_TYPE = { string: "STRING", integer: "INT32", number: "DOUBLE", boolean: "BOOLEAN" } as const;

/** A cell as its column's type; an empty cell is null (a missing value to R, pandas and polars). */
function typed(column: Column, value: Cell | undefined): Cell {
  if (value === null || value === undefined || value === "") return null;
  if (column.type === "string") return String(value);
  if (column.type === "boolean") return typeof value === "boolean" ? value : value === "true";
  const n = typeof value === "number" ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Parquet (snappy-compressed, one column per table column, typed as the dictionary says). */
export function tableParquet(table: Table, createdBy: string): Uint8Array {
  const buffer = parquetWriteBuffer({
    columnData: table.columns.map((c) => ({ name: c.name, type: PARQUET_TYPE[c.type], data: table.rows.map((r) => typed(c, r[c.name])), nullable: true })),
    createdBy,
  });
  return new Uint8Array(buffer);
}

/**
 * The data dictionary: one row per column with its name in plain words (the glossary's, as the
 * report and dashboard use), type, meaning and allowed values.
 */
export function dictionaryCsv(table: Table): string {
  return toCsv(
    ["column", "label", "type", "meaning", "allowed_values"],
    table.columns.map((c) => [c.name, c.label ?? columnLabel(c.name), c.type, c.meaning, c.allowed]),
  );
}
