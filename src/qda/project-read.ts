import { unzipEntries, utf8Text } from "../util/zip.js";
import type { QdaCode, QdaSet } from "./codes.js";
import { normaliseGuid } from "./guid.js";
import { parseQdaXml, readCodes, readSets, xmlProblem } from "./qdc.js";
import { attribute, childElement, childElements, elementText, type XmlElement } from "../util/xml.js";

/** What Colloquy reads of a REFI-QDA project (.qdpx): text sources, codes, users, codings, case variables. */

export interface QdaCoding {
  code: string;
  user?: string;
  createdAt?: string;
}

export interface QdaSelection {
  guid: string;
  start: number;
  end: number;
  codings: QdaCoding[];
}

export interface QdaTextSource {
  guid: string;
  name: string;
  text: string;
  /** Variable name -> value (from the source's cases and its own variable values), typed as the variable says. */
  variables: Map<string, string | number | boolean>;
  selections: QdaSelection[];
  /** Codings of the whole source (no range): they cannot name a turn. */
  wholeSourceCodings: number;
  /**
   * What the project says about the source beyond its text, kept so an import loses nothing:
   * every attribute of its <TextSource> (creating user resolved to a name, dates, paths) and the
   * names of the sets (<Set><MemberSource>) it belongs to.
   */
  about: { attributes: Record<string, string>; sets: string[] };
}

export interface QdaProject {
  name: string;
  origin?: string;
  users: Map<string, { id?: string; name?: string }>;
  codes: QdaCode[];
  sets: QdaSet[];
  sources: QdaTextSource[];
  /** Sources Colloquy cannot read (pictures, PDFs, audio, video, text without a plain-text file). */
  skipped: string[];
  /** Text read with invalid UTF-8 bytes (replaced by U+FFFD), naming the file and the entry. */
  warnings: string[];
}

const VALUE_ELEMENTS = ["TextValue", "BooleanValue", "IntegerValue", "FloatValue", "DateValue", "DateTimeValue"];

/** Read a .qdpx (zip) file's bytes. Errors name `file` and what was expected. */
export function readProject(bytes: Uint8Array, file: string): QdaProject {
  let entries: Record<string, Uint8Array>;
  try {
    // Only the project and its text sources are unpacked: a project's videos and PDFs stay compressed.
    entries = unzipEntries(bytes, (name) => /\.qde$/i.test(name) || /(^|\/)sources\/.*\.txt$/i.test(name));
  } catch (error) {
    throw new Error(
      `${file}: not a zip archive, or not one to unpack (${(error as Error).message}); a .qdpx project is a zip holding project.qde and sources/`,
    );
  }
  const warnings: string[] = [];
  const names = Object.keys(entries);
  const qdeName = names.find((n) => /(^|\/)[^/]+\.qde$/i.test(n));
  if (!qdeName) throw new Error(`${file}: no .qde file inside (found ${names.slice(0, 5).join(", ") || "nothing"}); expected project.qde`);
  let doc: XmlElement;
  try {
    doc = parseQdaXml(utf8Text(entries[qdeName], `${file} (${qdeName})`, warnings));
  } catch (error) {
    throw new Error(`${file}: ${qdeName} is not valid XML (${xmlProblem(error)})`);
  }
  const project = childElement(doc, "Project");
  if (!project) throw new Error(`${file}: ${qdeName} has no <Project> root element; expected urn:QDA-XML:project:1.0`);
  // Internal files are looked up by name, case-insensitively ("Sources/" in some tools).
  const byLowerName = new Map(names.map((n) => [n.toLowerCase(), n]));
  const internal = (path: string): Uint8Array | undefined => {
    const m = /^internal:\/\/(.+)$/i.exec(path);
    if (!m) return undefined;
    const found = byLowerName.get(`sources/${m[1]}`.toLowerCase()) ?? names.find((n) => n.toLowerCase().endsWith(`/sources/${m[1].toLowerCase()}`));
    return found ? entries[found] : undefined;
  };

  const users = new Map(
    childElements(childElement(project, "Users"), "User").map((u) => [
      normaliseGuid(attribute(u, "guid") ?? ""),
      { id: attribute(u, "id"), name: attribute(u, "name") },
    ]),
  );
  const variableNames = new Map(
    childElements(childElement(project, "Variables"), "Variable").map((v) => [normaliseGuid(attribute(v, "guid") ?? ""), attribute(v, "name") ?? ""]),
  );
  const valuesOf = (node: XmlElement): [string, string | number | boolean][] =>
    childElements(node, "VariableValue").flatMap((vv) => {
      const name = variableNames.get(normaliseGuid(attribute(childElement(vv, "VariableRef"), "targetGUID") ?? ""));
      const element = VALUE_ELEMENTS.find((e) => vv[e] !== undefined);
      const value = element ? elementText(vv[element]) : undefined;
      return name && value !== undefined && element ? [[name, typedValue(element, value)] as [string, string | number | boolean]] : [];
    });
  const caseVariables = new Map<string, [string, string | number | boolean][]>();
  for (const c of childElements(childElement(project, "Cases"), "Case")) {
    const values = valuesOf(c);
    for (const ref of childElements(c, "SourceRef")) {
      const source = normaliseGuid(attribute(ref, "targetGUID") ?? "");
      caseVariables.set(source, [...(caseVariables.get(source) ?? []), ...values]);
    }
  }

  const setsOfSource = new Map<string, string[]>();
  for (const set of childElements(childElement(project, "Sets"), "Set")) {
    for (const member of childElements(set, "MemberSource")) {
      const source = normaliseGuid(attribute(member, "targetGUID") ?? "");
      setsOfSource.set(source, [...(setsOfSource.get(source) ?? []), attribute(set, "name") ?? ""]);
    }
  }
  const sources: QdaTextSource[] = [];
  const skipped: string[] = [];
  const sourcesNode = childElement(project, "Sources");
  for (const kind of ["PictureSource", "PDFSource", "AudioSource", "VideoSource"]) {
    for (const s of childElements(sourcesNode, kind))
      skipped.push(`${attribute(s, "name") ?? attribute(s, "guid")}: a ${kind.replace("Source", "").toLowerCase()} source (only text sources become sessions)`);
  }
  for (const s of childElements(sourcesNode, "TextSource")) {
    const guid = normaliseGuid(attribute(s, "guid") ?? "");
    const name = attribute(s, "name") ?? guid;
    const path = attribute(s, "plainTextPath");
    const inline = elementText(childElement(s, "PlainTextContent"));
    let text: string | undefined = inline;
    if (text === undefined && path) {
      const data = internal(path);
      if (!data) {
        skipped.push(`${name}: its text ${path} is not inside the project (only internal:// sources are read)`);
        continue;
      }
      text = utf8Text(data, `${file} (${path})`, warnings).replace(/^\uFEFF/, "");
    }
    if (text === undefined) {
      skipped.push(`${name}: no plain text (plainTextPath or PlainTextContent); export it from your QDA tool with its plain text`);
      continue;
    }
    const codingsOf = (node: XmlElement, fallbackUser?: string): QdaCoding[] =>
      childElements(node, "Coding").map((c) => ({
        code: normaliseGuid(attribute(childElement(c, "CodeRef"), "targetGUID") ?? ""),
        user: normaliseOptional(attribute(c, "creatingUser") ?? fallbackUser),
        createdAt: attribute(c, "creationDateTime"),
      }));
    sources.push({
      guid,
      name,
      text,
      variables: new Map([...(caseVariables.get(guid) ?? []), ...valuesOf(s)]),
      selections: childElements(s, "PlainTextSelection").map((sel) => ({
        guid: normaliseGuid(attribute(sel, "guid") ?? ""),
        start: Number(attribute(sel, "startPosition")),
        end: Number(attribute(sel, "endPosition")),
        codings: codingsOf(sel, attribute(sel, "creatingUser")),
      })),
      wholeSourceCodings: childElements(s, "Coding").length,
      about: { attributes: sourceAttributes(s, users), sets: setsOfSource.get(guid) ?? [] },
    });
  }
  return {
    name: attribute(project, "name") ?? file,
    origin: attribute(project, "origin"),
    users,
    codes: normaliseCodes(readCodes(childElement(childElement(project, "CodeBook"), "Codes"))),
    sets: readSets(childElement(project, "Sets")).map((s) => ({ ...s, guid: normaliseGuid(s.guid), members: s.members.map(normaliseGuid) })),
    sources,
    skipped,
    warnings,
  };
}

/** Every attribute of a source element, its creating/modifying user named when the project lists them. */
function sourceAttributes(node: XmlElement, users: QdaProject["users"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(node)) {
    if (!key.startsWith("@_") || value === undefined) continue;
    const name = key.slice(2);
    const user = /User$/.test(name) ? users.get(normaliseGuid(String(value)))?.name : undefined;
    out[name] = user ?? String(value);
  }
  return out;
}

/** Booleans and numbers as such (so session metadata keeps its types); dates stay text. */
function typedValue(element: string, value: string): string | number | boolean {
  if (element === "BooleanValue") return value.trim() === "true" || value.trim() === "1";
  if ((element === "IntegerValue" || element === "FloatValue") && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return value;
}

const normaliseOptional = (guid: string | undefined) => (guid === undefined ? undefined : normaliseGuid(guid));

function normaliseCodes(codes: QdaCode[]): QdaCode[] {
  return codes.map((c) => ({ ...c, guid: normaliseGuid(c.guid), children: normaliseCodes(c.children) }));
}
