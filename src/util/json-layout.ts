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

const ELEMENT_INDENT = "    ";

/**
 * The file's bytes: `object` as `JSON.stringify(object, null, 2) + "\n"`, with its array
 * property `key` made of `lines` (from {@link arrayLine}, as strings or UTF-8 bytes), one per
 * line. Bytes in, bytes out: decoding 20 MB of entries to one string to encode it back cost twice.
 */
export function jsonWithArrayLines(object: object, key: string, lines: readonly (string | Uint8Array)[]): Buffer {
  if (!Object.hasOwn(object, key)) throw new Error(`jsonWithArrayLines: the object has no "${key}" property`);
  // A placeholder string found once in the text: longer until no other value holds it.
  let placeholder = "\u0000lines\u0000";
  let marker = JSON.stringify(placeholder);
  let text = JSON.stringify({ ...object, [key]: placeholder }, null, 2);
  while (text.indexOf(marker) !== text.lastIndexOf(marker)) {
    placeholder += "\u0000";
    marker = JSON.stringify(placeholder);
    text = JSON.stringify({ ...object, [key]: placeholder }, null, 2);
  }
  const at = text.indexOf(marker);
  const chunks: Uint8Array[] = [Buffer.from(text.slice(0, at))];
  if (lines.length === 0) chunks.push(Buffer.from("[]"));
  else {
    const separator = Buffer.from(`,\n${ELEMENT_INDENT}`);
    chunks.push(Buffer.from(`[\n${ELEMENT_INDENT}`));
    lines.forEach((line, i) => {
      if (i > 0) chunks.push(separator);
      chunks.push(typeof line === "string" ? Buffer.from(line) : line);
    });
    chunks.push(Buffer.from("\n  ]"));
  }
  chunks.push(Buffer.from(`${text.slice(at + marker.length)}\n`));
  return Buffer.concat(chunks);
}
