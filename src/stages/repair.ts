import { join } from "node:path";
import { codesFolderFiles } from "../coding/store.js";
import { repairCodesFile } from "../coding/codes-file.js";
import { identifyArtifact } from "../study/artifacts.js";
import { STUDY_FOLDERS } from "../util/artifact.js";
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

/** The study's JSONL files (codes, failures, and any other registered JSONL artifact), as paths, and whether each is a codes file. */
async function jsonlFiles(context: StudyContext): Promise<{ path: string; codes: boolean }[]> {
  const files: { path: string; codes: boolean }[] = [];
  for (const { codebook, file } of await codesFolderFiles(context.dir)) {
    const artifact = identifyArtifact(STUDY_FOLDERS.codes, `${codebook}/${file}`)?.artifact;
    if (artifact?.format === "jsonl") files.push({ path: join(context.paths.codes, codebook, file), codes: artifact.name === "codes" });
  }
  return files;
}

export async function runRepair(context: StudyContext, options: RepairStageOptions, effects: StageEffects): Promise<RepairSummary> {
  const files = await jsonlFiles(context);
  const summary: RepairSummary = { checked: files.length, repairs: [], dryRun: Boolean(options.dryRun) };
  for (const [i, file] of files.entries()) {
    effects.progress("checking codes files", i, files.length);
    // A codes file keeps only whole codes-file lines of a damaged one, and closes the run there.
    const repair = file.codes ? await repairCodesFile(file.path, { dryRun: options.dryRun }) : await repairJsonl(file.path, { dryRun: options.dryRun });
    if (repair) summary.repairs.push(repair);
  }
  effects.progress("checking codes files", files.length, files.length);
  if (summary.repairs.length > 0 && !options.dryRun) context.changed("codes");
  return summary;
}
