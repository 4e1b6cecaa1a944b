import { XMLParser, XMLValidator } from "fast-xml-parser";
import { ImportError } from "../types.js";

/**
 * XML for the transcript formats that use it (Transcriber .trs, ELAN .eaf), through
 * fast-xml-parser in document order: mixed content such as `<Sync/>text<Sync/>text` keeps its
 * sequence, and text is never trimmed or re-spaced by the parser.
 */

/** One element or text node, as fast-xml-parser's preserveOrder mode returns it. */
export type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  preserveOrder: true,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  // Numeric character references (&#233;) are XML; the parser decodes them with this switch.
  htmlEntities: true,
});

/** Parse XML text; a malformed document is an ImportError naming the line and what is wrong. */
export function parseXml(text: string, file: string, expected: string): XmlNode[] {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new ImportError({ file, line: valid.err.line, problem: `invalid XML at column ${valid.err.col}: ${valid.err.msg}`, expected });
  try {
    return parser.parse(text) as XmlNode[];
  } catch (error) {
    // The validator and the parser disagree on a few malformed cases (an unclosed `<?…`): still a located, typed error.
    const at = /line:?\s*(\d+)/i.exec((error as Error).message);
    throw new ImportError({ file, line: at ? Number(at[1]) : 1, problem: `invalid XML: ${(error as Error).message}`, expected });
  }
}

/** The element name of a node ("#text" for text). */
export function tagOf(node: XmlNode): string {
  for (const key of Object.keys(node)) if (key !== ":@") return key;
  return "";
}

export function attrsOf(node: XmlNode): Record<string, string> {
  return (node[":@"] as Record<string, string> | undefined) ?? {};
}

export function childrenOf(node: XmlNode): XmlNode[] {
  const value = node[tagOf(node)];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}

/** The text of a text node, or undefined for elements. */
export function textOf(node: XmlNode): string | undefined {
  const value = node["#text"];
  return value === undefined ? undefined : String(value);
}

/** Child elements called `name`. */
export function elements(nodes: readonly XmlNode[], name: string): XmlNode[] {
  return nodes.filter((n) => tagOf(n) === name);
}

/** All text inside a node, in order. */
export function allText(node: XmlNode): string {
  const own = textOf(node);
  if (own !== undefined) return own;
  return childrenOf(node).map(allText).join("");
}

/** A number attribute, or undefined when absent or not a number. */
export function numberAttr(attrs: Record<string, string>, name: string): number | undefined {
  const raw = attrs[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}
