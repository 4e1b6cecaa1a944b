import { artifacts, loadArtifact, writeArtifact, type PipelineStateFile } from "../study/artifacts.js";

/**
 * What the pipeline remembers between runs (`.colloquy-state.json` in the study): for each
 * stage the fingerprint of the inputs it last finished with; the inbox files imported; and file
 * hashes remembered with each file's stamp (size, mtime, ctime, inode), so unchanged files are
 * not read again. Written after every finished stage, so a failure later in the pipeline keeps earlier stages' records.
 */
export type PipelineState = PipelineStateFile;

export async function readState(study: string): Promise<PipelineState> {
  const read = await loadArtifact(artifacts.state, study);
  // Missing or unreadable state only costs a re-run; never an error.
  return read.status === "ok" ? read.value : { version: 1, stages: {}, imported: {} };
}

export async function writeState(study: string, state: PipelineState): Promise<void> {
  await writeArtifact(artifacts.state, study, state);
}

/**
 * Make the next `colloquy study` run a stage again: used when a command wrote that stage's
 * artifact for part of the study (`agree --sessions …`), so the whole-study file comes back.
 */
export async function forgetStage(study: string, stage: string): Promise<void> {
  const state = await readState(study);
  if (!(stage in state.stages)) return;
  delete state.stages[stage];
  await writeState(study, state);
}
