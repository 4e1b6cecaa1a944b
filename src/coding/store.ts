import type { z } from "zod";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { appendJsonl, rewriteJsonl, visitJsonl, type JsonlRepair } from "../util/fs.js";
import { studyPaths } from "../study/study.js";
import { CliError } from "../util/errors.js";
import { artifacts, coderFileName } from "../study/artifacts.js";
import { codeFailureSchema, type CodeFailure, type CodeRecord } from "./records.js";
import { appendCodeLines, compactLines, readCodesFile, rewriteCodesFile } from "./codes-file.js";
import { listEntry } from "../util/named-entries.js";

// File names of codes come from the artifact registry (src/study/artifacts.ts).
export { coderFileName };

export function codesPath(study: string, codebook: string, coder: string): string {
  return artifacts.codes.path(study, codebook, coder);
}

export function failuresPath(study: string, codebook: string, coder: string): string {
  return artifacts.codeFailures.path(study, codebook, coder);
}

/**
 * Append code records (grouped per codebook and coder file), each file's share as one run in the
 * compact form (codes-file.ts); returns the torn lines healed first.
 */
export async function appendCodes(study: string, records: readonly CodeRecord[]): Promise<JsonlRepair[]> {
  const groups = new Map<string, CodeRecord[]>();
  for (const record of records) {
    const path = codesPath(study, record.codebook, record.coder);
    // push, not spread: spreading made appending n records O(n²) (minutes for 100k records).
    const group = groups.get(path);
    if (group) group.push(record);
    else groups.set(path, [record]);
  }
  // Every record checked (compactLines throws for a bad one) before any file is written.
  const lines = new Map([...groups].map(([path, group]) => [path, compactLines(group)]));
  return appendGroups(lines, appendCodeLines);
}

async function appendGroups<T>(groups: Map<string, T>, append: (path: string, group: T) => Promise<JsonlRepair | undefined>): Promise<JsonlRepair[]> {
  const repairs: JsonlRepair[] = [];
  for (const [path, group] of groups) {
    const repair = await append(path, group);
    if (repair) repairs.push(repair);
  }
  return repairs;
}

/**
 * Replace all codes of one codebook and coder (used by importers of human codes). A torn last
 * line is moved to a .torn file first (returned), never dropped with the rewrite.
 */
export async function replaceCodes(study: string, codebook: string, coder: string, records: readonly CodeRecord[]): Promise<JsonlRepair | undefined> {
  return rewriteCodesFile(codesPath(study, codebook, coder), records);
}

export async function appendFailures(study: string, failures: readonly CodeFailure[]): Promise<JsonlRepair[]> {
  const groups = new Map<string, CodeFailure[]>();
  for (const failure of failures) {
    const path = failuresPath(study, failure.codebook, failure.coder);
    const group = groups.get(path) ?? [];
    group.push(codeFailureSchema.parse(failure));
    groups.set(path, group);
  }
  return appendGroups(groups, appendJsonl);
}

/**
 * Drop the failures of turns that now have a code (a later run coded them), rewriting the file
 * atomically; an emptied file is removed. `coded(session, turn)` says whether a turn has a code.
 */
export async function pruneFailures(
  study: string,
  codebook: string,
  coder: string,
  coded: (session: string, turn: string) => boolean,
): Promise<{ removed: number; kept: number; repair?: JsonlRepair }> {
  const path = failuresPath(study, codebook, coder);
  const failures = await readFailures(study, codebook, coder);
  const kept = failures.filter((f) => !coded(f.session, f.turn));
  const removed = failures.length - kept.length;
  if (removed === 0) return { removed, kept: kept.length };
  const repair = await rewriteJsonl(path, kept);
  if (kept.length === 0) await rm(path, { force: true });
  return { removed, kept: kept.length, ...(repair ? { repair } : {}) };
}

/**
 * Every record of one codebook and coder, in file order: the full history, a turn coded twice
 * included. Writers that rewrite a codes file start from this, so no record is collapsed away.
 * Torn final lines from an interrupted run are skipped (appends heal them).
 */
export async function readCodeHistory(study: string, codebook: string, coder: string): Promise<CodeRecord[]> {
  return readCodesFile(codesPath(study, codebook, coder), { codebook, coder });
}

/** Every record of a JSONL file, each validated; one that is not `what` stops with file and line. */
export async function readRecords<T>(path: string, schema: z.ZodType<T>, what: string): Promise<T[]> {
  const records: T[] = [];
  await visitJsonl(path, (value, line) => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new CliError(`${path}:${line}: not ${what}; fix or move the line (colloquy repair <study> mends torn lines)`);
    records.push(parsed.data);
  });
  return records;
}

/**
 * Codes of one codebook and coder as they stand: when a turn was coded more than once (a resumed
 * run that overlapped, a recoded turn), the latest record wins.
 */
export async function readCodes(study: string, codebook: string, coder: string): Promise<CodeRecord[]> {
  return latestRecords(await readCodeHistory(study, codebook, coder));
}

/**
 * The last record of each turn, at the place of the turn's first record (the order a Map keyed by
 * session and turn gives). Two levels of maps, not one keyed by `${session}\0${turn}`: building
 * and hashing 100,000 joined keys cost more than the rest of reading them (0.2-1 s).
 */
export function latestRecords(history: readonly CodeRecord[]): CodeRecord[] {
  const out: CodeRecord[] = [];
  const bySession = new Map<string, Map<string, number>>();
  let session: string | undefined;
  let turns: Map<string, number> | undefined;
  for (const record of history) {
    // A file's records come session by session: look the session up only when it changes.
    if (record.session !== session || !turns) {
      session = record.session;
      turns = bySession.get(session);
      if (!turns) bySession.set(session, (turns = new Map()));
    }
    const at = turns.get(record.turn);
    if (at === undefined) {
      turns.set(record.turn, out.length);
      out.push(record);
    } else out[at] = record;
  }
  return out;
}

export async function readFailures(study: string, codebook: string, coder: string): Promise<CodeFailure[]> {
  return readRecords(failuresPath(study, codebook, coder), codeFailureSchema, "a coding failure");
}

/** Every file in the codes folder as `{codebook, file}` (codes/<codebook>/<file>), sorted; none without a codes folder. */
export async function codesFolderFiles(study: string): Promise<{ codebook: string; file: string }[]> {
  const root = studyPaths(study).codes;
  let codebooks: string[];
  try {
    codebooks = await readdir(root);
  } catch {
    return [];
  }
  const out: { codebook: string; file: string }[] = [];
  for (const codebook of codebooks.sort()) {
    let files: string[];
    try {
      files = await readdir(join(root, codebook));
    } catch {
      continue;
    }
    for (const file of files.sort()) out.push({ codebook, file });
  }
  return out;
}

/** Which codebooks have codes, and from which coders: `{ "bales-ipa": ["human:alice", "rules"] }`. */
export async function listCoders(study: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const { codebook, file } of await codesFolderFiles(study)) {
    const coder = artifacts.codes.match(`${codebook}/${file}`)?.[1];
    if (coder !== undefined) listEntry(out, codebook).push(coder);
  }
  for (const coders of Object.values(out)) coders.sort();
  return out;
}
