import type { Codebook } from "../coding/codebook/schema.js";
import { slugify } from "../transcript/ids.js";
import { codebookTree, treeCodebooks, type QdaCode, type QdaSet } from "./codes.js";
import { codeNode } from "./project-write.js";
import { attr, childOf, childrenOf, CODEBOOK_NS, parseXml, textOf, xmlDocument, type XmlNode } from "./xml.js";

/** A codebook as a REFI-QDA codebook file (.qdc, urn:QDA-XML:codebook:1.0), and back. */
export function codebookToQdc(codebook: Codebook): string {
  const { root, sets } = codebookTree(codebook);
  const node: XmlNode = { "@_xmlns": CODEBOOK_NS, "@_origin": "Colloquy", Codes: { Code: [codeNode(root)] } };
  const kept = sets.filter((s) => s.members.length > 0);
  if (kept.length) node.Sets = { Set: kept.map((s) => ({ "@_guid": s.guid, "@_name": s.name, ...(s.description ? { Description: s.description } : {}), MemberCode: s.members.map((m) => ({ "@_targetGUID": m })) })) };
  return xmlDocument("CodeBook", node);
}

/** Codes of a parsed <Codes> element, as a tree. */
export function readCodes(codes: XmlNode | undefined): QdaCode[] {
  return childrenOf(codes, "Code").map((c) => ({
    guid: attr(c, "guid") ?? "",
    name: attr(c, "name") ?? "",
    isCodable: attr(c, "isCodable") !== "false" && attr(c, "isCodable") !== "0",
    description: textOf(childOf(c, "Description"))?.trim(),
    children: readCodes(c),
  }));
}

/** Sets of a parsed <Sets> element. */
export function readSets(sets: XmlNode | undefined): QdaSet[] {
  return childrenOf(sets, "Set").map((s) => ({
    guid: attr(s, "guid") ?? "",
    name: attr(s, "name") ?? "",
    description: textOf(childOf(s, "Description"))?.trim(),
    members: childrenOf(s, "MemberCode").map((m) => attr(m, "targetGUID") ?? ""),
  }));
}

/** Parse a .qdc file's text into Colloquy codebooks (usually one). Errors name the file. */
export function qdcToCodebooks(text: string, file: string, fallbackId?: string): { codebooks: Codebook[]; warnings: string[] } {
  let doc: XmlNode;
  try {
    doc = parseXml(text);
  } catch (error) {
    throw new Error(`${file}: not valid XML (${(error as Error).message}); expected a REFI-QDA codebook (.qdc)`);
  }
  const root = childOf(doc, "CodeBook");
  if (!root) throw new Error(`${file}: no <CodeBook> root element; expected a REFI-QDA codebook (urn:QDA-XML:codebook:1.0)`);
  const codes = readCodes(childOf(root, "Codes"));
  if (codes.length === 0) throw new Error(`${file}: <CodeBook> has no <Codes>/<Code>; nothing to import`);
  const stem = file.split(/[\\/]/).pop()!.replace(/\.[^.]+$/, "");
  const origin = attr(root, "origin");
  const { codebooks, warnings } = treeCodebooks(codes, readSets(childOf(root, "Sets")), { id: fallbackId ?? slugify(stem, "codebook"), title: stem, origin });
  return { codebooks, warnings };
}
