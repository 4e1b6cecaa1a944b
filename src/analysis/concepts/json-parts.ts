/**
 * Pretty JSON (2-space indent, as writeJsonAtomic writes it) assembled from parts stringified
 * earlier: a per-session report's entries can be kept as text in the session memo
 * (src/study/session-memo.ts), so adding one session to a large study stringifies that session
 * only, instead of the whole report (issue 11). The result is byte for byte what
 * `JSON.stringify(value, null, 2)` gives for the whole object.
 */

/** The text of one element of a top-level array property, indented for its place in the file. */
export function prettyElement(value: unknown): string {
  // JSON strings never hold a raw newline (it is escaped), so every "\n" is a line break.
  return JSON.stringify(value, null, 2).replaceAll("\n", `\n${ELEMENT_INDENT}`);
}

const ELEMENT_INDENT = "    ";

/**
 * The bytes of `JSON.stringify(object, null, 2) + "\n"`, with the top-level array property `key`
 * made of the elements' texts (from {@link prettyElement}; UTF-8 bytes as a memo keeps them)
 * instead of stringified here. Bytes in, bytes out: at 100,000 turns the elements are 40 MB,
 * which decoding to one string and encoding it back to write it cost twice over.
 */
export function prettyJsonWithArray(object: Record<string, unknown>, key: string, elements: readonly (string | Uint8Array)[]): Buffer {
  if (!Object.hasOwn(object, key)) throw new Error(`prettyJsonWithArray: the object has no "${key}" property`);
  // A marker no stringified value can contain: JSON escapes U+0000 inside strings.
  const placeholder = "\u0000parts\u0000";
  const marker = JSON.stringify(placeholder);
  const text = JSON.stringify({ ...object, [key]: placeholder }, null, 2);
  const at = text.indexOf(marker);
  const chunks: Uint8Array[] = [Buffer.from(text.slice(0, at))];
  if (elements.length === 0) chunks.push(Buffer.from("[]"));
  else {
    const separator = Buffer.from(`,\n${ELEMENT_INDENT}`);
    chunks.push(Buffer.from(`[\n${ELEMENT_INDENT}`));
    elements.forEach((element, i) => {
      if (i > 0) chunks.push(separator);
      chunks.push(typeof element === "string" ? Buffer.from(element) : element);
    });
    chunks.push(Buffer.from("\n  ]"));
  }
  chunks.push(Buffer.from(`${text.slice(at + marker.length)}\n`));
  return Buffer.concat(chunks);
}
