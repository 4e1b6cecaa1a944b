import { resolve } from "node:path";
import { stat } from "node:fs/promises";
import { stamp } from "./file-stamp.js";
import { isOwnWrite, ownWrites, trustsOwnWrites, writtenSince } from "./known-bytes.js";
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

/** Per file (resolved path), this process's latest such write: how many own writes the process had made by then. */
const written = new Map<string, { count: number; lines: WrittenLines }>();

/**
 * Write `object` with its array at `member` made of `lines`, atomically (util/fs.ts), and keep
 * what a reader later in this process would find in it. Only in a study whose lock this process
 * holds: its own write is then trusted to be the file's bytes while the file keeps the stamp it
 * left and the process writes it no more.
 */
export async function writeWithLines(path: string, object: object, member: string, lines: readonly HashedLine[]): Promise<void> {
  const key = resolve(path);
  written.delete(key);
  const texts = lines.map((line) => line.json);
  const chunks = jsonWithArrayLines(object, [{ path: member, lines: texts }]);
  await writeFileAtomic(path, chunks);
  if (!trustsOwnWrites(path)) return;
  const count = ownWrites();
  const after = stamp(await stat(path));
  const split = splitOfLayout(object, member, texts);
  // The file as written: this process's latest write there, as long as the chunks written.
  if (split && isOwnWrite(path, after) && after[0] === chunks.reduce((n, chunk) => n + chunk.length, 0)) {
    written.set(key, { count, lines: { member, split, sha256: lines.map((line) => line.jsonSha256) } });
  }
}

/**
 * What {@link writeWithLines} wrote at `path`, handed over once (the dashboard's build is its one
 * reader; the lines then go with it): while that write is this process's latest there (a stamp can
 * come back: an inode reused, two writes of one size within a clock tick) and the file keeps the
 * stamp it left (util/known-bytes.ts isOwnWrite). Else undefined: read the file.
 */
export async function writtenLines(path: string, member: string): Promise<WrittenLines | undefined> {
  const key = resolve(path);
  const kept = written.get(key);
  if (!kept || kept.lines.member !== member) return undefined;
  written.delete(key);
  let now;
  try {
    now = stamp(await stat(path));
  } catch {
    return undefined;
  }
  if (writtenSince(path, kept.count) || !isOwnWrite(path, now)) return undefined;
  linesHanded.files++;
  return kept.lines;
}
