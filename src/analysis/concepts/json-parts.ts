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
 * `JSON.stringify(object, null, 2) + "\n"`, with the top-level array property `key` made of the
 * elements' texts (from {@link prettyElement}) instead of stringified here.
 */
export function prettyJsonWithArray(object: Record<string, unknown>, key: string, elements: readonly string[]): string {
  if (!Object.hasOwn(object, key)) throw new Error(`prettyJsonWithArray: the object has no "${key}" property`);
  // A marker no stringified value can contain: JSON escapes U+0000 inside strings.
  const marker = "\u0000parts\u0000";
  const text = JSON.stringify({ ...object, [key]: marker }, null, 2);
  const array = elements.length === 0 ? "[]" : `[\n${ELEMENT_INDENT}${elements.join(`,\n${ELEMENT_INDENT}`)}\n  ]`;
  const at = text.indexOf(JSON.stringify(marker));
  return `${text.slice(0, at)}${array}${text.slice(at + JSON.stringify(marker).length)}\n`;
}
