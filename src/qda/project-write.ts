import type { Codebook } from "../coding/codebook/schema.js";
import type { CodeRecord } from "../coding/records.js";
import type { Session } from "../transcript/schema.js";
import { codebookTree, codeGuid, type QdaCode } from "./codes.js";
import { coderUserName } from "./coders.js";
import { stableGuid } from "./guid.js";
import { renderSession, type TurnSpan } from "./text.js";
import type { XmlElement } from "../util/xml.js";
import { qdaXmlDocument, xmlElement, type XmlTree } from "./xml-write.js";

/** The REFI-QDA project namespace (QDA-XML 1.0). */
const PROJECT_NS = "urn:QDA-XML:project:1.0";

/**
 * A study as a REFI-QDA project (project.qde plus one plain-text file per session under sources/).
 * Pure: takes what the study holds, returns the files to zip.
 */

export interface ProjectInput {
  name: string;
  sessions: readonly Session[];
  codebooks: readonly Codebook[];
  /** Code records that apply now (one per turn x codebook x coder). */
  records: readonly CodeRecord[];
  /** "\r\n" for MAXQDA, which counts a line break as two characters. */
  eol: "\n" | "\r\n";
  createdAt: string;
}

export interface ProjectFiles {
  /** project.qde */
  qde: string;
  /** sources/<guid>.txt -> text */
  sources: Map<string, string>;
  codings: number;
  /** Code records not written, and why (a codebook not exported, a turn with no words). */
  skipped: string[];
  /** Things a reader of the project should know (a turn line that looks like a speaker's). */
  warnings: string[];
}

export function codeNode(code: QdaCode): XmlElement {
  const node: XmlElement = { "@_guid": code.guid, "@_name": code.name, "@_isCodable": code.isCodable };
  if (code.description) node.Description = code.description;
  if (code.children.length) node.Code = code.children.map(codeNode);
  return node;
}

/** Session metadata worth a case variable: scalars, never the source path. */
function caseValues(session: Session): [string, string | number | boolean][] {
  const out: [string, string | number | boolean][] = [["session", session.id]];
  for (const [key, value] of Object.entries(session.metadata)) {
    if (key === "source") continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out.push([key, value]);
  }
  // Who speaks, and which of them are AI agents: lets an import tell speaker lines from words.
  out.push(["speakers", JSON.stringify(session.participants.map((p) => p.name))]);
  const ai = session.participants.filter((p) => p.kind === "ai").map((p) => p.name);
  if (ai.length) out.push(["ai_speakers", JSON.stringify(ai)]);
  return out;
}

type VariableType = "Text" | "Boolean" | "Integer" | "Float";
const typeOf = (v: string | number | boolean): VariableType =>
  typeof v === "boolean" ? "Boolean" : typeof v === "number" ? (Number.isInteger(v) ? "Integer" : "Float") : "Text";
const VALUE_ELEMENT: Record<VariableType, string> = { Text: "TextValue", Boolean: "BooleanValue", Integer: "IntegerValue", Float: "FloatValue" };

export function buildProject(input: ProjectInput): ProjectFiles {
  const skipped: string[] = [];
  const warnings: string[] = [];
  const books = new Map(input.codebooks.map((c) => [c.id, c]));
  const trees = input.codebooks.map(codebookTree);

  const coders = [...new Set(input.records.filter((r) => books.has(r.codebook)).map((r) => r.coder))].sort();
  const userGuid = (coder: string) => stableGuid(`user:${coder}`);

  // Variables: one per metadata key; a key with values of two types is Text.
  const perSession = input.sessions.map((s) => [s, caseValues(s)] as const);
  const variableTypes = new Map<string, VariableType>();
  for (const [, values] of perSession) {
    for (const [key, value] of values) {
      const t = typeOf(value);
      const known = variableTypes.get(key);
      variableTypes.set(key, known === undefined || known === t ? t : "Text");
    }
  }
  const variableGuid = (key: string) => stableGuid(`variable:${key}`);

  const byTurn = new Map<string, CodeRecord[]>();
  for (const r of input.records) {
    if (!books.has(r.codebook)) {
      skipped.push(`${r.codebook}/${r.coder} ${r.session}/${r.turn}: codebook ${r.codebook} is not exported`);
      continue;
    }
    const key = `${r.session}\u0000${r.turn}`;
    byTurn.set(key, [...(byTurn.get(key) ?? []), r]);
  }

  const sources = new Map<string, string>();
  let codings = 0;
  const textSources = input.sessions.map((session) => {
    const guid = stableGuid(`source:${session.id}`);
    const { text, spans } = renderSession(session, input.eol);
    // A line inside a turn that starts like a speaker's line would read as a new turn in another tool.
    const labels = session.participants.map((p) => `${p.name}:`);
    for (const turn of session.turns) {
      if (
        turn.text
          .split(/\r?\n/)
          .slice(1)
          .some((line) => labels.some((l) => line.startsWith(l)))
      )
        warnings.push(
          `${session.id}/${turn.id}: a line of this turn starts with a speaker's name and colon; QDA tools show it as written, but a tool that splits speaker lines may split the turn there (Colloquy does not: its export lists the speakers)`,
        );
    }
    sources.set(`sources/${guid}.txt`, text);
    const selections: XmlElement[] = [];
    for (const span of spans) {
      const records = byTurn.get(`${session.id}\u0000${span.turn}`) ?? [];
      if (records.length === 0) continue;
      if (span.end === span.start) {
        skipped.push(`${records.length} code(s) of ${session.id}/${span.turn}: the turn has no words to select`);
        continue;
      }
      const text = session.turns.find((t) => t.id === span.turn)!.text;
      for (const selection of turnSelections(span, text, records, books, input.eol)) {
        codings += selection.codings.length;
        selections.push({
          "@_guid": stableGuid(`selection:${session.id}:${span.turn}:${selection.coder}:${selection.start}:${selection.end}`),
          "@_name": `${session.id} ${span.turn}`,
          "@_startPosition": selection.start,
          "@_endPosition": selection.end,
          // QualCoder reads the coder of a coding from its selection, NVivo and MAXQDA from the coding: both say it.
          "@_creatingUser": userGuid(selection.coder),
          "@_creationDateTime": selection.createdAt,
          Coding: selection.codings.map(({ codebook, target }) => ({
            "@_guid": stableGuid(`coding:${codebook}:${selection.coder}:${session.id}:${span.turn}:${target}:${selection.start}:${selection.end}`),
            "@_creatingUser": userGuid(selection.coder),
            "@_creationDateTime": selection.createdAt,
            CodeRef: { "@_targetGUID": target },
          })),
        });
      }
    }
    const node: XmlElement = {
      "@_guid": guid,
      "@_name": session.title ?? session.id,
      "@_plainTextPath": `internal://${guid}.txt`,
      "@_creationDateTime": input.createdAt,
    };
    node.Description = `Colloquy session ${session.id}: ${session.turns.length} turns; speakers ${session.participants.map((p) => `${p.name} (${p.kind})`).join(", ")}`;
    if (selections.length) node.PlainTextSelection = selections;
    // Project > Sources > TextSource: written now, so the selections' objects are dropped as each source is done.
    return xmlElement("TextSource", node, 2);
  });

  const project: XmlTree = {
    "@_xmlns": PROJECT_NS,
    "@_name": input.name,
    "@_origin": "Colloquy",
    "@_creationDateTime": input.createdAt,
  };
  // A coder imported from a QDA tool keeps the name it had there ("Gergo", not "gergo").
  const names = new Map<string, string>();
  for (const r of input.records) if (typeof r.provenance.user === "string" && !names.has(r.coder)) names.set(r.coder, r.provenance.user);
  if (coders.length) project.Users = { User: coders.map((c) => ({ "@_guid": userGuid(c), "@_name": names.get(c) ?? coderUserName(c), "@_id": c })) };
  if (trees.length) project.CodeBook = { Codes: { Code: trees.map((t) => codeNode(t.root)) } };
  if (variableTypes.size)
    project.Variables = { Variable: [...variableTypes].map(([key, type]) => ({ "@_guid": variableGuid(key), "@_name": key, "@_typeOfVariable": type })) };
  if (perSession.length) {
    project.Cases = {
      Case: perSession.map(([session, values]) => ({
        "@_guid": stableGuid(`case:${session.id}`),
        "@_name": session.id,
        VariableValue: values.map(([key, value]) => {
          const type = variableTypes.get(key)!;
          return { VariableRef: { "@_targetGUID": variableGuid(key) }, [VALUE_ELEMENT[type]]: type === "Text" ? String(value) : value };
        }),
        SourceRef: [{ "@_targetGUID": stableGuid(`source:${session.id}`) }],
      })),
    };
    project.Sources = { TextSource: textSources };
  }
  const sets = trees.flatMap((t) => t.sets).filter((s) => s.members.length > 0);
  if (sets.length)
    project.Sets = {
      Set: sets.map((s) => ({
        "@_guid": s.guid,
        "@_name": s.name,
        ...(s.description ? { Description: s.description } : {}),
        MemberCode: s.members.map((m) => ({ "@_targetGUID": m })),
      })),
    };
  return { qde: qdaXmlDocument("Project", project), sources, codings, skipped, warnings };
}

/** The code GUIDs of some codes or ratings under a codebook: its categories, or the point of each scale rated. */
function codeTargets(value: { codes?: string[]; scores?: Record<string, number> }, codebook: Codebook): string[] {
  if (codebook.kind === "nominal")
    return (value.codes ?? []).filter((c) => codebook.categories.some((k) => k.id === c)).map((c) => codeGuid.category(codebook.id, c));
  return Object.entries(value.scores ?? {})
    .filter(([scale, v]) => codebook.scales.some((s) => s.id === scale && Number.isInteger(v) && v >= 1 && v <= s.points))
    .map(([scale, v]) => codeGuid.point(codebook.id, scale, v));
}

/** One PlainTextSelection to write: a range of the source, one coder, the codes it applied there. */
interface SelectionOut {
  start: number;
  end: number;
  coder: string;
  createdAt: string;
  codings: { codebook: string; target: string }[];
}

/** Source offset of code point `offset` of a turn's text, its words starting at `start` (a "\n" is two with CRLF). */
function sourceOffset(text: string, offset: number, start: number, eol: "\n" | "\r\n"): number {
  if (eol === "\n") return start + offset;
  let breaks = 0;
  let n = 0;
  for (const ch of text) {
    if (n++ >= offset) break;
    if (ch === "\n") breaks++;
  }
  return start + offset + breaks;
}

/**
 * The selections of one turn: a record's segments (ranges of the turn coded in a QDA tool) each
 * at its range, every other record's codes on the turn's words; one selection per range and coder.
 */
function turnSelections(
  span: TurnSpan,
  text: string,
  records: readonly CodeRecord[],
  books: ReadonlyMap<string, Codebook>,
  eol: "\n" | "\r\n",
): SelectionOut[] {
  const out = new Map<string, SelectionOut>();
  const add = (coder: string, createdAt: string, start: number, end: number, codebook: string, targets: string[]) => {
    const key = `${start}\u0000${end}\u0000${coder}`;
    const selection = out.get(key) ?? { start, end, coder, createdAt, codings: [] };
    for (const target of targets) if (!selection.codings.some((c) => c.target === target)) selection.codings.push({ codebook, target });
    out.set(key, selection);
  };
  const length = span.end - span.start;
  for (const r of records) {
    const book = books.get(r.codebook)!;
    if (!r.segments) {
      add(r.coder, r.createdAt, span.start, span.end, book.id, codeTargets(r, book));
      continue;
    }
    for (const segment of r.segments) {
      const [from, to] = [segment.start, segment.end].map((o) => Math.min(sourceOffset(text, o, span.start, eol), span.start + length));
      if (to > from) add(r.coder, r.createdAt, from, to, book.id, codeTargets(segment, book));
    }
  }
  return [...out.values()].filter((s) => s.codings.length > 0).sort((a, b) => a.start - b.start || a.end - b.end || (a.coder < b.coder ? -1 : 1));
}
