import type { ImportResult } from "../../src/ingest/types.js";

/**
 * "Nothing silently dropped": every non-ignorable line of an input body must end up, verbatim
 * (leading/trailing blanks aside), in some turn's text or in explicit metadata (session,
 * participant or turn metadata, participant names/roles/personas, imported code labels).
 *
 * `source` is either the raw file text (checked line by line; "\r\n" and "\n" both end a line,
 * a leading BOM is ignored) or, for structured formats such as JSON, the list of body strings
 * that must survive (e.g. every message `content`). Each piece is checked line by line too, since
 * importers may legitimately keep a multi-line body in one turn.
 *
 * `ignorableLines` are patterns for lines the format defines as pure markup (Slack's `New`
 * divider, bare time lines, VTT cue numbers and timings, CSV header rows…). Keep them as tight
 * as possible: a pattern that matches real words makes the check unable to fail.
 *
 * Throws an Error listing every missing line with its 1-based line number.
 */
export function assertNothingDropped(source: string | readonly string[], result: ImportResult, ignorableLines: readonly RegExp[] = []): void {
  const haystack = collectStrings(result).join("\u0000");
  const pieces = typeof source === "string" ? [source.replace(/^\uFEFF/, "")] : source;
  const missing: string[] = [];
  pieces.forEach((piece, p) => {
    piece.split(/\r?\n/).forEach((line, i) => {
      const content = line.trim();
      if (content === "") return;
      if (ignorableLines.some((re) => re.test(line))) return;
      if (haystack.includes(content)) return;
      const where = typeof source === "string" ? `line ${i + 1}` : `piece ${p}, line ${i + 1}`;
      missing.push(`${where}: ${JSON.stringify(line)}`);
    });
  });
  if (missing.length > 0) {
    throw new Error(`${missing.length} source line(s) appear in no turn text and no metadata:\n  ${missing.slice(0, 20).join("\n  ")}`);
  }
}

/** Every string an import result keeps: turn texts first, then all metadata, recursively. */
export function collectStrings(result: ImportResult): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (typeof value === "number" || typeof value === "boolean") out.push(String(value));
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value as Record<string, unknown>).forEach(walk);
  };
  for (const session of result.sessions) {
    for (const turn of session.turns) out.push(turn.text);
    walk(session.title);
    walk(session.metadata);
    for (const p of session.participants) walk(p);
    for (const turn of session.turns) {
      walk(turn.metadata);
      walk(turn.timestamp);
    }
  }
  for (const code of result.codes) out.push(code.label);
  return out;
}
