/**
 * Where the members of a JSON object and the elements of a JSON array lie in its UTF-8 bytes,
 * found without parsing them: so a reader can JSON.parse only the members it needs, and a large
 * array one element at a time. At 100,000 turns the dashboard's build needs a few members of
 * analysis files of 12-41 MB (stats.json only for its provenance); parsing each whole cost
 * seconds and a few hundred MB at once.
 *
 * Only the structure is checked (brackets, strings, commas, colons); the text of a span is
 * checked when it is parsed. Scanning bytes is safe for UTF-8: no byte of a multi-byte
 * character is an ASCII quote, backslash, bracket, comma or colon.
 */

/** Byte offsets of one JSON value: `bytes.subarray(start, end)`. */
export interface JsonSpan {
  start: number;
  end: number;
}

/** A member's value; an array split while scanning (`jsonMembers`' `split`) has its elements too. */
export interface JsonMember extends JsonSpan {
  elements?: JsonSpan[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** The JSON text is not what the scanner expected at `offset` (a byte offset). */
export class JsonSpanError extends Error {
  constructor(
    readonly offset: number,
    /** What should have been there ('"," or "}"'). */
    readonly expected: string,
  ) {
    super(`expected ${expected} at byte ${offset}`);
  }
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(bytes: Uint8Array, at: number): number {
  while (isSpace(bytes[at])) at++;
  return at;
}

/** The offset just after the string that opens at `at` (its opening quote). */
function stringEnd(bytes: Uint8Array, at: number): number {
  // Most strings are short (member names, ids): a byte loop; a long one (a turn's text) jumps with
  // the native indexOf, whose call costs more than a short string's loop.
  const near = Math.min(bytes.length, at + 48);
  let i = at + 1;
  while (i < near) {
    const c = bytes[i];
    if (c === QUOTE) return i + 1;
    i += c === BACKSLASH ? 2 : 1;
  }
  // Here `i` is not the second byte of an escape, so only backslashes from `i` on can escape a quote.
  for (;;) {
    const quote = bytes.indexOf(QUOTE, i);
    if (quote === -1) throw new JsonSpanError(at, "the end of the string that starts here");
    // Escaped when an odd number of backslashes come before it.
    let slashes = 0;
    while (quote - 1 - slashes >= i && bytes[quote - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/** The offset just after the value that starts at `at` (no space before it). */
function valueEnd(bytes: Uint8Array, at: number): number {
  const first = bytes[at];
  if (first === undefined) throw new JsonSpanError(at, "a value");
  if (first === QUOTE) return stringEnd(bytes, at);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    // A number, true, false or null: up to the next delimiter.
    let i = at;
    while (i < bytes.length) {
      const c = bytes[i];
      if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
      if (c === QUOTE || c === OPEN_OBJECT || c === OPEN_ARRAY || c === COLON) throw new JsonSpanError(i, "a delimiter after a number, true, false or null");
      i++;
    }
    if (i === at) throw new JsonSpanError(at, "a value");
    return i;
  }
  // Brackets must pair: a stack of the closers expected. Only quotes and brackets matter inside a
  // value (a table lookup skips the rest: digits, commas, colons, letters, space).
  let closers = new Uint8Array(32);
  let depth = 0;
  let i = at;
  const n = bytes.length;
  while (i < n) {
    const c = bytes[i];
    if (STRUCTURAL[c] === 0) {
      i++;
      continue;
    }
    if (c === QUOTE) {
      i = stringEnd(bytes, i);
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === closers.length) {
        const grown = new Uint8Array(depth * 2);
        grown.set(closers);
        closers = grown;
      }
      closers[depth++] = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
    } else {
      // The first byte opened the value, so a closer always has an opener here.
      const expected = closers[depth - 1];
      if (c !== expected) throw new JsonSpanError(i, `"${String.fromCharCode(expected)}"`);
      if (--depth === 0) return i + 1;
    }
    i++;
  }
  throw new JsonSpanError(at, "the end of the value that starts here");
}

/** The bytes that open or close a string, an object or an array. */
const STRUCTURAL = new Uint8Array(256);
for (const c of [QUOTE, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY]) STRUCTURAL[c] = 1;

/** Offset of the first value of a JSON text: after an optional UTF-8 byte order mark and space. */
function textStart(bytes: Uint8Array): number {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return skipSpace(bytes, bom);
}

/**
 * The members of the object at `start` (default: the whole text, which must hold nothing after
 * it), by key; a key given twice: the last, as JSON.parse keeps. With `wanted`, the scan stops
 * once every wanted member is found: the bytes after it are not looked at (at 100,000 turns the
 * one member the dashboard reads of stats.json is its first, of 30 MB), except that the whole
 * text must still end as an object does, so a file cut short is told apart. A wanted key given
 * again after that point is then not seen.
 */
export function jsonMembers(
  bytes: Uint8Array,
  start?: number,
  { wanted, split }: { wanted?: ReadonlySet<string>; split?: ReadonlySet<string> } = {},
): Map<string, JsonMember> {
  const whole = start === undefined;
  let i = start ?? textStart(bytes);
  if (bytes[i] !== OPEN_OBJECT) throw new JsonSpanError(i, "an object");
  if (whole) {
    let last = bytes.length - 1;
    while (isSpace(bytes[last])) last--;
    if (bytes[last] !== CLOSE_OBJECT || last <= i) throw new JsonSpanError(last + 1, 'the "}" that ends the object (the text is cut short?)');
  }
  const members = new Map<string, JsonMember>();
  let missing = wanted ? wanted.size : Infinity;
  i = skipSpace(bytes, i + 1);
  if (bytes[i] !== CLOSE_OBJECT) {
    for (;;) {
      if (bytes[i] !== QUOTE) throw new JsonSpanError(i, "a member name");
      const keyEnd = stringEnd(bytes, i);
      const key = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + i, keyEnd - i).toString("utf8")) as string;
      i = skipSpace(bytes, keyEnd);
      if (bytes[i] !== COLON) throw new JsonSpanError(i, '":"');
      const valueStart = skipSpace(bytes, i + 1);
      // A member to split is scanned once, element by element, instead of once to find its end and again for its elements.
      const elements = split?.has(key) && bytes[valueStart] === OPEN_ARRAY ? arrayElements(bytes, valueStart) : undefined;
      const end = elements ? elements.end : valueEnd(bytes, valueStart);
      if (wanted?.has(key) && !members.has(key)) missing--;
      members.set(key, elements ? { start: valueStart, end, elements: elements.spans } : { start: valueStart, end });
      if (missing === 0) return members;
      i = skipSpace(bytes, end);
      if (bytes[i] === CLOSE_OBJECT) break;
      if (bytes[i] !== COMMA) throw new JsonSpanError(i, '"," or "}"');
      i = skipSpace(bytes, i + 1);
    }
  }
  if (whole) {
    const after = skipSpace(bytes, i + 1);
    if (after !== bytes.length) throw new JsonSpanError(after, "the end of the text");
  }
  return members;
}

/** The elements of the array that opens at `start`, in order. */
export function jsonElements(bytes: Uint8Array, start: number): JsonSpan[] {
  return arrayElements(bytes, start).spans;
}

function arrayElements(bytes: Uint8Array, start: number): { spans: JsonSpan[]; end: number } {
  if (bytes[start] !== OPEN_ARRAY) throw new JsonSpanError(start, "an array");
  const spans: JsonSpan[] = [];
  let i = skipSpace(bytes, start + 1);
  if (bytes[i] === CLOSE_ARRAY) return { spans, end: i + 1 };
  for (;;) {
    const end = valueEnd(bytes, i);
    spans.push({ start: i, end });
    i = skipSpace(bytes, end);
    if (bytes[i] === CLOSE_ARRAY) return { spans, end: i + 1 };
    if (bytes[i] !== COMMA) throw new JsonSpanError(i, '"," or "]"');
    i = skipSpace(bytes, i + 1);
  }
}

/** The offset just after the value that starts at `at`; throws JsonSpanError when there is none. */
export function jsonValueEnd(bytes: Uint8Array, at: number): number {
  return valueEnd(bytes, at);
}

/** JSON.parse of one span (a SyntaxError names what is wrong inside it). */
export function parseSpan(bytes: Buffer, span: JsonSpan): unknown {
  return JSON.parse(bytes.toString("utf8", span.start, span.end));
}
