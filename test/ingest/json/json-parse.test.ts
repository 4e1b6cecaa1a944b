import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { locateJsonError, parseJson } from "../../../src/ingest/formats/json-parse.js";
import { ImportError } from "../../../src/ingest/types.js";

describe("locateJsonError", () => {
  it.each([
    ['{"a":}', 1, 6],
    ["[1,2", 1, 5],
    ['{"a" 1}', 1, 6],
    ["\n\n  [1,]", 3, 6],
    ['{"a":1,}', 1, 8],
    ["[1] x", 1, 5],
    ['{"a":"b\nc"}', 1, 8],
  ])("%j fails at line %i column %i", (text, line, column) => {
    expect(locateJsonError(text)).toMatchObject({ line, column });
  });

  it("agrees with JSON.parse on what is valid", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json().map((j) => j),
          fc.string(),
          fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
        ),
        (text) => {
          let valid = true;
          try {
            JSON.parse(text);
          } catch {
            valid = false;
          }
          expect(locateJsonError(text) === null).toBe(valid);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("survives deep nesting without a stack overflow", () => {
    expect(locateJsonError("[".repeat(200_000))).toMatchObject({ line: 1, column: 200_001 });
  });

  it("parseJson throws an ImportError with the line (plus an offset for JSONL)", () => {
    expect(() => parseJson("{\n\n  x", "f.json")).toThrow(ImportError);
    try {
      parseJson("[1,\n]", "f.jsonl", 9);
    } catch (error) {
      expect((error as ImportError).line).toBe(11);
      expect((error as ImportError).message).toMatch(/^f\.jsonl:11: invalid JSON at column 1/);
    }
  });
});
