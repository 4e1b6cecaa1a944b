/**
 * The layout of colloquy's large JSON files: `JSON.stringify(value, null, 2)`, except that one
 * top-level array of per-session entries (concepts.json's `sessions`, topics.json's `trees`) holds
 * one compact entry per line. At 100,000 turns that halves concepts.json (41 -> 21 MB) and cuts
 * topics.json to a third, which every run that writes them and every dashboard build that reads
 * them paid for in indentation; one session per line also reads and diffs well.
 *
 * An entry can be stringified when its session is analysed and kept (as text or UTF-8 bytes, in a
 * session memo) so that adding one session to a large study stringifies that session only
 * (issue 11); {@link jsonWithArrayLines} puts the file together from such texts.
 */

/** The text of one entry of the array: compact JSON, which never holds a raw line break. */
export function arrayLine(value: unknown): string {
  // undefined (or a function) in an array is null to JSON.stringify.
  return JSON.stringify(value) ?? "null";
}

/** {@link jsonWithArrayLines} with each array's lines made here (paths whose value is no array are written as the rest). */
export function jsonWithLineArrays(object: object, paths: readonly string[]): Buffer {
  return jsonWithArrayLines(
    object,
    paths.map((path) => {
      const value = valueAt(object, path);
      return { path, lines: Array.isArray(value) ? value.map(arrayLine) : [] };
    }),
  );
}

/** One array of a file written one entry per line: its path of keys from the top ("sessions", "codes.profiles.members") and its entries' texts. */
export interface LineArray {
  path: string;
  lines: readonly (string | Uint8Array)[];
}

/**
 * The file's bytes: `object` as `JSON.stringify(object, null, 2) + "\n"`, with each of `arrays`
 * made of its `lines` (from {@link arrayLine}, as strings or UTF-8 bytes), one per line. A path
 * whose value is not an array is written as the rest is. Bytes in, bytes out: decoding 20 MB of
 * entries to one string to encode it back cost twice.
 */
export function jsonWithArrayLines(object: object, arrays: readonly LineArray[]): Buffer {
  const present = arrays.filter((a) => Array.isArray(valueAt(object, a.path)));
  // Placeholder strings each found once in the text: longer until no other value holds them.
  for (let pad = "\u0000"; ; pad += "\u0000") {
    const markers = present.map((_, i) => `lines${i}${pad}`);
    const text = JSON.stringify(withValues(object, present, markers), null, 2);
    const quoted = markers.map((m) => JSON.stringify(m));
    const at = quoted.map((q) => text.indexOf(q));
    if (quoted.some((q, i) => at[i] === -1 || text.lastIndexOf(q) !== at[i])) continue;
    const order = present.map((_, i) => i).sort((a, b) => at[a] - at[b]);
    const chunks: Uint8Array[] = [];
    let from = 0;
    for (const i of order) {
      chunks.push(Buffer.from(text.slice(from, at[i])));
      pushLines(chunks, present[i].lines, "  ".repeat(present[i].path.split(".").length));
      from = at[i] + quoted[i].length;
    }
    chunks.push(Buffer.from(`${text.slice(from)}\n`));
    return Buffer.concat(chunks);
  }
}

/** `[`, the lines indented one step deeper than the member (`indent`), and `]` at the member's indent. */
function pushLines(chunks: Uint8Array[], lines: LineArray["lines"], indent: string): void {
  if (lines.length === 0) {
    chunks.push(Buffer.from("[]"));
    return;
  }
  const separator = Buffer.from(`,\n${indent}  `);
  chunks.push(Buffer.from(`[\n${indent}  `));
  lines.forEach((line, i) => {
    if (i > 0) chunks.push(separator);
    chunks.push(typeof line === "string" ? Buffer.from(line) : line);
  });
  chunks.push(Buffer.from(`\n${indent}]`));
}

function valueAt(object: object, path: string): unknown {
  let value: unknown = object;
  for (const key of path.split("."))
    value = value !== null && typeof value === "object" && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** A copy of `object` with the value at each path replaced (objects along the paths copied, nothing else). */
function withValues(object: object, arrays: readonly LineArray[], values: readonly unknown[]): object {
  const root: Record<string, unknown> = { ...object };
  const copies = new Set<object>([root]);
  arrays.forEach(({ path }, i) => {
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
