/**
 * Plain objects keyed by names that come from input files: codes, turn ids, codebook ids, ELAN
 * tiers and tags. A name every object has ("constructor", "toString", "valueOf", "__proto__") must
 * be an entry like any other. Read through `record[name] ?? 0`, "constructor" gave Object's
 * function (a count of `function Object() { [native code] }1`), `record[name] ??= []` a function
 * to push onto, and an assignment to "__proto__" set the prototype or was dropped. These helpers
 * read own entries only and make "__proto__" an own entry, as JSON.parse does.
 */

/** The entry `name` of `record`, if it has one of its own. */
export function ownEntry<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** Set the entry `name` of `record` (an own, enumerable entry, whatever the name). */
export function setEntry<T>(record: Record<string, T>, name: string, value: T): void {
  if (name === "__proto__") Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
  else record[name] = value;
}

/** Add `n` to the count `name` of `counts` (0 when it has none). */
export function addToCount(counts: Record<string, number>, name: string, n: number): void {
  setEntry(counts, name, (ownEntry(counts, name) ?? 0) + n);
}

/** The list `name` of `lists`, made empty when it has none. */
export function listEntry<T>(lists: Record<string, T[]>, name: string): T[] {
  let list = ownEntry(lists, name);
  if (list === undefined) setEntry(lists, name, (list = []));
  return list;
}
