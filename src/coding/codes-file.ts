import type { z } from "zod";
import { CliError } from "../util/errors.js";
import { appendJsonl, repairJsonl, rewriteJsonl, visitJsonl, type JsonlRepair } from "../util/fs.js";
import { codeRecordSchema, codeRunHeaderSchema, type CodeRecord } from "./records.js";

/**
 * The compact on-disk form of a codes file (`codes/<codebook>/<coder>.jsonl`). What one run of a
 * coder shares (codebook, its version, the coder, its provenance, its time) is written once, in a
 * run header; each turn's line carries only what varies. An append is one run (or a few, when its
 * records differ in codebook version, coder, or most of their provenance, as a rewritten history
 * of several runs does):
 *
 *   {"run":{"codebook":"bales-ipa","codebookVersion":"1.2.0","coder":"rules","createdAt":"2026-11-22T10:00:00.000Z","provenance":{"tool":"colloquy",…}}}
 *   {"session":"s1","turn":"t0001","fingerprint":"9f…","codes":["agrees"],"rationale":"…","provenance":{"rules":["r4"]},"ms":12}
 *   {"session":"s1","turn":"t0002","fingerprint":"41…","codes":["asks-opinion"]}
 *   {"end":2}
 *
 * - a code line: session, turn, and whichever of fingerprint, codes, scores, segments, rationale,
 *   samples the record has. `provenance` holds only the keys the run header does not (per-turn details:
 *   rule ids, a model's cache key, a confidence); the record's provenance is the header's plus
 *   these. Its time is the header's `createdAt`, or `ms` milliseconds after it, or its own
 *   `createdAt` (a time that is not in `toISOString` form, kept as written).
 * - `{"end":n}` closes the run after its n code lines. An append that finds the last run open
 *   (an interrupted write cut it short) first writes and syncs `{"end":"cut"}`.
 * - a full record (every field, the only form before this one) stands alone anywhere: files
 *   written by earlier versions, and files with old lines followed by new runs, still read.
 *
 * A code line belongs to the open run only, and a run's lines are counted against its end line:
 * - `colloquy repair` writes `{"end":"cut"}` in place of every damaged line it moves out, so if
 *   that line was a header, the code lines after it come after a closed run, and reading stops
 *   naming the first of them: they are never attributed to the run before.
 * - if an end line and the next header are both lost some other way (lines deleted by hand), the
 *   next run's lines join the run above, and its end line `{"end":n}` counts fewer lines than
 *   were read: reading stops naming it.
 * - a header (or full record) naming another codebook or coder than the file's stops the read
 *   (files concatenated or copied by hand).
 * A torn line is never salvaged into a nested object of itself: only a header, an end line, a
 * code line or a full record may be kept of it ({@link isCodesFileLine}).
 *
 * In memory every record is a full CodeRecord; the records of a run whose provenance is the
 * header's share the header's provenance object.
 */

type RunHeader = z.infer<typeof codeRunHeaderSchema>;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function allFinite(o: Json): boolean {
  for (const k in o) if (!Number.isFinite(o[k])) return false;
  return true;
}

/**
 * What is wrong with the fields a code line and a full record share (undefined: nothing). The
 * same rules as `codeRecordSchema`, checked by hand: a zod parse of every record cost more than
 * reading the file (test/coding/codes-file.test.ts holds the two to the same verdicts).
 */
function fieldsProblem(v: Json): string | undefined {
  if (typeof v.session !== "string") return "session: expected a string";
  if (typeof v.turn !== "string") return "turn: expected a string";
  if (v.fingerprint !== undefined && typeof v.fingerprint !== "string") return "fingerprint: expected a string";
  if (v.codes !== undefined && !(Array.isArray(v.codes) && v.codes.every((c) => typeof c === "string"))) return "codes: expected a list of strings";
  if (v.scores !== undefined && !(isObject(v.scores) && allFinite(v.scores))) return "scores: expected numbers by scale id";
  if (v.segments !== undefined) {
    const problem = segmentsProblem(v.segments);
    if (problem) return problem;
  }
  if (v.rationale !== undefined && typeof v.rationale !== "string") return "rationale: expected a string";
  if (v.samples !== undefined) {
    const s = v.samples;
    if (!isObject(s) || !(Number.isSafeInteger(s.n) && (s.n as number) > 0) || !Number.isFinite(s.agreement))
      return "samples: expected {n: a positive integer, agreement: a number}";
  }
  if (v.provenance !== undefined && !isObject(v.provenance)) return "provenance: expected an object";
  return undefined;
}

const isOffset = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;

/** What is wrong with a record's `segments` (as `codeSegmentSchema`), or undefined. */
function segmentsProblem(segments: unknown): string | undefined {
  if (!Array.isArray(segments)) return "segments: expected a list of {start, end, codes or scores}";
  for (const [i, s] of segments.entries()) {
    if (!isObject(s) || !isOffset(s.start) || !isOffset(s.end)) return `segments[${i}]: expected whole-number start and end (code points, 0 or more)`;
    if (s.codes !== undefined && !(Array.isArray(s.codes) && s.codes.every((c) => typeof c === "string")))
      return `segments[${i}].codes: expected a list of strings`;
    if (s.scores !== undefined && !(isObject(s.scores) && allFinite(s.scores))) return `segments[${i}].scores: expected numbers by scale id`;
  }
  return undefined;
}

/** Whether `end` is what an end line holds: a whole number of lines (>= 0) or "cut" (as `codesFileLineSchema`). */
const isEnd = (end: unknown) => end === "cut" || (Number.isSafeInteger(end) && (end as number) >= 0);

/** Problem of a full record (the old form, and what writers are given). */
function recordProblem(v: Json): string | undefined {
  for (const key of ["codebook", "codebookVersion", "coder", "createdAt"] as const) if (typeof v[key] !== "string") return `${key}: expected a string`;
  return fieldsProblem(v);
}

/** A CodeRecord from validated fields, keys in the schema's order; absent optional fields stay absent. */
function toRecord(
  v: Json,
  run: { codebook: string; codebookVersion: string; coder: string },
  provenance: Json,
  createdAt: string,
  same = (text: string) => text,
  sameCodes = (codes: string[]) => codes,
): CodeRecord {
  const record: Json = { session: same(v.session as string), turn: same(v.turn as string) };
  if (v.fingerprint !== undefined) record.fingerprint = v.fingerprint;
  record.codebook = run.codebook;
  record.codebookVersion = run.codebookVersion;
  record.coder = run.coder;
  if (v.codes !== undefined) record.codes = sameCodes(v.codes as string[]);
  if (v.scores !== undefined) record.scores = v.scores;
  if (v.segments !== undefined) record.segments = v.segments;
  if (v.rationale !== undefined) record.rationale = same(v.rationale as string);
  if (v.samples !== undefined) record.samples = { n: (v.samples as Json).n, agreement: (v.samples as Json).agreement };
  record.provenance = provenance;
  record.createdAt = same(createdAt);
  return record as CodeRecord;
}

/** Milliseconds of an ISO time that `toISOString` writes back identically; undefined otherwise. */
function isoMs(time: string): number | undefined {
  const ms = Date.parse(time);
  if (!Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString() === time ? ms : undefined;
}

/**
 * `new Date(ms).toISOString()`, reusing the text of the second before it: a run's records are
 * seconds apart, and toISOString cost 3 µs a record, more than the rest of reading one.
 */
function isoTime(ms: number, last: { second: number; prefix: string }): string {
  const milli = ((ms % 1000) + 1000) % 1000;
  const second = ms - milli;
  if (second !== last.second) {
    const iso = new Date(second).toISOString();
    if (iso.length !== 24) return new Date(ms).toISOString(); // a year outside 0000-9999
    last.second = second;
    last.prefix = iso.slice(0, 20);
  }
  return `${last.prefix}${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
}

/**
 * Whether a JSON object is a line a codes file may hold (a run header, an end line, a code line or
 * a full record; the same tests reading makes): what healing and repair may keep of a torn line.
 */
export function isCodesFileLine(v: Json): boolean {
  if (v.run !== undefined) return codeRunHeaderSchema.safeParse(v.run).success;
  if (v.end !== undefined && v.session === undefined) return isEnd(v.end);
  if (v.codebook !== undefined) return recordProblem(v) === undefined;
  return fieldsProblem(v) === undefined;
}

interface OpenRun extends RunHeader {
  /** isoMs(createdAt). */
  ms: number | undefined;
  lines: number;
  /** 1-based line of its header. */
  line: number;
  /** The run's provenance with each distinct line provenance added, by that line provenance's JSON (see lineProvenance). */
  merged: Map<string, Json>;
}

/**
 * A code line's whole provenance: the run header's with the line's own keys added. Lines of a run
 * that add the same keys (a rule coder's rule ids: a few dozen distinct sets in 100,000 lines)
 * share one object, as lines that add none share the header's: a copy per line was ~200 of the
 * ~600 bytes a record held in memory. Records are never changed in place.
 */
function lineProvenance(run: OpenRun, own: unknown): Json {
  if (own === undefined) return run.provenance;
  const key = JSON.stringify(own);
  let merged = run.merged.get(key);
  // Object.assign, not a spread of two objects: the spread cost 20x more (8 µs a record).
  if (!merged) run.merged.set(key, (merged = Object.assign({}, run.provenance, own as Json)));
  return merged;
}

/** The codebook and coder a codes file holds (`codes/<codebook>/<coder>.jsonl`). */
export interface CodesFileOwner {
  codebook: string;
  coder: string;
}

/**
 * Every record of a codes file, in file order, full and compact lines alike. A line that is no
 * record stops with the file, the line and the field; so does a header or full record of another
 * codebook or coder than `owner`'s, when given, and a run whose end line counts other lines than
 * were read. The file is read a line at a time (util/lines.ts): only the records are held, never
 * its text (~50 MB for a 100,000-turn study's codebook, issue 33). A missing file has no records.
 */
export async function readCodesFile(path: string, owner?: CodesFileOwner): Promise<CodeRecord[]> {
  const records: CodeRecord[] = [];
  let run: OpenRun | undefined;
  const second = { second: NaN, prefix: "" };
  // One string for the texts lines repeat (session and turn ids, times, a rule coder's rationales), not one per line.
  const texts = new Map<string, string>();
  const same = (text: string) => {
    const known = texts.get(text);
    if (known !== undefined) return known;
    texts.set(text, text);
    return text;
  };
  // One array for the code lists lines repeat (a codebook has a few dozen categories): a list per
  // line was ~100 bytes of a record's ~400 (issue 40).
  const lists = new Map<string, string[]>();
  const sameCodes = (codes: string[]) => {
    const key = codes.join("\u0000");
    const known = lists.get(key);
    if (known !== undefined && known.length === codes.length && known.every((code, i) => code === codes[i])) return known;
    // Frozen, so that code changing a record's list in place fails loudly rather than changing other records.
    lists.set(key, Object.freeze(codes) as string[]);
    return codes;
  };
  const fail = (line: number, problem: string): never => {
    throw new CliError(`${path}:${line}: not a code record (${problem}); fix or move the line (colloquy repair <study> mends torn lines)`);
  };
  const notOwner = (line: number, v: { codebook: string; coder: string }) => {
    if (owner && (v.codebook !== owner.codebook || v.coder !== owner.coder)) {
      fail(
        line,
        `codebook ${JSON.stringify(v.codebook)} and coder ${JSON.stringify(v.coder)}, but this file holds the codes of codebook ${JSON.stringify(owner.codebook)} by coder ${JSON.stringify(owner.coder)}: was it copied or joined from another file?`,
      );
    }
  };
  await visitJsonl(path, (value, line) => {
    if (!isObject(value)) return fail(line, "expected a JSON object");
    if (value.run !== undefined) {
      const header = codeRunHeaderSchema.safeParse(value.run);
      if (!header.success) return fail(line, `a run header whose ${header.error.issues[0]?.path.join(".") || "value"} is wrong`);
      // The provenance object JSON.parse made, not zod's copy: Object.assign from zod's record
      // output was several times slower, and the records built from it took twice the memory.
      notOwner(line, header.data);
      run = { ...header.data, provenance: (value.run as Json).provenance as Json, ms: isoMs(header.data.createdAt), lines: 0, line, merged: new Map() };
      return;
    }
    if (value.end !== undefined && value.session === undefined) {
      if (!isEnd(value.end)) return fail(line, 'end: expected a whole number of lines (0 or more) or "cut"');
      if (run && value.end !== "cut" && value.end !== run.lines) {
        return fail(
          line,
          `the run whose header is line ${run.line} ends here after ${value.end as number} code line(s), but ${run.lines} were read: ` +
            `lines were lost between them (an end line and the next run's header?), and the lines read cannot be trusted to be this run's; move the lines that are not out to code those turns again`,
        );
      }
      run = undefined;
      return;
    }
    if (value.codebook !== undefined) {
      // A full record (written before the compact form): it names its own run.
      const problem = recordProblem(value);
      if (problem) return fail(line, problem);
      notOwner(line, value as RunHeader);
      records.push(toRecord(value, value as RunHeader, (value.provenance as Json | undefined) ?? {}, value.createdAt as string));
      return;
    }
    const problem = fieldsProblem(value);
    if (problem) return fail(line, problem);
    if (!run)
      return fail(
        line,
        "a code line outside a run: the run header line before it is missing (was it damaged and moved to a .torn file? `colloquy repair` closes the run where it moves a line out), so its codebook version, coder and provenance are unknown; move the line out to code the turn again",
      );
    if (value.ms !== undefined && !Number.isSafeInteger(value.ms)) return fail(line, "ms: expected whole milliseconds");
    let createdAt = run.createdAt;
    if (value.createdAt !== undefined) {
      if (typeof value.createdAt !== "string") return fail(line, "createdAt: expected a string");
      createdAt = value.createdAt;
    } else if (value.ms !== undefined) {
      if (run.ms === undefined) return fail(line, "ms: the run's createdAt is not an ISO time to count from");
      createdAt = isoTime(run.ms + (value.ms as number), second);
    }
    run.lines++;
    records.push(toRecord(value, run, lineProvenance(run, value.provenance), createdAt, same, sameCodes));
  });
  return records;
}

/** Equal as JSON (what a record's provenance is once written). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return typeof a === "object" && a !== null && typeof b === "object" && b !== null && JSON.stringify(a) === JSON.stringify(b);
}

const definedKeys = (o: Json) => Object.keys(o).filter((k) => o[k] !== undefined);

/**
 * Whether `b` reads as the same run as `a` (whose provenance keys are `keys`): same codebook
 * version and coder, and at least half of their provenance in common.
 */
function sameRun(a: CodeRecord, keys: readonly string[], b: CodeRecord): boolean {
  if (a.codebook !== b.codebook || a.codebookVersion !== b.codebookVersion || a.coder !== b.coder) return false;
  if (a.provenance === b.provenance) return true;
  let shared = 0;
  for (const k of keys) if (same(a.provenance[k], b.provenance[k])) shared++;
  let own = 0;
  for (const k in b.provenance) if (b.provenance[k] !== undefined) own++;
  return 2 * shared >= Math.max(keys.length, own);
}

/** Consecutive records that read as one run (an append is usually one). */
function runsOf(records: readonly CodeRecord[]): CodeRecord[][] {
  const runs: CodeRecord[][] = [];
  let keys: string[] = [];
  for (const record of records) {
    const current = runs[runs.length - 1];
    if (current && sameRun(current[0]!, keys, record)) {
      current.push(record);
    } else {
      runs.push([record]);
      keys = definedKeys(record.provenance);
    }
  }
  return runs;
}

/** The lines of one run: header, one line per record, end. */
function runLines(run: readonly CodeRecord[]): Json[] {
  const first = run[0]!;
  // The header holds the provenance every record of the run has (so no line removes a key).
  const firstKeys = definedKeys(first.provenance);
  let keys = firstKeys;
  for (const record of run) {
    if (record.provenance !== first.provenance) keys = keys.filter((k) => same(first.provenance[k], record.provenance[k]));
  }
  const shared = new Set(keys);
  const provenance = Object.fromEntries(keys.map((k) => [k, first.provenance[k]]));
  const base = isoMs(first.createdAt);
  const lines: Json[] = [
    { run: { codebook: first.codebook, codebookVersion: first.codebookVersion, coder: first.coder, createdAt: first.createdAt, provenance } },
  ];
  for (const r of run) {
    const line: Json = { session: r.session, turn: r.turn };
    if (r.fingerprint !== undefined) line.fingerprint = r.fingerprint;
    if (r.codes !== undefined) line.codes = r.codes;
    if (r.scores !== undefined) line.scores = r.scores;
    if (r.segments !== undefined) line.segments = r.segments;
    if (r.rationale !== undefined) line.rationale = r.rationale;
    if (r.samples !== undefined) line.samples = r.samples;
    // A record holding the first one's very provenance object still needs the keys the run does not share.
    if (r.provenance !== first.provenance || shared.size < firstKeys.length) {
      const own = definedKeys(r.provenance).filter((k) => !shared.has(k));
      if (own.length > 0) line.provenance = Object.fromEntries(own.map((k) => [k, r.provenance[k]]));
    }
    if (r.createdAt !== first.createdAt) {
      const ms = base === undefined ? undefined : isoMs(r.createdAt);
      if (ms === undefined) line.createdAt = r.createdAt;
      else line.ms = ms - base!;
    }
    lines.push(line);
  }
  lines.push({ end: run.length });
  return lines;
}

/** Writers' records, checked like `codeRecordSchema.parse` (which throws the same error for a bad one). */
function checked(records: readonly CodeRecord[]): CodeRecord[] {
  return records.map((r) => {
    const problem = isObject(r) ? recordProblem(r as unknown as Json) : "not an object";
    if (problem || (r.provenance as unknown) === undefined) return codeRecordSchema.parse(r);
    return r;
  });
}

/** The compact lines of `records` (see the top of this file). */
export function compactLines(records: readonly CodeRecord[]): Json[] {
  return runsOf(checked(records)).flatMap(runLines);
}

/**
 * Whether the last line of a codes file leaves a run open (its end line was never written): a
 * code line or a header. Then the next append closes it first, so the lines of that append can
 * never read as part of it, even if its own header is later lost.
 */
function closeOpenRun(lastLine: string): Json | undefined {
  let value: unknown;
  try {
    value = JSON.parse(lastLine);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const open = value.run !== undefined || (value.session !== undefined && value.codebook === undefined);
  return open ? { end: "cut" } : undefined;
}

/** Append lines made by {@link compactLines}, closing a run an interrupted write left open first. */
export function appendCodeLines(path: string, lines: readonly Json[]): Promise<JsonlRepair | undefined> {
  return appendJsonl(path, lines, { closeTail: closeOpenRun, keep: isCodesFileLine });
}

/** Rewrite a codes file in the compact form (a torn last line is moved out first). */
export function rewriteCodesFile(path: string, records: readonly CodeRecord[]): Promise<JsonlRepair | undefined> {
  return rewriteJsonl(path, compactLines(records), isCodesFileLine);
}

/**
 * `colloquy repair` of a codes file: damaged lines moved out (keeping only whole codes-file lines
 * found in them), each replaced by `{"end":"cut"}`, so the code lines after a lost header can never
 * read as the run above's.
 */
export function repairCodesFile(path: string, options: { dryRun?: boolean } = {}): Promise<JsonlRepair | undefined> {
  return repairJsonl(path, { ...options, keep: isCodesFileLine, movedLine: { end: "cut" } });
}
