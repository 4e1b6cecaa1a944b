import { ImportError } from "../types.js";

/** Where a JSON text stops being valid: 1-based line and column, and what went wrong there. */
export interface JsonSyntaxProblem {
  line: number;
  column: number;
  problem: string;
}

/**
 * JSON.parse with an ImportError that names the file, line and column on a syntax error.
 * V8's own message only sometimes has a position (and never a line), so on failure the text
 * is re-scanned by `locateJsonError`; the fast path is plain JSON.parse.
 */
export function parseJson(text: string, file: string, lineOffset = 0): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const where = locateJsonError(text) ?? { line: 1, column: 1, problem: (error as Error).message };
    throw new ImportError({
      file,
      line: where.line + lineOffset,
      problem: `invalid JSON at column ${where.column}: ${where.problem}`,
      expected: "valid JSON (check for a missing comma, quote or bracket there)",
    });
  }
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Find the first syntax error in `text` (RFC 8259 JSON), or null when it is valid.
 * Iterative (an explicit stack), so deeply nested garbage cannot overflow the call stack.
 */
export function locateJsonError(text: string): JsonSyntaxProblem | null {
  let i = 0;
  const n = text.length;
  const fail = (problem: string): JsonSyntaxProblem => {
    const before = text.slice(0, Math.min(i, n));
    const line = before.split("\n").length;
    const column = i - (before.lastIndexOf("\n") + 1) + 1;
    return { line, column, problem };
  };
  const skipWs = () => {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
  };
  const describe = () => (i >= n ? "the text ends too early" : `unexpected ${JSON.stringify(text[i])}`);

  // Scan one string starting at text[i] === '"'; returns an error or null.
  const scanString = (): JsonSyntaxProblem | null => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return null;
      }
      if (c < 0x20) return fail("control character inside a string (escape newlines as \\n)");
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return fail("bad \\u escape");
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return fail("bad escape in a string");
      } else i++;
    }
    return fail("unterminated string");
  };
  const scanNumber = (): JsonSyntaxProblem | null => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === "" || m[0] === "-") return fail(describe());
    i += m[0].length;
    return null;
  };

  // Stack of open containers: "[" or "{".
  const stack: string[] = [];
  // States: expecting a value, or having finished one.
  let expectValue = true;
  skipWs();
  for (;;) {
    if (expectValue) {
      skipWs();
      if (i >= n) return fail("the text ends where a value was expected");
      const c = text[i];
      if (c === "{") {
        i++;
        skipWs();
        if (text[i] === "}") {
          i++;
          expectValue = false;
          continue;
        }
        stack.push("{");
        if (text[i] !== '"') return fail(`expected a property name in double quotes, got ${i >= n ? "the end" : JSON.stringify(text[i])}`);
        const err = scanString();
        if (err) return err;
        skipWs();
        if (text[i] !== ":") return fail("expected ':' after the property name");
        i++;
        continue;
      }
      if (c === "[") {
        i++;
        skipWs();
        if (text[i] === "]") {
          i++;
          expectValue = false;
          continue;
        }
        stack.push("[");
        continue;
      }
      let err: JsonSyntaxProblem | null;
      if (c === '"') err = scanString();
      else if (c === "-" || (c >= "0" && c <= "9")) err = scanNumber();
      else if (text.startsWith("true", i)) {
        i += 4;
        err = null;
      } else if (text.startsWith("false", i)) {
        i += 5;
        err = null;
      } else if (text.startsWith("null", i)) {
        i += 4;
        err = null;
      } else err = fail(`${describe()} where a value was expected`);
      if (err) return err;
      expectValue = false;
      continue;
    }
    skipWs();
    const top = stack[stack.length - 1];
    if (top === undefined) {
      if (i < n) return fail(`${describe()} after the end of the JSON value`);
      return null;
    }
    const c = text[i];
    if (c === ",") {
      i++;
      skipWs();
      if (top === "{") {
        if (text[i] !== '"') return fail(`expected a property name in double quotes after ',', got ${i >= n ? "the end" : JSON.stringify(text[i])}`);
        const err = scanString();
        if (err) return err;
        skipWs();
        if (text[i] !== ":") return fail("expected ':' after the property name");
        i++;
      }
      expectValue = true;
      continue;
    }
    if ((top === "[" && c === "]") || (top === "{" && c === "}")) {
      i++;
      stack.pop();
      continue;
    }
    return fail(`${describe()}; expected ',' or '${top === "[" ? "]" : "}"}'`);
  }
}
