import { ImportError } from "../types.js";

/**
 * Small shape checks for parsed JSON. Each throws an ImportError naming the file and the JSON
 * path (`$[3].content`) and saying what was expected and what was found instead.
 */

export type JsonObject = Record<string, unknown>;

/** A short, human description of a JSON value's type for error messages. */
export function jsonType(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `a string (${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)})`;
  return `${typeof value === "number" ? "a number" : typeof value === "boolean" ? "a boolean" : typeof value} (${String(value)})`;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `$` + `.key` or `["odd key"]` or `[3]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  let suffix = keySuffix.get(key);
  if (suffix === undefined) {
    suffix = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    // Paths are built for every message of big files; the few distinct field names are cached.
    if (keySuffix.size < 1000) keySuffix.set(key, suffix);
  }
  return path + suffix;
}
const keySuffix = new Map<string, string>();

export function shapeError(file: string, jsonPath: string, expected: string, got: unknown): ImportError {
  return new ImportError({ file, jsonPath, problem: `found ${jsonType(got)}`, expected });
}

/** An id (of a meeting, author, request…) as text: a string or number as written; anything else is an error naming the field. */
export function idText(value: unknown, file: string, path: string): string {
  if (typeof value === "string" || typeof value === "number") return String(value);
  throw shapeError(file, path, "an id (a string or a number)", value);
}

export function expectObject(value: unknown, file: string, path: string, expected = "an object"): JsonObject {
  if (!isObject(value)) throw shapeError(file, path, expected, value);
  return value;
}

export function expectArray(value: unknown, file: string, path: string, expected = "an array"): unknown[] {
  if (!Array.isArray(value)) throw shapeError(file, path, expected, value);
  return value;
}

export function expectString(value: unknown, file: string, path: string, expected = "a string"): string {
  if (typeof value !== "string") throw shapeError(file, path, expected, value);
  return value;
}

/** An optional string field: undefined/null pass as undefined, anything else must be a string. */
export function optionalString(obj: JsonObject, key: string, file: string, path: string): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  return expectString(value, file, childPath(path, key), `a string or nothing at "${key}"`);
}

/** An optional finite number (or numeric string, as some exports write epoch seconds). */
export function optionalNumber(obj: JsonObject, key: string, file: string, path: string): number | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) throw shapeError(file, childPath(path, key), `a number or nothing at "${key}"`, value);
  return n;
}

/** Copy of `obj` without `keys`; undefined when nothing is left (so metadata stays absent). */
export function rest(obj: JsonObject, keys: ReadonlySet<string> | readonly string[]): JsonObject | undefined {
  const skip = keys instanceof Set ? keys : new Set(keys as readonly string[]);
  let out: JsonObject | undefined;
  for (const k in obj) {
    const v = obj[k];
    if (skip.has(k) || v === undefined) continue;
    (out ??= {})[k] = v;
  }
  return out;
}

/** Epoch seconds -> ISO date-time, or undefined when out of Date's range. */
export function epochToIso(seconds: number): string | undefined {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** File name without folders, for session ids and titles. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}
