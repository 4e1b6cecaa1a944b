import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseArtifact, STUDY_FOLDERS, type Artifact } from "../study/artifacts.js";
import { agreementAnalysis, analyses, compareAnalysis, conceptsAnalysis, statsAnalysis, topicsAnalysis, type AnalysisDescriptor } from "../analysis/analyses.js";
import type { AgreementReport } from "../analysis/agreement/agree.js";
import type { CompareReport } from "../analysis/compare/compare.js";
import type { StatsReport } from "../analysis/stats/report.js";
import type { TopicsReport } from "../analysis/topics/report.js";
import type { ConceptsReport } from "../analysis/concepts/report.js";
import type { Provenance } from "../util/provenance.js";
import { loadStudyConfig, studyPaths } from "../study/study.js";
import { diskReader, type StudyReader } from "../study/reader.js";
import type { StudyConfig } from "../study/config.js";
import { listCoders } from "../coding/store.js";
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

/** One valid analysis file: its name in analysis/, the registry's parameters (codebook id) and value. */
export interface AnalysisFile<T> {
  file: string;
  params: string[];
  value: T;
}

/**
 * The study's analysis files, each validated with its registry schema (src/study/artifacts.ts).
 * Missing files are absent; invalid ones are absent and named in `StudyData.warnings`.
 */
export interface AnalysisArtifacts {
  /** agreement-<codebook>.json, by file name order. */
  agreement: AnalysisFile<AgreementReport>[];
  /** compare-<codebook>.json by codebook id. */
  compare: Map<string, AnalysisFile<CompareReport>>;
  stats: AnalysisFile<StatsReport> | null;
  topics: AnalysisFile<TopicsReport> | null;
  concepts: AnalysisFile<ConceptsReport> | null;
  /** Every valid analysis file with its provenance, in file name order (the overview lists them). */
  files: { file: string; provenance: Provenance }[];
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
  /** Validated analysis files; unreadable, old or invalid ones become warnings. */
  analysis: AnalysisArtifacts;
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
export async function loadStudyData(dir: string, reader: StudyReader = diskReader(dir)): Promise<StudyData> {
  const paths = studyPaths(dir);
  const config = await loadStudyConfig(dir);
  const sessions = await reader.sessions();
  const warnings: string[] = [];
  const coders = await listCoders(dir);
  const codeSets: CodeSet[] = [];
  const codebooks = new Map<string, Codebook | null>();
  const refs = new Map<string, string>();
  for (const plan of config.codebooks) refs.set(basename(plan.codebook).replace(/\.(json|ya?ml)$/i, ""), plan.codebook);
  for (const [codebook, list] of Object.entries(coders)) {
    for (const coder of list) codeSets.push(indexCodes(codebook, coder, await reader.codes(codebook, coder)));
    try {
      codebooks.set(codebook, await loadCodebook(refs.get(codebook) ?? codebook, paths.root));
    } catch (error) {
      codebooks.set(codebook, null);
      warnings.push(`codebook "${codebook}" could not be loaded (${errorMessage(error)}); showing code ids as labels`);
    }
  }
  const analysis = await loadAnalysis(paths.root, warnings);
  return { root: paths.root, name: basename(paths.root), config, sessions, codebooks, codeSets, analysis, warnings };
}

/**
 * Read every analysis result in the study's analysis folder (the `result` of each descriptor in
 * `analyses`) and validate it with its schema. Other files (CSV tables, the study report, a
 * researcher's own notes) are left alone.
 */
async function loadAnalysis(root: string, warnings: string[]): Promise<AnalysisArtifacts> {
  const dir = join(root, STUDY_FOLDERS.analysis);
  let names: string[] = [];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    // no analysis folder yet: every analysis view shows its empty state
  }
  const found = new Map<string, AnalysisFile<unknown>[]>(analyses.map((d) => [d.id, []]));
  const files: AnalysisArtifacts["files"] = [];
  for (const file of names) {
    const analysis = analyses.find((d) => d.result.match(file));
    if (!analysis) continue;
    const params = analysis.result.match(file)!;
    let read;
    try {
      read = parseArtifact(analysis.result as Artifact<string[], unknown>, await readFile(join(dir, file), "utf8"));
    } catch (error) {
      read = { status: "invalid" as const, problem: `not readable (${errorMessage(error)})` };
    }
    if (read.status === "invalid") warnings.push(`${analysis.result.relative(...params)}: ${read.problem} (${analysis.title} left out); re-run \`colloquy ${analysis.stage}\` to refresh it`);
    if (read.status !== "ok") continue;
    found.get(analysis.id)!.push({ file, params, value: read.value });
    files.push({ file, provenance: (read.value as { provenance: Provenance }).provenance });
  }
  // Validated with the descriptor's own schema, so each list holds that descriptor's type.
  const of = <T>(analysis: AnalysisDescriptor<T>) => found.get(analysis.id) as AnalysisFile<T>[];
  return {
    agreement: of(agreementAnalysis),
    compare: new Map(of(compareAnalysis).map((f) => [f.params[0], f])),
    stats: of(statsAnalysis)[0] ?? null,
    topics: of(topicsAnalysis)[0] ?? null,
    concepts: of(conceptsAnalysis)[0] ?? null,
    files,
  };
}

/** "re-run `colloquy agree` to refresh it": the hint of a file that could not be used. */
export function rerun(artifact: Pick<Artifact, "writtenBy">): string {
  return `re-run \`${artifact.writtenBy}\` to refresh it`;
}
