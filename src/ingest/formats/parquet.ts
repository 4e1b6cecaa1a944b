import type { AsyncBuffer, FileMetaData } from "hyparquet";
import { errorMessage } from "../../util/errors.js";
import { ImportError, type Importer, type ImportInput, type ImportOptions, type ImportResult } from "../types.js";
import { tableSessions, type TableChunk } from "./csv.js";

/**
 * Parquet, one row per turn (hyparquet): the turns table `colloquy export --format parquet` writes,
 * or any table of conversations with session / speaker / text columns (`session_id`, `role`,
 * `content`... as the CSV importer recognises them, or `--columns`). Columns map to turn fields
 * exactly as for CSV; unmapped columns go to turn metadata, so no cell is lost. The file is read
 * one row group at a time from disk (byte ranges), never whole: memory holds the sessions being
 * built and one row group's cells. A turn's place is its row number (from 1), in messages and in
 * its metadata (`row`).
 */

/**
 * A 32-bit float as the shortest text that reads back as the same float: the value stored was
 * written as 0.1, not 0.10000000149011612 (what the float widened to 64 bits prints as).
 */
function float32Text(value: number): string {
  for (let digits = 1; digits < 9; digits++) {
    const text = String(Number(value.toPrecision(digits)));
    if (Math.fround(Number(text)) === value) return text;
  }
  return String(Number(value.toPrecision(9)));
}

/**
 * A timestamp of `whole` units (`perSecond` of them a second) as ISO 8601 text with every digit of
 * its fraction: hyparquet's own parsers make a Date, which drops micro- and nanoseconds.
 */
function isoWithFraction(whole: bigint, perSecond: bigint, digits: number): string {
  let seconds = whole / perSecond;
  let fraction = whole % perSecond;
  if (fraction < 0n) {
    fraction += perSecond;
    seconds -= 1n;
  }
  const date = new Date(Number(seconds) * 1000);
  if (Number.isNaN(date.getTime())) throw new Error("a timestamp outside the range of a date");
  return `${date.toISOString().slice(0, 19)}.${fraction.toString().padStart(digits, "0")}Z`;
}

/** A cell as text: what the CSV importer would have read in the same column. */
function cellText(value: unknown, path: string, row: number, column: string, float32: boolean): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" && float32) return float32Text(value);
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) {
    // A timestamp past a Date's range reads as an invalid Date, which has no ISO text.
    if (Number.isNaN(value.getTime()))
      throw new ImportError({
        file: path,
        jsonPath: `row ${row}`,
        problem: `column "${column}" holds a time outside the range of a date`,
        expected: "a time between the years -271821 and 275760",
      });
    return value.toISOString();
  }
  if (value instanceof Uint8Array) {
    // A byte column without a string annotation: text only if it is UTF-8 (never re-encoded silently).
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(value);
    } catch {
      throw new ImportError({ file: path, jsonPath: `row ${row}`, problem: `column "${column}" holds bytes that are not UTF-8 text`, expected: "UTF-8 text" });
    }
  }
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? String(v) : v));
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
/** A STRING cell's bytes as text, or an error: never a replacement character in a participant's words. */
function stringFromBytes(bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined) return undefined;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new Error("a text cell holds bytes that are not UTF-8 (they would be altered if read as text)");
  }
}

async function parseParquet(path: string, options: ImportOptions): Promise<ImportResult> {
  // Loaded when a Parquet file is imported, not with every command.
  const { asyncBufferFromFile, parquetMetadataAsync, parquetRead, parquetSchema } = await import("hyparquet");
  let file: AsyncBuffer;
  let metadata: FileMetaData;
  try {
    file = await asyncBufferFromFile(path);
    metadata = await parquetMetadataAsync(file);
  } catch (error) {
    throw new ImportError({
      file: path,
      problem: `not a readable Parquet file (${errorMessage(error)})`,
      expected: 'a Parquet file (it starts and ends with "PAR1")',
    });
  }
  const columns = parquetSchema(metadata).children;
  const headers = columns.map((c) => c.element.name);
  const float32 = columns.map((c) => c.element.type === "FLOAT");
  /** Each row group's cells, read when its turn comes. */
  async function* chunks(): AsyncGenerator<TableChunk> {
    let start = 0;
    for (const group of metadata.row_groups) {
      const end = start + Number(group.num_rows);
      let values: unknown[][] = [];
      try {
        // hyparquet decodes text with a forgiving decoder (bad bytes become U+FFFD, silently):
        // strings are decoded strictly here, and unannotated bytes come as bytes (cellText).
        await parquetRead({
          file,
          metadata,
          rowStart: start,
          rowEnd: end,
          utf8: false,
          parsers: {
            stringFromBytes,
            timestampFromMicroseconds: (micros: bigint) => isoWithFraction(micros, 1_000_000n, 6),
            timestampFromNanoseconds: (nanos: bigint) => isoWithFraction(nanos, 1_000_000_000n, 9),
          },
          onComplete: (rows) => (values = rows),
        });
      } catch (error) {
        throw new ImportError({
          file: path,
          jsonPath: `rows ${start + 1}-${end}`,
          problem: `cannot be read (${errorMessage(error)})`,
          expected: "a Parquet file whose row groups are whole",
        });
      }
      const base = start;
      const rows = values.map((cells, r) => headers.map((column, c) => cellText(cells[c], path, base + r + 1, column, float32[c]!)));
      yield { rows, from: 0, place: (r) => ({ row: base + r + 1 }) };
      start = end;
    }
  }
  return tableSessions(
    { path, format: "parquet", headers, headerAt: { jsonPath: "columns" }, columnsAt: { jsonPath: "columns" }, emptyAt: { jsonPath: "rows" }, chunks },
    options,
  );
}

export const parquetImporter: Importer = {
  name: "parquet",
  description: "Parquet, one row per turn (session/speaker/text columns, as for CSV; --columns, --code-column)",
  extensions: [".parquet"],
  input: "file",
  detect(path, head) {
    if (/\.parquet$/i.test(path)) return 0.95;
    return head.startsWith("PAR1") ? 0.9 : 0;
  },
  async parse(input: ImportInput, options: ImportOptions) {
    return parseParquet(input.path, options);
  },
};
