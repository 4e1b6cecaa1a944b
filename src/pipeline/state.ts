import { readFile } from "node:fs/promises";
import { writeJsonAtomic } from "../util/fs.js";
import { studyPaths } from "../study/study.js";

/**
 * What the pipeline remembers between runs (`.colloquy-state.json` in the study): for each
 * stage the fingerprint of the inputs it last finished with. A stage whose current input
 * fingerprint equals the stored one is skipped. Written after every finished stage, so a
 * failure later in the pipeline keeps earlier stages' records.
 */
export interface StageRecord {
  fingerprint: string;
  finishedAt: string;
  seconds: number;
  summary: string;
}

export interface PipelineState {
  version: 1;
  stages: Record<string, StageRecord>;
  /** Inbox files already imported: relative path -> content hash. */
  imported: Record<string, string>;
  /** Fingerprint of the import settings (path pattern, format) the inbox was imported with. */
  importSettings?: string;
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
