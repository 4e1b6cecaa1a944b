import { z } from "zod";

/**
 * Building blocks of the analysis files' zod schemas (agreement/schema.ts, compare/schema.ts,
 * stats/schema.ts, topics/schema.ts, concepts/schema.ts). The schemas validate a file written by
 * the analysis as it is read back: exact about required fields and types, so an old or foreign
 * file is caught naming the field, and loose about extra fields (kept as they are).
 */

/**
 * A real-valued statistic as a JSON file holds it: JSON writes NaN and ±Infinity as null, so
 * null is read back as NaN (what the analysis had in memory: "undefined here").
 */
export const jsonNumber = z
  .number()
  .nullable()
  .transform((v) => v ?? NaN);

/** A count or other number that is never undefined (null in the file is an error). */
export const count = z.number();

/** A nullable number (the analysis wrote null on purpose: "not defined here"). */
export const nullableNumber = z.number().nullable();

/** Counts per code id (or other key). */
export const countRecord = z.record(z.string(), z.number());

/** A type without its string index signatures (what loose objects add), recursively. */
type Known<T> = T extends readonly (infer U)[] ? Known<U>[] : T extends object ? { [K in keyof T as string extends K ? never : K]: Known<T[K]> } : T;

/**
 * Compile-time check that a schema fits its writer's TypeScript type both ways: what it reads
 * back is a `T`, and every `T` the writer produces is accepted (extra fields aside: loose objects
 * keep them). Use as `const _fits: Conforms<typeof schema, T> = true;`; a mismatch fails `tsc`.
 */
export type Conforms<S extends z.ZodType, T> = [z.output<S>] extends [T] ? ([T] extends [Known<z.input<S>>] ? true : false) : false;
