import { readFile } from "node:fs/promises";
import { writeJsonAtomic } from "../util/fs.js";
import { studyPaths } from "../study/study.js";
import type { StatCache } from "./fingerprint.js";

/**
 * What the pipeline remembers between runs (`.colloquy-state.json` in the study): for each
 * stage the fingerprint of the inputs it last finished with, and of the outputs it left. A stage
 * whose inputs and outputs are as it left them is skipped. Written after every finished stage,
 * so a failure later in the pipeline keeps earlier stages' records.
 */
export interface StageRecord {
  fingerprint: string;
  /** Fingerprint of the stage's output files when it finished (changed or deleted outputs re-run it). */
  outputs?: string;
  finishedAt: string;
  seconds: number;
  summary: string;
}

export interface PipelineState {
  version: 1;
  stages: Record<string, StageRecord>;
  /** Inbox files already imported: path relative to inbox/ -> content hash. */
  imported: Record<string, string>;
  /** Fingerprint of the import settings (path pattern, format) the inbox was imported with. */
  importSettings?: string;
  /** File hashes remembered with size and mtime, so unchanged files are not read again. */
  hashes?: StatCache;
}

export async function readState(study: string): Promise<PipelineState> {
  try {
    const value = JSON.parse(await readFile(studyPaths(study).state, "utf8")) as PipelineState;
    if (value && value.version === 1 && value.stages && value.imported) return value;
  } catch {
    // Missing or unreadable state only costs a re-run; never an error.
  }
  return { version: 1, stages: {}, imported: {} };
}

export async function writeState(study: string, state: PipelineState): Promise<void> {
  await writeJsonAtomic(studyPaths(study).state, state);
}
