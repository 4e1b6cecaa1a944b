import { deserialize, serialize } from "node:v8";
import { readWholeFile, writeFileAtomic } from "./fs.js";

/**
 * A cache file holding one v8-serialized object whose field `field` is a stamp: a value derived
 * from the code version (util/code-version.ts), alone or hashed with the settings the rest was
 * computed under. The one reader and writer of such files (a memo's study-level result, the
 * stores of word classes and lexicon answers), so that every cache is checked and written the
 * same way.
 *
 * v8, not JSON: the caches hold NaN, Infinity and undefined, which must come back exactly.
 */

/**
 * The file's object when it carries `stamp` in `field`; undefined when it is missing, torn,
 * foreign or stamped otherwise (a cache is recomputed, never trusted). The rest of its fields are
 * the caller's to check.
 */
export async function readStampedFile<T extends object>(path: string, field: string, stamp: string): Promise<Partial<T> | undefined> {
  try {
    const file = deserialize(await readWholeFile(path)) as Record<string, unknown> | null;
    if (file !== null && typeof file === "object" && file[field] === stamp) return file as Partial<T>;
  } catch {
    // Missing or unreadable: the caller computes anew.
  }
  return undefined;
}

/** Write `{[field]: stamp, ...fields}` atomically (a crash leaves the old file or the new one, never half of one). */
export async function writeStampedFile(path: string, field: string, stamp: string, fields: object): Promise<void> {
  // A field of the same name would replace the stamp (and the file would pass for another code's).
  if (Object.hasOwn(fields, field)) throw new Error(`writeStampedFile: "${field}" is the stamp's field, not one of the fields`);
  await writeFileAtomic(path, serialize({ [field]: stamp, ...fields }));
}
