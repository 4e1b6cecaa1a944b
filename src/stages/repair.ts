import { join } from "node:path";
import { codesFolderFiles } from "../coding/store.js";
import { identifyArtifact, STUDY_FOLDERS } from "../study/artifacts.js";
import { repairJsonl, type JsonlRepair } from "../util/fs.js";
import type { StageEffects, StudyContext } from "./context.js";

/**
 * The repair stage (`colloquy repair`): makes every append-only file of a study readable again
 * without losing a record. Appends heal a torn last line on their own; this is for damage made
 * before they did, when the next record was appended onto a torn one and the file stopped being
 * readable ("not a valid JSON line"). Each unreadable fragment is moved to
 * `<file>.torn-<time>` (written first), each complete record, also one glued after a fragment,
 * stays. Run by hand, not on every read: reading never changes a file.
 */

export interface RepairStageOptions {
  /** Report what would be moved, change nothing. */
  dryRun?: boolean;
}

export interface RepairSummary {
  /** Append-only files checked. */
  checked: number;
  repairs: JsonlRepair[];
  dryRun: boolean;
}

/** The study's JSONL files (codes, failures, and any other registered JSONL artifact), as paths. */
async function jsonlFiles(context: StudyContext): Promise<string[]> {
  return (await codesFolderFiles(context.dir))
    .filter(({ codebook, file }) => identifyArtifact(STUDY_FOLDERS.codes, `${codebook}/${file}`)?.artifact.format === "jsonl")
    .map(({ codebook, file }) => join(context.paths.codes, codebook, file));
}

export async function runRepair(context: StudyContext, options: RepairStageOptions, effects: StageEffects): Promise<RepairSummary> {
  const files = await jsonlFiles(context);
  const summary: RepairSummary = { checked: files.length, repairs: [], dryRun: Boolean(options.dryRun) };
  for (const [i, file] of files.entries()) {
    effects.progress("checking codes files", i, files.length);
    const repair = await repairJsonl(file, { dryRun: options.dryRun });
    if (repair) summary.repairs.push(repair);
  }
  effects.progress("checking codes files", files.length, files.length);
  if (summary.repairs.length > 0 && !options.dryRun) context.changed("codes");
  return summary;
}
