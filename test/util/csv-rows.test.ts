import { describe, expect, it } from "vitest";
import fc from "fast-check";
import Papa from "papaparse";
import { csvRows, csvWithRows } from "../../src/util/csv.js";

describe("csvWithRows: a table put together from rows kept per session", () => {
  const fields = ["session", "a,b", "text"];
  // Cells that must be quoted (delimiter, quote, line break, edge spaces), formula-like text kept as it is, numbers and missing values.
  const rows: (string | number | null)[][] = [
    ["s1", 3, 'he said "no", then\nleft'],
    ["s1", null, " lead space"],
    ["s2", "=SUM(1)", "@x"],
    ["s3", 0.5, ""],
  ];
  const whole = (data: unknown[][]) => Papa.unparse({ fields, data }, { newline: "\n" }) + "\n";

  it("gives the bytes of the whole table made at once, however the rows are split (empty parts included)", () => {
    expect(csvWithRows(fields, [csvRows(rows)])).toBe(whole(rows));
    expect(csvWithRows(fields, [csvRows(rows.slice(0, 1)), "", csvRows([]), csvRows(rows.slice(1, 3)), csvRows(rows.slice(3))])).toBe(whole(rows));
    // No rows at all: the header alone.
    expect(csvWithRows(fields, [])).toBe(whole([]));
    expect(csvWithRows(fields, [csvRows([])])).toBe('session,"a,b",text\n\n');
  });

  it("for any cells and any split", () => {
    const cell = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constantFrom('"', ",", "\n", " x ", "\r\n"));
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { maxLength: 8 }), fc.nat(8), (data, at) => {
        expect(csvWithRows(fields, [csvRows(data.slice(0, at)), csvRows(data.slice(at))])).toBe(whole(data));
      }),
    );
  });
});
