import { z } from "zod";
import { formatPath } from "../transcript/validate.js";
import { errorMessage } from "../util/errors.js";
import { jsonMembers, parseSpan, type JsonSpan } from "../util/json-spans.js";
import type { Artifact, ArtifactRead } from "./artifacts.js";

/**
 * The part of a JSON artifact a reader uses: the top-level `members` it reads, and for a member
 * that is an array of objects, the `fields` of each element it keeps. Members not named are
 * never parsed; an array named in `fields` is parsed one element at a time and only those fields
 * are kept, so a reader holds what it uses, not the file.
 */
export interface ArtifactPart {
  members: readonly string[];
  fields?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Parse and validate `part` of an artifact's JSON bytes: each member read is checked with its
 * field of the artifact's schema, each element of an array read element by element with the
 * element's schema (only the fields kept). A problem names its place as a whole-file validation
 * would ("sessions[3].firstMentions[0].start: …"). What is not read is not checked, beyond the
 * text ending as an object does (a file cut short is not readable).
 */
export function parseArtifactPart<T>(artifact: Artifact<string[], T>, bytes: Buffer, part: ArtifactPart): ArtifactRead<Partial<T>> {
  const schema = artifact.schema;
  if (!(schema instanceof z.ZodObject)) throw new Error(`${artifact.name}: only an artifact whose schema is an object can be read in part`);
  let members;
  try {
    members = jsonMembers(bytes, undefined, { wanted: new Set(part.members), split: new Set(Object.keys(part.fields ?? {})) });
  } catch (error) {
    return { status: "invalid", problem: `not readable JSON (${errorMessage(error)})` };
  }
  const value: Record<string, unknown> = {};
  for (const member of part.members) {
    const field = schema.shape[member] as z.ZodType | undefined;
    if (!field) throw new Error(`${artifact.name}: its schema has no member "${member}"`);
    const span = members.get(member);
    const fields = part.fields?.[member];
    let read: { ok: true; value: unknown } | { ok: false; problem: string };
    try {
      read = fields && span ? readElements(bytes, span.elements, field, fields, member) : check(field, span ? parseSpan(bytes, span) : undefined, [member]);
    } catch (error) {
      return { status: "invalid", problem: `not readable JSON (${member}: ${errorMessage(error)})` };
    }
    if (!read.ok) return { status: "invalid", problem: read.problem };
    if (read.value !== undefined) value[member] = read.value;
  }
  return { status: "ok", value: value as Partial<T> };
}

function check(schema: z.ZodType, value: unknown, path: (string | number)[]): { ok: true; value: unknown } | { ok: false; problem: string } {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const [first] = parsed.error.issues;
  const more = parsed.error.issues.length - 1;
  const where = formatPath([...path, ...((first?.path ?? []) as (string | number)[])]);
  return { ok: false, problem: `${where}: ${first?.message ?? "invalid"}${more > 0 ? ` (and ${more} more problem${more > 1 ? "s" : ""})` : ""}` };
}

/** An array of objects, parsed and checked one element at a time, each cut down to `fields`. */
function readElements(bytes: Buffer, elements: readonly JsonSpan[] | undefined, field: z.ZodType, fields: readonly string[], member: string) {
  const element = field instanceof z.ZodArray ? field.element : undefined;
  if (!(element instanceof z.ZodObject)) throw new Error(`"${member}" is not an array of objects in its schema`);
  // Not an array in the file: the member's schema names what is wrong.
  if (!elements) return { ok: false as const, problem: `${member}: expected an array` };
  // A plain object of those fields: it drops the others (a loose schema would pass them through).
  const picked = z.object(
    Object.fromEntries(
      fields.map((f) => {
        const schema = element.shape[f] as z.ZodType | undefined;
        if (!schema) throw new Error(`"${member}" elements have no field "${f}" in their schema`);
        return [f, schema];
      }),
    ),
  );
  const wanted = new Set(fields);
  const out: unknown[] = [];
  for (const [i, item] of elements.entries()) {
    // Only the fields kept are parsed (a session's per-turn lists, most of its bytes, are not).
    const value = bytes[item.start] === 0x7b ? fieldsOf(bytes, item.start, wanted) : parseSpan(bytes, item);
    const read = check(picked, value, [member, i]);
    if (!read.ok) return read;
    out.push(read.value);
  }
  return { ok: true as const, value: out };
}

/** The `wanted` members of the object that opens at `start`, each parsed; the others skipped. */
function fieldsOf(bytes: Buffer, start: number, wanted: ReadonlySet<string>): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const [key, span] of jsonMembers(bytes, start, { wanted })) if (wanted.has(key)) value[key] = parseSpan(bytes, span);
  return value;
}
