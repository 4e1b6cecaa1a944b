import type { Codebook } from "../coding/codebook/schema.js";
import type { CodeRecord } from "../coding/records.js";
import type { Session } from "../transcript/schema.js";
import { codebookTree, codeGuid, type QdaCode } from "./codes.js";
import { coderUserName } from "./coders.js";
import { stableGuid } from "./guid.js";
import { renderSession } from "./text.js";
import { xmlDocument, type XmlElement } from "../util/xml.js";

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
      const codingNodes = records.flatMap((r) =>
        recordCodes(r, books.get(r.codebook)!).map((target) => ({
          "@_guid": stableGuid(`coding:${r.codebook}:${r.coder}:${session.id}:${span.turn}:${target}`),
          "@_creatingUser": userGuid(r.coder),
          "@_creationDateTime": r.createdAt,
          CodeRef: { "@_targetGUID": target },
        })),
      );
      codings += codingNodes.length;
      selections.push({
        "@_guid": stableGuid(`selection:${session.id}:${span.turn}`),
        "@_name": `${session.id} ${span.turn}`,
        "@_startPosition": span.start,
        "@_endPosition": span.end,
        Coding: codingNodes,
      });
    }
    const node: XmlElement = {
      "@_guid": guid,
      "@_name": session.title ?? session.id,
      "@_plainTextPath": `internal://${guid}.txt`,
      "@_creationDateTime": input.createdAt,
    };
    node.Description = `Colloquy session ${session.id}: ${session.turns.length} turns; speakers ${session.participants.map((p) => `${p.name} (${p.kind})`).join(", ")}`;
    if (selections.length) node.PlainTextSelection = selections;
    return node;
  });

  const project: XmlElement = {
    "@_xmlns": PROJECT_NS,
    "@_name": input.name,
    "@_origin": "Colloquy",
    "@_creationDateTime": input.createdAt,
  };
  if (coders.length) project.Users = { User: coders.map((c) => ({ "@_guid": userGuid(c), "@_name": coderUserName(c), "@_id": c })) };
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
  return { qde: xmlDocument("Project", project), sources, codings, skipped, warnings };
}

/** The code GUIDs one record applies: its categories, or the point of each scale it rated. */
function recordCodes(record: CodeRecord, codebook: Codebook): string[] {
  if (codebook.kind === "nominal")
    return (record.codes ?? []).filter((c) => codebook.categories.some((k) => k.id === c)).map((c) => codeGuid.category(codebook.id, c));
  return Object.entries(record.scores ?? {})
    .filter(([scale, value]) => codebook.scales.some((s) => s.id === scale && Number.isInteger(value) && value >= 1 && value <= s.points))
    .map(([scale, value]) => codeGuid.point(codebook.id, scale, value));
}
