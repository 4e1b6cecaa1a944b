import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { loadSessions, loadStudyConfig, studyPaths } from "../study/study.js";
import type { StudyConfig } from "../study/config.js";
import { listCoders, readCodes } from "../coding/store.js";
import { loadCodebook } from "../coding/codebook/load.js";
import type { Codebook } from "../coding/codebook/schema.js";
import type { CodeRecord } from "../coding/records.js";
import type { Session } from "../transcript/schema.js";
import { errorMessage } from "../util/errors.js";

/** Codes of one codebook by one coder, indexed by session and turn id. */
export interface CodeSet {
  codebook: string;
  coder: string;
  records: CodeRecord[];
  /** `${session}\u0000${turn}` -> record */
  byTurn: Map<string, CodeRecord>;
}

/** Everything the report reads from a study folder, loaded once. */
export interface StudyData {
  root: string;
  name: string;
  config: StudyConfig;
  sessions: Session[];
  /** Codebook definitions by id; null when the id could not be resolved (labels fall back to ids). */
  codebooks: Map<string, Codebook | null>;
  codeSets: CodeSet[];
  /** Parsed analysis/*.json files by file name; unreadable ones become warnings. */
  analysis: Map<string, unknown>;
  warnings: string[];
}

export function turnKey(session: string, turn: string): string {
  return `${session}\u0000${turn}`;
}

export function indexCodes(codebook: string, coder: string, records: CodeRecord[]): CodeSet {
  const byTurn = new Map<string, CodeRecord>();
  for (const r of records) byTurn.set(turnKey(r.session, r.turn), r);
  return { codebook, coder, records, byTurn };
}

/**
 * Load sessions, codes, codebooks and analysis files of a study. Only sessions and codes are
 * required to be valid (they are the study's data); analysis files are computed output, so a
 * missing, old or broken one is a warning and its view shows an empty state instead.
 */
export async function loadStudyData(dir: string): Promise<StudyData> {
  const paths = studyPaths(dir);
  const config = await loadStudyConfig(dir);
  const sessions = await loadSessions(dir);
  const warnings: string[] = [];
  const coders = await listCoders(dir);
  const codeSets: CodeSet[] = [];
  const codebooks = new Map<string, Codebook | null>();
  const refs = new Map<string, string>();
  for (const plan of config.codebooks) refs.set(basename(plan.codebook).replace(/\.(json|ya?ml)$/i, ""), plan.codebook);
  for (const [codebook, list] of Object.entries(coders)) {
    for (const coder of list) codeSets.push(indexCodes(codebook, coder, await readCodes(dir, codebook, coder)));
    try {
      codebooks.set(codebook, await loadCodebook(refs.get(codebook) ?? codebook, paths.root));
    } catch (error) {
      codebooks.set(codebook, null);
      warnings.push(`codebook "${codebook}" could not be loaded (${errorMessage(error)}); showing code ids as labels`);
    }
  }
  const analysis = new Map<string, unknown>();
  let files: string[] = [];
  try {
    files = (await readdir(paths.analysis)).filter((f) => f.endsWith(".json")).sort();
  } catch {
    // no analysis folder yet: every analysis view shows its empty state
  }
  for (const file of files) {
    try {
      analysis.set(file, JSON.parse(await readFile(join(paths.analysis, file), "utf8")));
    } catch (error) {
      warnings.push(`analysis/${file}: not readable JSON (${errorMessage(error)}); re-run the command that writes it`);
    }
  }
  return { root: paths.root, name: basename(paths.root), config, sessions, codebooks, codeSets, analysis, warnings };
}
