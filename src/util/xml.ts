import { onFirstUse } from "./on-first-use.js";
import type { X2jOptions } from "fast-xml-parser";

/**
 * The one place XML is parsed and written (fast-xml-parser), for the REFI-QDA files (`src/qda/`)
 * and the XML transcript formats (`src/ingest/formats/`). Entities are decoded as XML defines
 * them, nothing more: the five predefined ones (&lt; &gt; &amp; &quot; &apos;), decimal and hex
 * character references (&#233; &#x1F600; &#13;&#10;), and entities the document declares in its
 * own DOCTYPE. An HTML-only name such as &nbsp; is a well-formedness error, not a character.
 * Decoding matters beyond looks: REFI-QDA selection offsets count the decoded characters.
 */

/**
 * fast-xml-parser, loaded on first use: its ES build took 65 ms to import, which every import run
 * paid although most transcripts are not XML (its CommonJS build loads in a few ms, and `require`
 * keeps these functions synchronous).
 */
const xml = onFirstUse<typeof import("fast-xml-parser")>("fast-xml-parser");

/** A document that is not well-formed XML; `line` and `column` are 1-based. */
export class XmlSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
    this.name = "XmlSyntaxError";
  }
}

/** XML's predefined entities: a Map, so that `&constructor;` names none of them. */
const PREDEFINED: ReadonlyMap<string, string> = new Map([
  ["lt", "<"],
  ["gt", ">"],
  ["amp", "&"],
  ["quot", '"'],
  ["apos", "'"],
]);
const REFERENCE = /&(#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z_:][\w.:-]*);/g;

/** A character reference's code point, or an error: XML allows only its Char production. */
function fromCodePoint(reference: string): string {
  const hex = reference[1] === "x" || reference[1] === "X";
  const code = Number.parseInt(reference.slice(hex ? 2 : 1), hex ? 16 : 10);
  const allowed =
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff);
  if (!allowed) throw new Error(`&${reference}; is not a character XML allows`);
  return String.fromCodePoint(code);
}

/** fast-xml-parser's entity hook: XML's entities only; a document's DOCTYPE may add its own. */
function xmlEntities() {
  let declared = new Map<string, string>();
  const decode = (text: string): string =>
    text.includes("&")
      ? text.replace(REFERENCE, (_, ref: string) => {
          if (ref.startsWith("#")) return fromCodePoint(ref);
          const value = PREDEFINED.get(ref) ?? declared.get(ref);
          if (value === undefined)
            throw new Error(
              `&${ref}; is not an XML entity (XML knows &lt; &gt; &amp; &quot; &apos;, &#…; references and plain-text entities the document's DOCTYPE declares; an HTML name such as &nbsp; is not XML: write the character itself or &#…;)`,
            );
          return value;
        })
      : text;
  return {
    decode,
    reset: () => void (declared = new Map()),
    // fast-xml-parser hands over only declarations whose text holds no "&" (no nesting).
    addInputEntities: (entities: Record<string, unknown>) => {
      for (const [name, value] of Object.entries(entities)) if (typeof value === "string") declared.set(name, value);
    },
    setExternalEntities: () => undefined,
    setXmlVersion: () => undefined,
  };
}

const BASE: X2jOptions = {
  ignoreAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  // Text is never trimmed or re-spaced: offsets into it must hold.
  trimValues: false,
  processEntities: true,
};

/** The 1-based line of a character offset. */
const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length;

function parseWith(text: string, options: X2jOptions): unknown {
  const { XMLParser, XMLValidator } = xml();
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new XmlSyntaxError(valid.err.msg, valid.err.line, valid.err.col);
  // A fresh parser per document: the entity hook holds the document's own DOCTYPE entities.
  const parser = new XMLParser({ ...BASE, ...options, entityDecoder: xmlEntities() });
  try {
    return parser.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    // An undeclared entity: name the line it is first written on.
    const entity = /^&([^;]+);/.exec(message);
    const at = entity ? text.indexOf(`&${entity[1]};`) : -1;
    const line = at >= 0 ? lineAt(text, at) : Number(/line:?\s*(\d+)/i.exec(message)?.[1] ?? 1);
    throw new XmlSyntaxError(message, line, at >= 0 ? at - text.lastIndexOf("\n", at - 1) : 1);
  }
}

// ---- Tree shape: one object per element ("@_name" attributes, child elements by name, "#text").

/** An element as a tree: "@_name" attributes, child elements, "#text". */
export type XmlElement = { [key: string]: string | number | boolean | XmlElement | XmlElement[] | undefined };

/**
 * A document as a tree, namespace prefixes removed. Elements named in `repeated` are always
 * arrays, so one or many read the same way. Throws XmlSyntaxError.
 */
export function parseXmlTree(text: string, repeated: ReadonlySet<string>): XmlElement {
  return parseWith(text, { attributeNamePrefix: "@_", removeNSPrefix: true, isArray: (name) => repeated.has(name) }) as XmlElement;
}

/** An element's text, whether the parser gave a string or {"#text": …}. */
export function elementText(node: unknown): string | undefined {
  if (typeof node === "string") return node;
  if (node && typeof node === "object" && "#text" in node) return String((node as XmlElement)["#text"]);
  return undefined;
}

/** Children of one name as an array (absent: none). */
export function childElements(node: XmlElement | undefined, name: string): XmlElement[] {
  const value = node?.[name];
  if (value === undefined || value === "") return [];
  return (Array.isArray(value) ? value : [value]) as XmlElement[];
}

/** One child element (or undefined). */
export function childElement(node: XmlElement | undefined, name: string): XmlElement | undefined {
  return childElements(node, name)[0];
}

/** An attribute's value as a string. */
export function attribute(node: XmlElement | undefined, name: string): string | undefined {
  const value = node?.[`@_${name}`];
  return value === undefined ? undefined : String(value);
}

// ---- Ordered shape: a list of nodes in document order, so mixed content keeps its sequence.

/** One element or text node, as fast-xml-parser's preserveOrder mode returns it. */
export type XmlNode = Record<string, unknown>;

/** A document as nodes in document order (`<Sync/>text<Sync/>text` keeps its sequence). Throws XmlSyntaxError. */
export function parseXmlOrdered(text: string): XmlNode[] {
  return parseWith(text, { attributeNamePrefix: "", preserveOrder: true }) as XmlNode[];
}
