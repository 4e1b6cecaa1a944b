import type { Codebook } from "../coding/codebook/schema.js";
import { slugify } from "../transcript/ids.js";
import { codebookTree, treeCodebooks, type QdaCode, type QdaSet } from "./codes.js";
import { codeNode } from "./project-write.js";
import { qdaXmlDocument } from "./xml-write.js";
import { attribute, childElement, childElements, elementText, parseXmlTree, XmlSyntaxError, type XmlElement } from "../util/xml.js";

/** The REFI-QDA codebook namespace (QDA-XML 1.0). */
const CODEBOOK_NS = "urn:QDA-XML:codebook:1.0";

/** Elements that may repeat: always parsed as arrays, so one or many read the same way. */
const REPEATED = new Set([
  "User",
  "Code",
  "Variable",
  "Case",
  "VariableValue",
  "SourceRef",
  "TextSource",
  "PictureSource",
  "PDFSource",
  "AudioSource",
  "VideoSource",
  "PlainTextSelection",
  "Coding",
  "Set",
  "MemberCode",
  "MemberSource",
  "NoteRef",
]);

/** Parse a QDA-XML document (.qde, .qdc): elements unprefixed, attributes "@_name", text "#text" or a string. Throws XmlSyntaxError. */
export function parseQdaXml(text: string): XmlElement {
  return parseXmlTree(text, REPEATED);
}

/** What is wrong with a document parseQdaXml refused, with its line when known. */
export function xmlProblem(error: unknown): string {
  return error instanceof XmlSyntaxError ? `line ${error.line}: ${error.message}` : (error as Error).message;
}

/** A codebook as a REFI-QDA codebook file (.qdc, urn:QDA-XML:codebook:1.0), and back. */
export function codebookToQdc(codebook: Codebook): string {
  const { root, sets } = codebookTree(codebook);
  const node: XmlElement = { "@_xmlns": CODEBOOK_NS, "@_origin": "Colloquy", Codes: { Code: [codeNode(root)] } };
  const kept = sets.filter((s) => s.members.length > 0);
  if (kept.length)
    node.Sets = {
      Set: kept.map((s) => ({
        "@_guid": s.guid,
        "@_name": s.name,
        ...(s.description ? { Description: s.description } : {}),
        // The codebook schema names a set's member by `guid`; the project schema by `targetGUID`.
        MemberCode: s.members.map((m) => ({ "@_guid": m })),
      })),
    };
  return qdaXmlDocument("CodeBook", node);
}

/** Codes of a parsed <Codes> element, as a tree. */
export function readCodes(codes: XmlElement | undefined): QdaCode[] {
  return childElements(codes, "Code").map((c) => ({
    guid: attribute(c, "guid") ?? "",
    name: attribute(c, "name") ?? "",
    isCodable: attribute(c, "isCodable") !== "false" && attribute(c, "isCodable") !== "0",
    description: elementText(childElement(c, "Description"))?.trim(),
    children: readCodes(c),
  }));
}

/** Sets of a parsed <Sets> element. */
export function readSets(sets: XmlElement | undefined): QdaSet[] {
  return childElements(sets, "Set").map((s) => ({
    guid: attribute(s, "guid") ?? "",
    name: attribute(s, "name") ?? "",
    description: elementText(childElement(s, "Description"))?.trim(),
    // `guid` in a codebook (.qdc), `targetGUID` in a project (.qde); either is read in both.
    members: childElements(s, "MemberCode").map((m) => attribute(m, "guid") ?? attribute(m, "targetGUID") ?? ""),
  }));
}

/** Parse a .qdc file's text into Colloquy codebooks (usually one). Errors name the file. */
export function qdcToCodebooks(text: string, file: string, fallbackId?: string): { codebooks: Codebook[]; warnings: string[] } {
  let doc: XmlElement;
  try {
    doc = parseQdaXml(text);
  } catch (error) {
    throw new Error(`${file}: not valid XML (${xmlProblem(error)}); expected a REFI-QDA codebook (.qdc)`);
  }
  const root = childElement(doc, "CodeBook");
  if (!root) throw new Error(`${file}: no <CodeBook> root element; expected a REFI-QDA codebook (urn:QDA-XML:codebook:1.0)`);
  const codes = readCodes(childElement(root, "Codes"));
  if (codes.length === 0) throw new Error(`${file}: <CodeBook> has no <Codes>/<Code>; nothing to import`);
  const stem = file
    .split(/[\\/]/)
    .pop()!
    .replace(/\.[^.]+$/, "");
  const origin = attribute(root, "origin");
  const { codebooks, warnings } = treeCodebooks(codes, readSets(childElement(root, "Sets")), {
    id: fallbackId ?? slugify(stem, "codebook"),
    title: stem,
    origin,
  });
  return { codebooks, warnings };
}
