import { parseXmlOrdered, XmlSyntaxError, type XmlNode } from "../../util/xml.js";
import { ImportError } from "../types.js";

/**
 * XML for the transcript formats that use it (Transcriber .trs, ELAN .eaf, the .docx body), parsed
 * by the one XML module (`src/util/xml.ts`: XML entities only) in document order: mixed content
 * such as `<Sync/>text<Sync/>text` keeps its sequence, and text is never trimmed or re-spaced.
 */

export type { XmlNode };

/** Parse XML text; a malformed document is an ImportError naming the line and what is wrong. */
export function parseXml(text: string, file: string, expected: string): XmlNode[] {
  try {
    return parseXmlOrdered(text);
  } catch (error) {
    if (error instanceof XmlSyntaxError)
      throw new ImportError({ file, line: error.line, problem: `invalid XML at column ${error.column}: ${error.message}`, expected });
    throw new ImportError({ file, line: 1, problem: `invalid XML: ${(error as Error).message}`, expected });
  }
}

/** The document's root element `name`; a document without one is an ImportError naming the file. */
export function xmlRoot(text: string, file: string, name: string, expected: string): XmlNode {
  const root = elements(parseXml(text, file, expected), name)[0];
  if (!root) throw new ImportError({ file, line: 1, problem: `no <${name}> element`, expected });
  return root;
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
