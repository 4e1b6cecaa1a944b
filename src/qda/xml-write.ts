/**
 * REFI-QDA documents as text, from the tree shape the readers use ("@_name" attributes, child
 * elements by name, a string for an element's text). Written here rather than with
 * fast-xml-parser's builder: an export has one selection and coding per coded turn and coder
 * (300,000 elements for a 100,000-turn study), and the builder cost four times this loop and most
 * of the export's garbage. Only what the documents use: no mixed content, no namespaces beyond
 * the root's xmlns attribute.
 */

const ATTRIBUTE = /[&<>"\t\n\r]/g;
const TEXT = /[&<>\r]/g;
const ENTITY: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;" };
const escape = (pattern: RegExp) => (value: string) => value.replace(pattern, (c) => ENTITY[c]);
/** An attribute value: its line breaks and tabs as references, or a parser would turn them into spaces. */
const escapeAttribute = escape(ATTRIBUTE);
/** Element text: a CR as a reference, or a parser would turn CRLF into LF. */
const escapeText = escape(TEXT);

/** An element already written (by {@link xmlElement}), put in a tree as it is. */
export class RawXml {
  constructor(readonly xml: string) {}
}

/** The tree shape the readers use (util/xml.ts XmlElement), where an element may also be already written. */
export type XmlTree = { [key: string]: string | number | boolean | XmlTree | XmlTree[] | RawXml | RawXml[] | undefined };

function write(out: string[], name: string, value: unknown, indent: string): void {
  if (value === undefined || value === null) return;
  if (value instanceof RawXml) {
    out.push(value.xml);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) write(out, name, item, indent);
    return;
  }
  if (typeof value !== "object") {
    out.push(`${indent}<${name}>${escapeText(String(value))}</${name}>\n`);
    return;
  }
  const node = value as XmlTree;
  let open = `${indent}<${name}`;
  const children: string[] = [];
  for (const key in node) {
    const v = node[key];
    if (v === undefined) continue;
    if (key.startsWith("@_")) open += ` ${key.slice(2)}="${escapeAttribute(String(v))}"`;
    else children.push(key);
  }
  if (children.length === 0) {
    out.push(`${open}/>\n`);
    return;
  }
  out.push(`${open}>\n`);
  for (const key of children) write(out, key, node[key], `${indent}  `);
  out.push(`${indent}</${name}>\n`);
}

/**
 * One element, written now at its depth in the document (two spaces a level): a large document
 * written a part at a time holds text, not a tree of every part, until the end (an export's tree
 * of every selection was most of its memory, and its garbage collection most of its time).
 */
export function xmlElement(name: string, node: XmlTree, depth: number): RawXml {
  const out: string[] = [];
  write(out, name, node, "  ".repeat(depth));
  return new RawXml(out.join(""));
}

/** A whole document (UTF-8 declaration first) from its root element. */
export function qdaXmlDocument(root: string, node: XmlTree): string {
  const out = ['<?xml version="1.0" encoding="utf-8"?>\n'];
  write(out, root, node, "");
  return out.join("");
}
