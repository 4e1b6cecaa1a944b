/**
 * The layout of colloquy's large JSON files: `JSON.stringify(value, null, 2)`, except that the
 * arrays with an entry per session or participant (concepts.json's `sessions`, topics.json's
 * `trees`, stats.json's profiles, phases and segments: the artifact registry's `lineArrays`) hold
 * one compact entry per line. At 100,000 turns that halves concepts.json (41 -> 21 MB) and
 * stats.json (30 -> 15 MB) and cuts topics.json to a third, which every run that writes them and
 * every dashboard build that reads them paid for in indentation; a session per line also reads
 * and diffs well.
 */

/** The text of one entry of an array: compact JSON, which never holds a raw line break. */
export function arrayLine(value: unknown): string {
  // undefined (or a function) in an array is null to JSON.stringify.
  return JSON.stringify(value) ?? "null";
}

/**
 * {@link jsonWithArrayLines} with each array's lines made here, one as it is written: a large
 * file's lines (concepts.json: 200 MB at 1,000,000 turns) are never all held at once (issue 40).
 */
export function jsonWithLineArrays(object: object, paths: readonly string[]): Iterable<Uint8Array> {
  return jsonWithArrayLines(
    object,
    paths.flatMap((path) => {
      const value = valueAt(object, path);
      return value ? [{ path, lines: linesOf(value) }] : [];
    }),
  );
}

/** Each entry's line, made when it is asked for; by index, so a hole in the array is null, as JSON.stringify writes it. */
function* linesOf(value: readonly unknown[]): Iterable<string> {
  for (let i = 0; i < value.length; i++) yield arrayLine(value[i]);
}

/** One array of a file written one entry per line: its path of keys from the top ("sessions", "codes.profiles.members") and its entries' texts. */
export interface LineArray {
  path: string;
  lines: Iterable<string | Uint8Array>;
}

/**
 * The file's bytes, as chunks to write in order (writeFileAtomic writes them a gathered write at
 * a time, as they come): `object` as `JSON.stringify(object, null, 2) + "\n"`, with each of `arrays`
 * made of its `lines` (from {@link arrayLine}, as strings or UTF-8 bytes), one per line. Only an
 * array reached through plain objects is laid out so (see {@link valueAt}); any other path is
 * written as the rest is, and a path given twice once. Bytes in, bytes out: decoding 20 MB of
 * entries to one string to encode it back cost twice.
 */
export function* jsonWithArrayLines(object: object, arrays: readonly LineArray[]): Iterable<Uint8Array> {
  const paths = new Set<string>();
  const present = arrays.filter(({ path }) => {
    const fresh = !paths.has(path) && valueAt(object, path) !== undefined;
    paths.add(path);
    return fresh;
  });
  // No path runs inside another: an array on the way is no plain object, so valueAt leaves such a path out.
  const pretty = () => [Buffer.from(`${JSON.stringify(object, null, 2)}\n`)];
  if (present.length === 0) return yield* pretty();
  const cut = cutAtArrays(
    object,
    present.map((a) => a.path),
    (value) => JSON.stringify(value, null, 2),
  );
  if (!cut) return yield* pretty();
  yield Buffer.from(cut.pieces[0]);
  for (const [k, i] of cut.order.entries()) {
    yield* linesChunks(present[i].lines, present[i].path);
    yield Buffer.from(cut.pieces[k + 1]);
  }
  yield Buffer.from("\n");
}

/**
 * `stringify(object)` cut where the arrays at `paths` (each reached through plain objects, see
 * valueAt) are: each is replaced by a placeholder string found once in the text, longer until no
 * other value holds it, so the caller can write the arrays' entries there from text it has.
 * `pieces` are the text before the first array, between arrays and after the last; `order` the
 * index in `paths` of each array, in text order. Undefined when a placeholder is not in the text
 * (something on the way serialises otherwise than its members: cannot happen past valueAt's checks).
 */
export function cutAtArrays(object: object, paths: readonly string[], stringify: (value: object) => string): { pieces: string[]; order: number[] } | undefined {
  for (let pad = "\u0000"; ; pad += "\u0000") {
    const markers = paths.map((_, i) => `lines${i}${pad}`);
    const text = stringify(withValues(object, paths, markers));
    const quoted = markers.map((m) => JSON.stringify(m));
    const at = quoted.map((q) => text.indexOf(q));
    if (at.includes(-1)) return undefined;
    if (quoted.some((q, i) => text.lastIndexOf(q) !== at[i])) continue;
    const order = paths.map((_, i) => i).sort((a, b) => at[a] - at[b]);
    const pieces: string[] = [];
    let from = 0;
    for (const i of order) {
      pieces.push(text.slice(from, at[i]));
      from = at[i] + quoted[i].length;
    }
    pieces.push(text.slice(from));
    return { pieces, order };
  }
}

/**
 * What separates two entries' lines of the array at `path` in the file: lines joined by it pass
 * for one line (a session's entries kept as one text, written in place as the entries would be).
 */
export const lineSeparator = (path: string): string => `,\n${"  ".repeat(path.split(".").length)}  `;

/** `[`, the lines indented one step deeper than the member at `path`, and `]` at the member's indent. */
function* linesChunks(lines: LineArray["lines"], path: string): Iterable<Uint8Array> {
  const indent = "  ".repeat(path.split(".").length);
  const separator = Buffer.from(lineSeparator(path));
  let first = true;
  for (const line of lines) {
    yield first ? Buffer.from(`[\n${indent}  `) : separator;
    first = false;
    yield typeof line === "string" ? Buffer.from(line) : line;
  }
  yield Buffer.from(first ? "[]" : `\n${indent}]`);
}

/** An object JSON.stringify writes as its own enumerable members: no toJSON, a plain prototype. */
function plain(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The array at `path`, reached from `object` through plain objects and own enumerable keys, and
 * itself without toJSON: the only arrays whose place in JSON.stringify's text is that path.
 * Undefined for any other.
 */
function valueAt(object: object, path: string): unknown[] | undefined {
  let value: unknown = object;
  for (const key of path.split(".")) {
    if (!plain(value) || !Object.prototype.propertyIsEnumerable.call(value, key)) return undefined;
    value = value[key];
  }
  return Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON !== "function" ? value : undefined;
}

/** A copy of `object` with the value at each path replaced (plain objects along the paths copied, nothing else). */
function withValues(object: object, paths: readonly string[], values: readonly unknown[]): object {
  const root: Record<string, unknown> = { ...object };
  const copies = new Set<object>([root]);
  paths.forEach((path, i) => {
    const keys = path.split(".");
    let parent = root;
    for (const key of keys.slice(0, -1)) {
      let child = parent[key] as Record<string, unknown>;
      if (!copies.has(child)) copies.add((parent[key] = child = { ...child }));
      parent = child;
    }
    parent[keys[keys.length - 1]] = values[i];
  });
  return root;
}
