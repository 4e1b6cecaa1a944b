import { resolve } from "node:path";
import { stat } from "node:fs/promises";
import { stamp, type FileStamp } from "./file-stamp.js";
import { isOwnWrite } from "./known-bytes.js";
import { arrayLineBytes, jsonWithArrayLines, splitOfLayout, type SplitLineArray } from "./json-layout.js";
import { sha256 } from "./hash.js";
import { writeFileAtomic } from "./fs.js";

/**
 * A file laid out with one array entry per line (util/json-layout.ts), as its writer knows it:
 * the array's lines, the sha256 of each (kept with the line since the session was analysed), and
 * the rest of the file around them. The dashboard's build reads concepts.json and topics.json by
 * their lines (src/report/load.ts); at 100,000 turns, reading, splitting and hashing the 30 MB the
 * concepts and topics stages had just written from lines they held took it 70-100 ms of a run that
 * added one session. Handed over in the process instead, for as long as the file is as written.
 */
export interface WrittenLines {
  /** The array's path in the file ("sessions"). */
  member: string;
  /** What util/json-layout.ts splitLineArray finds in the file. */
  split: SplitLineArray;
  /** sha256 (hex) of each of `split.lines`. */
  sha256: readonly string[];
}

/** A line of such an array as a writer holds it: its text, and the sha256 of that text. */
export interface HashedLine {
  json: Uint8Array;
  jsonSha256: string;
}

/** A value's line (json-layout.ts arrayLineBytes) with its sha256, made once when the value is. */
export function hashedLine(value: unknown): HashedLine {
  const json = arrayLineBytes(value);
  return { json, jsonSha256: sha256(json) };
}

/** How many files {@link writtenLines} handed over in this process (tests check that a run's build read none of them). */
export const linesHanded = { files: 0 };

/** Per file (resolved path), the latest such write of this process and the stamp it left. */
const written = new Map<string, { stamp: FileStamp; lines: WrittenLines }>();
const stampKey = (s: FileStamp) => s.join(" ");

/**
 * Write `object` with its array at `member` made of `lines`, atomically (util/fs.ts), and keep
 * what a reader later in this process would find in it. Only in a study whose lock this process
 * holds: its own write is then trusted to be the file's bytes while the file keeps the stamp it left.
 */
export async function writeWithLines(path: string, object: object, member: string, lines: readonly HashedLine[]): Promise<void> {
  const key = resolve(path);
  written.delete(key);
  const texts = lines.map((line) => line.json);
  await writeFileAtomic(path, jsonWithArrayLines(object, [{ path: member, lines: texts }]));
  const split = splitOfLayout(object, member, texts);
  if (!split) return;
  const after = stamp(await stat(path));
  // Its size must be what the pieces add up to: the rest with its marker replaced by `[`, the lines
  // (each on its own line, indented one step deeper than the member, all but the last followed by
  // a comma) and `]` on a line of its own at the member's indent.
  const indent = 2 * member.split(".").length;
  const size =
    split.rest.length - Buffer.byteLength(JSON.stringify(split.marker)) + split.lines.reduce((n, line) => n + line.length + indent + 4, 0) + indent + 2;
  if (isOwnWrite(path, after) && after[0] === size) written.set(key, { stamp: after, lines: { member, split, sha256: lines.map((line) => line.jsonSha256) } });
}

/**
 * What {@link writeWithLines} wrote at `path`, when the file still has the stamp that write left
 * and that is still this process's latest own write there; else undefined (read the file).
 */
export async function writtenLines(path: string, member: string): Promise<WrittenLines | undefined> {
  const kept = written.get(resolve(path));
  if (!kept || kept.lines.member !== member) return undefined;
  let now;
  try {
    now = stamp(await stat(path));
  } catch {
    return undefined;
  }
  if (stampKey(now) !== stampKey(kept.stamp) || !isOwnWrite(path, now)) return undefined;
  linesHanded.files++;
  return kept.lines;
}
