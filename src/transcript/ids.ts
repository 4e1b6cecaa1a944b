/** Turn ids are positional and zero-padded so they sort and stay stable across re-imports. */
export function turnId(index: number): string {
  return `t${String(index).padStart(4, "0")}`;
}

/**
 * A file-name-safe id from free text: ASCII letters/digits kept, runs of anything else become
 * one '-'. Never empty.
 */
export function slugify(text: string, fallback = "session"): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-._]+|[-._]+$/g, "")
    .toLowerCase();
  return slug || fallback;
}

/** A participant id derived from a display name (stable: same name, same id). */
export function participantId(name: string): string {
  return slugify(name, "speaker");
}

/** Make `id` unique against `taken` by appending -2, -3, …; records the result in `taken`. */
export function uniqueId(id: string, taken: Set<string>): string {
  let candidate = id;
  for (let n = 2; taken.has(candidate); n++) candidate = `${id}-${n}`;
  taken.add(candidate);
  return candidate;
}
