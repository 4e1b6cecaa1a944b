import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { readFile } from "node:fs/promises";
import { garbageBudget } from "../util/memory.js";
import { parseArtifact } from "../study/artifacts.js";
import { STUDY_FOLDERS, type Artifact } from "../util/artifact.js";
import {
  agreementAnalysis,
  analyses,
  compareAnalysis,
  conceptsAnalysis,
  statsAnalysis,
  topicsAnalysis,
  type AnalysisDescriptor,
} from "../analysis/analyses.js";
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
import type { CodeRecord, CodeValue } from "../coding/records.js";
import type { Session } from "../transcript/schema.js";
import { errorMessage } from "../util/errors.js";
import type { z } from "zod";

/** Codes of one codebook by one coder, indexed by session and turn id. */
export interface CodeSet {
  codebook: string;
  coder: string;
  records: CodeRecord[];
  /**
   * session id -> turn id -> record (the last record of a turn wins). Indexed per session so a
   * shaper looks up one session's map once and then each turn, instead of building a
   * "session\0turn" key string per turn and per view.
   */
  bySession: Map<string, Map<string, CodeRecord>>;
  /** Distinct (session, turn) pairs with a record. */
  turns: number;
}

/** One valid analysis file: its name in analysis/, the registry's parameters (codebook id) and value. */
export interface AnalysisFile<T> {
  file: string;
  params: string[];
  value: T;
}

/**
 * The study's analysis files, each validated with the schema of its descriptor's `result`.
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

export function indexCodes(codebook: string, coder: string, records: CodeRecord[]): CodeSet {
  const bySession = new Map<string, Map<string, CodeRecord>>();
  let turns = 0;
  for (const r of records) {
    let session = bySession.get(r.session);
    if (!session) bySession.set(r.session, (session = new Map()));
    const size = session.size;
    session.set(r.turn, r);
    if (session.size > size) turns++;
  }
  return { codebook, coder, records, bySession, turns };
}

/**
 * A code set of records cut to their CodeValue (session, turn, codes, scores, version): what the
 * views and the memo's digests read of it. The set's facts (codeSetFacts) and seen codes (seenIn)
 * come from the summary of the whole records (CodeCut): they read provenance, dates and versions.
 * A parsed record with its rationale, fingerprint and provenance takes ~400 bytes, one cut so ~60:
 * the build holds a codebook's values while it shapes every session's part of them (issue 40).
 */
export function shapedCodes(codebook: string, coder: string, values: readonly CodeValue[]): CodeSet {
  // Only these fields are read from here on (shape/parts.ts, shape/overview.ts addBadges, memo.ts codesDigest).
  return indexCodes(codebook, coder, values as CodeRecord[]);
}

const noCodes: ReadonlyMap<string, CodeRecord> = new Map();

/** One session's records of a code set, by turn id (empty when the session has none). */
export function sessionCodes(set: Pick<CodeSet, "bySession">, session: string): ReadonlyMap<string, CodeRecord> {
  return set.bySession.get(session) ?? noCodes;
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
  for (const [codebook, list] of Object.entries(coders)) {
    for (const coder of list) codeSets.push(indexCodes(codebook, coder, await reader.codes(codebook, coder)));
  }
  const codebooks = await loadCodebooks(paths.root, config, Object.keys(coders), warnings);
  const analysis = noAnalysisFiles();
  await readAnalysisFiles(paths.root, warnings, (entry) => keepAnalysis(analysis, entry));
  return { root: paths.root, name: basename(paths.root), config, sessions, codebooks, codeSets, analysis, warnings };
}

/**
 * The definitions of the codebooks with codes, by id, in `ids` order; a definition that cannot be
 * loaded is null and a warning (labels then fall back to ids).
 */
export async function loadCodebooks(root: string, config: StudyConfig, ids: readonly string[], warnings: string[]): Promise<Map<string, Codebook | null>> {
  const refs = new Map<string, string>();
  for (const plan of config.codebooks) refs.set(basename(plan.codebook).replace(/\.(json|ya?ml)$/i, ""), plan.codebook);
  const codebooks = new Map<string, Codebook | null>();
  for (const codebook of ids) {
    try {
      codebooks.set(codebook, await loadCodebook(refs.get(codebook) ?? codebook, root));
    } catch (error) {
      codebooks.set(codebook, null);
      warnings.push(`codebook "${codebook}" could not be loaded (${errorMessage(error)}); showing code ids as labels`);
    }
  }
  return codebooks;
}

/** An empty set of analysis files (a study no analysis command has run on yet). */
export function noAnalysisFiles(): AnalysisArtifacts {
  return { agreement: [], compare: new Map(), stats: null, topics: null, concepts: null, files: [] };
}

/** One valid analysis file as read by {@link readAnalysisFiles}, with the analysis it is the result of. */
export interface AnalysisEntry {
  analysis: AnalysisDescriptor<unknown>;
  file: string;
  params: string[];
  value: unknown;
}

/** File `entry` under its analysis in `out` (its value was validated with that analysis's schema). */
export function keepAnalysis(out: AnalysisArtifacts, entry: AnalysisEntry): void {
  const { analysis, file, params, value } = entry;
  out.files.push({ file, provenance: (value as { provenance: Provenance }).provenance });
  if (analysis === agreementAnalysis) out.agreement.push({ file, params, value: value as AgreementReport });
  else if (analysis === compareAnalysis) out.compare.set(params[0], { file, params, value: value as CompareReport });
  else if (analysis === statsAnalysis) out.stats = { file, params, value: value as StatsReport };
  else if (analysis === topicsAnalysis) out.topics = { file, params, value: value as TopicsReport };
  else if (analysis === conceptsAnalysis) out.concepts = { file, params, value: value as ConceptsReport };
}

/**
 * Read every analysis result in the study's analysis folder (the `result` of each descriptor in
 * `analyses`), in file name order, and validate it with its schema; `visit` gets each valid one.
 * Other files (CSV tables, the study report, a researcher's own notes) are left alone. One file
 * is held at a time: a visitor that keeps only what it needs (the dashboard's build) never holds
 * every file at once. `schemaOf` may validate less than the whole file (the build: what the
 * dashboard reads of it, report/dashboard-reads.ts).
 */
export async function readAnalysisFiles(
  root: string,
  warnings: string[],
  visit: (entry: AnalysisEntry) => void,
  schemaOf: (analysis: AnalysisDescriptor<unknown>) => z.ZodType | null = (analysis) => analysis.result.schema,
): Promise<void> {
  const dir = join(root, STUDY_FOLDERS.analysis);
  let names: string[] = [];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    // no analysis folder yet: every analysis view shows its empty state
  }
  // The files are 1-20 MB each at 100,000 turns, and their parsed and validated values several
  // times that: a collection before reading the next lets the last one go, rather than V8's slack
  // piling them up (the build's peak, issue 33).
  const processed = garbageBudget();
  for (const file of names) {
    const analysis = analyses.find((d) => d.result.match(file));
    if (!analysis) continue;
    const params = analysis.result.match(file)!;
    let read;
    try {
      const text = await readFile(join(dir, file), "utf8");
      processed(text.length);
      const artifact = analysis.result as Artifact<string[], unknown>;
      read = parseArtifact({ ...artifact, schema: schemaOf(analysis as AnalysisDescriptor<unknown>) }, text);
    } catch (error) {
      read = { status: "invalid" as const, problem: `not readable (${errorMessage(error)})` };
    }
    if (read.status === "invalid")
      warnings.push(
        `${analysis.result.relative(...params)}: ${read.problem} (${analysis.title} left out); re-run \`colloquy ${analysis.stage}\` to refresh it`,
      );
    if (read.status !== "ok") continue;
    visit({ analysis: analysis as AnalysisDescriptor<unknown>, file, params, value: read.value });
  }
}

/** "re-run `colloquy agree` to refresh it": the hint of a file that could not be used. */
export function rerun(artifact: Pick<Artifact, "writtenBy">): string {
  return `re-run \`${artifact.writtenBy}\` to refresh it`;
}
