import { z } from "zod";
import { formatPath } from "../transcript/validate.js";
import { errorMessage } from "../util/errors.js";
import { jsonMembers, JsonSpanError, jsonValueEnd, parseSpan, type JsonMember, type JsonSpan } from "../util/json-spans.js";
import { splitLineArray, type SplitLineArray } from "../util/json-layout.js";
import type { Artifact, ArtifactRead } from "./artifacts.js";

/**
 * The part of a JSON artifact a reader uses: the top-level `members` it reads, and for a member
 * that is an array of objects, the `fields` of each element it keeps. Members not named are
 * never parsed; an array named in `fields` is parsed one element at a time and only those fields
 * are kept, so a reader holds what it uses, not the file.
 *
 * Reading a part differs from reading the whole file (parseArtifact) only where the part does
 * not look: a member or field not read is not checked, and of a key given twice in what is read
 * the first one counts (JSON.parse keeps the last; colloquy's writers never repeat a key). A
 * UTF-8 byte order mark is skipped, as JSON.parse of the decoded text would not.
 */
export interface ArtifactPart {
  members: readonly string[];
  fields?: Readonly<Record<string, readonly string[]>>;
}

/**
 * The value a part of an artifact reads as: the members named, and of an array read element by
 * element, the fields named. A reader typed with it (the dashboard's readTopics, readConcepts)
 * cannot use what its descriptor's `shown` does not read: the compiler says so.
 */
export type PartOf<T, P extends ArtifactPart> = {
  // Mapped over keyof T (filtered with `as`), so an optional member stays optional.
  [K in keyof T as K extends P["members"][number] ? K : never]: P["fields"] extends Readonly<Record<K, readonly string[]>>
    ? T[K] extends readonly (infer E)[]
      ? Pick<E, P["fields"][K][number] & keyof E>[]
      : T[K]
    : T[K];
};

/** The schema each member of a part is checked with: the member's, or for an array read element by element, the element's fields. */
interface PartSchemas {
  member: string;
  schema: z.ZodType;
  /** For an array read element by element: a plain object of the fields kept (it drops the others; a loose schema would pass them through). */
  element?: z.ZodObject;
}

/**
 * The schemas `part` is read with; throws when the part names a member or field the artifact's
 * schema lacks, or fields of a member that is not an array of objects: a mistake in the code
 * (a descriptor's `shown`), never in the file, so it is not reported as a broken file.
 */
export function partSchemas(artifact: Artifact, part: ArtifactPart): PartSchemas[] {
  const schema = artifact.schema;
  if (!(schema instanceof z.ZodObject)) throw new Error(`${artifact.name}: only an artifact whose schema is an object can be read in part`);
  return part.members.map((member) => {
    const field = schema.shape[member] as z.ZodType | undefined;
    if (!field) throw new Error(`${artifact.name}: its schema has no member "${member}"`);
    const fields = part.fields?.[member];
    if (!fields) return { member, schema: field };
    const element = field instanceof z.ZodArray ? field.element : undefined;
    if (!(element instanceof z.ZodObject)) throw new Error(`${artifact.name}: "${member}" is not an array of objects in its schema`);
    const shape = Object.fromEntries(
      fields.map((f) => {
        const s = element.shape[f] as z.ZodType | undefined;
        if (!s) throw new Error(`${artifact.name}: "${member}" elements have no field "${f}" in their schema`);
        return [f, s];
      }),
    );
    return { member, schema: field, element: z.object(shape) };
  });
}

/**
 * Parse and validate `part` of an artifact's JSON bytes: each member read is checked with its
 * field of the artifact's schema, each element of an array read element by element with the
 * element's schema (only the fields kept). A problem names its place as a whole-file validation
 * would ("sessions[3].firstMentions[0].start: …"), and text that is not JSON its line and column
 * in the file. What is not read is not checked, beyond the text ending as an object does (a file
 * cut short is not readable).
 */
export function parseArtifactPart<T>(artifact: Artifact<string[], T>, bytes: Buffer, part: ArtifactPart): ArtifactRead<Partial<T>> {
  const schemas = partSchemas(artifact as Artifact, part);
  try {
    const members = jsonMembers(bytes, undefined, { wanted: new Set(part.members), split: new Set(Object.keys(part.fields ?? {})) });
    return readMembers<T>(bytes, members, schemas);
  } catch (error) {
    const problem = error instanceof JsonSpanError ? `${lineAndColumn(bytes, error.offset)}: expected ${error.expected}` : errorMessage(error);
    return { status: "invalid", problem: `not readable JSON (${problem})` };
  }
}

/** The part's members from their spans, each checked with its schema. */
function readMembers<T>(bytes: Buffer, members: ReadonlyMap<string, JsonMember>, schemas: readonly PartSchemas[]): ArtifactRead<Partial<T>> {
  const value: Record<string, unknown> = {};
  for (const { member, schema, element } of schemas) {
    const span = members.get(member);
    let read;
    if (!span) read = check(schema, undefined, [member]);
    else if (!element) read = check(schema, parseAt(bytes, span, [member]), [member]);
    // Not an array in the file: the member's schema names what is wrong.
    else if (!span.elements) read = check(schema, parseAt(bytes, span, [member]), [member]);
    else read = readElements(bytes, span.elements, element, member);
    if (!read.ok) return { status: "invalid", problem: read.problem };
    if (read.value !== undefined) value[member] = read.value;
  }
  return { status: "ok", value: value as Partial<T> };
}

/** A part read with {@link parseArtifactLines}: the other members, and the array's entries still to read. */
export interface ArtifactLines<T> {
  /** The part's other members, read and checked as parseArtifactPart reads them. */
  value: Partial<T>;
  /** Each entry's JSON text, in order; `read` reads one. */
  lines: Buffer[];
  /** Entry `index` of `lines` as parseArtifactPart reads it (its fields, checked); undefined when the line is not exactly one valid entry. */
  read(index: number): { value: unknown } | undefined;
}

/**
 * parseArtifactPart for a file whose array `member` (one of the part's, read element by element)
 * is written one entry per line (util/json-layout.ts): the other members are read now, and the
 * entries are left as their lines, so a reader that met a line before (the same bytes, under the
 * same code) can reuse what it made of it without parsing it again. Undefined when the file is not
 * laid out so or a member read now is not valid: read it with parseArtifactPart, which names any problem.
 */
export function parseArtifactLines<T>(
  artifact: Artifact<string[], T>,
  /** The file's bytes, or what util/json-layout.ts splitLineArray finds in them (as its writer handed it over: util/written-lines.ts). */
  source: Buffer | SplitLineArray,
  part: ArtifactPart,
  member: string,
): ArtifactLines<T> | undefined {
  const schemas = partSchemas(artifact as Artifact, part);
  const arrays = schemas.find((s) => s.member === member);
  if (!arrays?.element) throw new Error(`${artifact.name}: "${member}" is not read element by element in this part`);
  const split = Buffer.isBuffer(source) ? splitLineArray(source, member) : source;
  if (!split) return undefined;
  let members;
  try {
    members = jsonMembers(split.rest, undefined, { wanted: new Set(part.members) });
  } catch {
    return undefined;
  }
  // The array is the member only if the rest holds the marker there.
  const at = members.get(member);
  if (!at || split.rest.toString("utf8", at.start, at.end) !== JSON.stringify(split.marker)) return undefined;
  const read = readMembers<T>(
    split.rest,
    members,
    schemas.filter((s) => s !== arrays),
  );
  if (read.status !== "ok") return undefined;
  const element = arrays.element;
  const wanted = new Set(Object.keys(element.shape));
  return {
    value: read.value,
    lines: split.lines,
    read(index) {
      const line = split.lines[index];
      let value;
      try {
        // One value, the whole line (its text is checked as it is parsed).
        if (jsonValueEnd(line, 0) !== line.length) return undefined;
        value = line[0] === 0x7b ? fieldsOf(line, 0, wanted, [member, index]) : parseAt(line, { start: 0, end: line.length }, [member, index]);
      } catch {
        return undefined;
      }
      const checked = check(element, value, [member, index]);
      return checked.ok ? { value: checked.value } : undefined;
    },
  };
}

function check(schema: z.ZodType, value: unknown, path: (string | number)[]): { ok: true; value: unknown } | { ok: false; problem: string } {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const [first] = parsed.error.issues;
  const more = parsed.error.issues.length - 1;
  const where = formatPath([...path, ...((first?.path ?? []) as (string | number)[])]);
  return { ok: false, problem: `${where}: ${first?.message ?? "invalid"}${more > 0 ? ` (and ${more} more problem${more > 1 ? "s" : ""})` : ""}` };
}

/** JSON.parse of a span; a syntax error inside it names its place in the part and in the file. */
function parseAt(bytes: Buffer, span: JsonSpan, path: (string | number)[]): unknown {
  try {
    return parseSpan(bytes, span);
  } catch (error) {
    const message = errorMessage(error);
    const position = /at position (\d+)/.exec(message);
    // JSON.parse counts UTF-16 units of the span's text: turned into bytes. Without a position
    // (V8's "Unexpected token … is not valid JSON"), the place is where the value starts.
    const offset = position ? span.start + Buffer.byteLength(bytes.toString("utf8", span.start, span.end).slice(0, Number(position[1]))) : span.start;
    const reason = message.replace(/ in JSON at position \d+.*$/s, "").replace(/\s+/g, " ");
    throw new JsonSpanError(offset, `valid JSON in ${formatPath(path)}${position ? "" : " (the value that starts here)"}: ${reason}`);
  }
}

/** An array of objects, parsed and checked one element at a time, each cut down to the element schema's fields. */
function readElements(bytes: Buffer, elements: readonly JsonSpan[], element: z.ZodObject, member: string) {
  const wanted = new Set(Object.keys(element.shape));
  const out: unknown[] = [];
  for (const [i, item] of elements.entries()) {
    // Only the fields kept are parsed (a session's per-turn lists, most of its bytes, are not).
    const value = bytes[item.start] === 0x7b ? fieldsOf(bytes, item.start, wanted, [member, i]) : parseAt(bytes, item, [member, i]);
    const read = check(element, value, [member, i]);
    if (!read.ok) return read;
    out.push(read.value);
  }
  return { ok: true as const, value: out };
}

/** The `wanted` members of the object that opens at `start`, each parsed; the others skipped. */
function fieldsOf(bytes: Buffer, start: number, wanted: ReadonlySet<string>, path: (string | number)[]): Record<string, unknown> {
  let members;
  try {
    members = jsonMembers(bytes, start, { wanted });
  } catch (error) {
    throw error instanceof JsonSpanError ? new JsonSpanError(error.offset, `${error.expected} in ${formatPath(path)}`) : error;
  }
  const value: Record<string, unknown> = {};
  for (const [key, span] of members) if (wanted.has(key)) value[key] = parseAt(bytes, span, [...path, key]);
  return value;
}

/** "line 12, column 5" of a byte offset (columns in bytes, from 1). */
function lineAndColumn(bytes: Buffer, offset: number): string {
  let line = 1;
  let start = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1 && at < offset; at = bytes.indexOf(0x0a, at + 1)) {
    line++;
    start = at + 1;
  }
  return `line ${line}, column ${offset - start + 1}`;
}
