import Papa from "papaparse";

/**
 * Delimited tables as spreadsheets save them, for files people fill in by hand (coding sheets,
 * samples): a UTF-8 byte-order mark, Excel's `sep=;` first line, and `;` or tab delimiters (what
 * Excel writes in locales whose decimal separator is a comma) are all read; every row keeps the
 * file line it starts on, so a problem can be reported by line.
 */

export interface TableRow {
  /** 1-based line of the file on which the row starts. */
  line: number;
  /** Cells by header name (missing cells are ""). */
  cells: Record<string, string>;
}

export interface Table {
  headers: string[];
  rows: TableRow[];
  delimiter: string;
}

const DELIMITERS = [",", ";", "\t", "|"];

/** The delimiter a header line uses most (outside quotes); `,` when it has none. */
function guessDelimiter(path: string, header: string): string {
  if (/\.tsv$/i.test(path)) return "\t";
  const unquoted = header.replace(/"[^"]*"/g, "");
  let best = ",";
  let most = 0;
  for (const d of DELIMITERS) {
    const n = unquoted.split(d).length - 1;
    if (n > most) [best, most] = [d, n];
  }
  return best;
}

/**
 * Parse a CSV/TSV text with a header row. Throws an Error naming the line on malformed quoting
 * or a header that names a column twice (which column a cell belongs to would be a guess).
 */
export function parseTable(path: string, raw: string): Table {
  let text = raw.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  let lineOffset = 0;
  let delimiter: string | undefined;
  const sep = /^sep=(.)\n/i.exec(text);
  if (sep) {
    delimiter = sep[1];
    text = text.slice(sep[0].length);
    lineOffset = 1;
  }
  const firstBreak = text.indexOf("\n");
  delimiter ??= guessDelimiter(path, firstBreak >= 0 ? text.slice(0, firstBreak) : text);
  const parsed = Papa.parse<string[]>(text, { delimiter, newline: "\n", skipEmptyLines: false });
  const lines: number[] = [];
  let line = 1 + lineOffset;
  for (const row of parsed.data) {
    lines.push(line);
    line++;
    for (const cell of row) for (let at = cell.indexOf("\n"); at >= 0; at = cell.indexOf("\n", at + 1)) line++;
  }
  const quoteError = parsed.errors.find((e) => e.type === "Quotes");
  if (quoteError) {
    const at = quoteError.row !== undefined && quoteError.row < lines.length ? lines[quoteError.row] : line;
    throw new Error(
      `${path}:${at}: malformed quoting (${quoteError.message}); cells holding the delimiter, a quote or a line break must be wrapped in "double quotes"`,
    );
  }
  let first = 0;
  while (first < parsed.data.length && parsed.data[first].every((c) => c.trim() === "")) first++;
  if (first >= parsed.data.length) throw new Error(`${path}: the file is empty; expected a header row and one row per turn`);
  const headers = parsed.data[first].map((h) => h.trim());
  const seen = new Set<string>();
  for (const h of headers) {
    if (h !== "" && seen.has(h)) throw new Error(`${path}:${lines[first]}: the header names column "${h}" twice`);
    seen.add(h);
  }
  const rows: TableRow[] = [];
  for (let r = first + 1; r < parsed.data.length; r++) {
    const data = parsed.data[r];
    if (data.every((c) => c.trim() === "")) continue;
    const cells: Record<string, string> = {};
    headers.forEach((h, i) => {
      if (h !== "") cells[h] = data[i] ?? "";
    });
    rows.push({ line: lines[r], cells });
  }
  return { headers, rows, delimiter };
}

/** A value of a CSV cell: null and undefined are missing values, written as an empty cell. */
export type CsvCell = string | number | boolean | null | undefined;

/**
 * A CSV text (RFC 4180, CRLF line ends, every text verbatim). With `excel`, it starts with a
 * UTF-8 byte-order mark so Excel reads accents correctly. No formula escaping here: exports keep
 * the words as spoken; coding sheets, which people open in a spreadsheet and which are never read
 * back for their text, pass their display cells through `spreadsheetText` first. An empty cell
 * (null or undefined: a missing value) is written as nothing.
 */
export function toCsv(fields: readonly string[], rows: readonly (readonly CsvCell[])[], options: { excel?: boolean } = {}): string {
  return (options.excel ? "\uFEFF" : "") + Papa.unparse({ fields: [...fields], data: rows.map((r) => [...r]) }, { newline: "\r\n" }) + "\r\n";
}

/**
 * Rows of an analysis table (LF line ends, every text verbatim, no formula escaping: it would
 * prefix turn text starting with "=", "+", "-" or "@"), without a header: the rows one session
 * contributes, kept to be put together by {@link csvWithRows}. Empty when there are none.
 */
export function csvRows(rows: readonly (readonly CsvCell[])[]): string {
  return Papa.unparse(
    rows.map((r) => [...r]),
    { newline: "\n" },
  );
}

/**
 * The table with `fields` as its header and the rows of `parts` (csvRows texts, empty ones
 * skipped): the same bytes as `Papa.unparse({fields, data}) + "\n"` of all the rows at once, since
 * the header alone ends in "\n" and Papa quotes a cell by its own text only. For tables of two
 * columns or more (a one-column row holding an empty cell is empty text too, and would be skipped).
 */
export function csvWithRows(fields: readonly string[], parts: readonly string[]): string {
  return `${Papa.unparse({ fields: [...fields], data: [] }, { newline: "\n" })}${parts.filter((p) => p !== "").join("\n")}\n`;
}

/** What a spreadsheet runs as a formula (OWASP, CSV injection): "=", "+", "-", "@", tab or CR first. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell for people to read in a spreadsheet: text that would start a formula (a participant's or
 * a model's `=HYPERLINK(...)`) gets a leading `'`, OWASP's advice, so it is shown, never run.
 */
export function spreadsheetText(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}
