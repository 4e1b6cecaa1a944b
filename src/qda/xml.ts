import { XMLBuilder, XMLParser } from "fast-xml-parser";

/** The REFI-QDA namespaces (QDA-XML 1.0). */
export const PROJECT_NS = "urn:QDA-XML:project:1.0";
export const CODEBOOK_NS = "urn:QDA-XML:codebook:1.0";

/** An element as fast-xml-parser builds it: "@_name" attributes, child elements, "#text". */
export type XmlNode = { [key: string]: string | number | boolean | XmlNode | XmlNode[] | undefined };

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@_", format: true, indentBy: "  ", suppressEmptyNode: true, suppressBooleanAttributes: false, processEntities: true });

/** A whole XML document (UTF-8 declaration first) from its root element. */
export function xmlDocument(root: string, node: XmlNode): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n${builder.build({ [root]: node }) as string}`;
}

/** Elements that may repeat: always parsed as arrays, so one or many read the same way. */
const REPEATED = new Set(["User", "Code", "Variable", "Case", "VariableValue", "SourceRef", "TextSource", "PictureSource", "PDFSource", "AudioSource", "VideoSource", "PlainTextSelection", "Coding", "Set", "MemberCode", "NoteRef"]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  isArray: (name) => REPEATED.has(name),
});

/** Parse a QDA-XML document; elements are unprefixed, attributes "@_name", text "#text" or a string. */
export function parseXml(text: string): XmlNode {
  return parser.parse(text) as XmlNode;
}

/** An element's text, whether the parser gave a string or {"#text": …}. */
export function textOf(node: unknown): string | undefined {
  if (typeof node === "string") return node;
  if (node && typeof node === "object" && "#text" in node) return String((node as XmlNode)["#text"]);
  return undefined;
}

/** Children of one name as an array (absent: none). */
export function childrenOf(node: XmlNode | undefined, name: string): XmlNode[] {
  const value = node?.[name];
  if (value === undefined || value === "") return [];
  return (Array.isArray(value) ? value : [value]) as XmlNode[];
}

/** One child element (or undefined). */
export function childOf(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return childrenOf(node, name)[0];
}

/** An attribute's value as a string. */
export function attr(node: XmlNode | undefined, name: string): string | undefined {
  const value = node?.[`@_${name}`];
  return value === undefined ? undefined : String(value);
}
