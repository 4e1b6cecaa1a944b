import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseArtifact, STUDY_FOLDERS, type Artifact } from "../study/artifacts.js";
import { parseArtifactLines, parseArtifactPart, partSchemas, type ArtifactPart } from "../study/artifact-part.js";
import type { LineCache, LineShaper, ShapedLine, ShapedLines, WholeShaper } from "./line-cache.js";
import { createHash } from "node:crypto";
import { jsonMembers } from "../util/json-spans.js";
import { sha256 } from "../util/hash.js";
import { readWholeFile } from "../util/fs.js";
import { writtenLines } from "../util/written-lines.js";
import type { SplitLineArray } from "../util/json-layout.js";
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
import type { CodeRecord } from "../coding/records.js";
import type { Session } from "../transcript/schema.js";
import { errorMessage } from "../util/errors.js";

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
  /** For a file read by its lines (readAnalysisFiles' `lines`): its array's entries, shaped as text; `value` lacks that member. */
  shaped?: ShapedLines;
  /** For a file shaped whole (LineReading `wholes`): its entries as text; `value` may hold its provenance alone. */
  shapedWhole?: ShapedLine;
}

/** How the build reads some analysis files by their lines: a shaper per analysis, and what earlier builds made of each line. */
export interface LineReading {
  shapers: ReadonlyMap<AnalysisDescriptor<unknown>, LineShaper>;
  /** Analyses whose files are shaped whole, and kept so by their bytes but their provenance. */
  wholes?: ReadonlyMap<AnalysisDescriptor<unknown>, WholeShaper>;
  cache: LineCache;
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
 * every file at once. With `shown`, a result whose descriptor says what the dashboard shows of it
 * (`shown`) is read only that far: its value then holds those members (and fields) alone.
 */
export async function readAnalysisFiles(
  root: string,
  warnings: string[],
  visit: (entry: AnalysisEntry) => void,
  options: { shown?: boolean; lines?: LineReading } = {},
): Promise<void> {
  const dir = join(root, STUDY_FOLDERS.analysis);
  let names: string[] = [];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    // no analysis folder yet: every analysis view shows its empty state
  }
  for (const file of names) {
    const analysis = analyses.find((d) => d.result.match(file));
    if (!analysis) continue;
    const params = analysis.result.match(file)!;
    const result = analysis.result as Artifact<string[], unknown>;
    const part = options.shown ? analysis.shown : undefined;
    // A part its schema lacks, or a shaper of an array the part does not read entry by entry, is a
    // mistake in the code: thrown, not reported as a broken file.
    if (part) partSchemas(result, part);
    const shaper = part && options.lines?.shapers.get(analysis as AnalysisDescriptor<unknown>);
    if (shaper && !part.fields?.[shaper.member]) throw new Error(`${analysis.id}: its shown part does not read "${shaper.member}" entry by entry`);
    // A file this run's stage wrote by its lines and handed over (util/written-lines.ts) is taken as written.
    const handed = shaper && (await writtenLines(join(dir, file), shaper.member));
    const byHand = handed && readByLines(analysis as AnalysisDescriptor<unknown>, handed.split, part, shaper, options.lines!.cache, handed.sha256);
    if (byHand) {
      visit({ analysis: analysis as AnalysisDescriptor<unknown>, file, params, value: byHand.value, shaped: byHand.shaped });
      continue;
    }
    let bytes: Buffer | undefined;
    let read;
    try {
      bytes = await readWholeFile(join(dir, file));
    } catch (error) {
      read = { status: "invalid" as const, problem: `not readable (${errorMessage(error)})` };
    }
    const whole = part && options.lines?.wholes?.get(analysis as AnalysisDescriptor<unknown>);
    const shapedWhole = bytes && whole && readWhole(analysis as AnalysisDescriptor<unknown>, file, bytes, part, whole, options.lines!.cache);
    if (shapedWhole) {
      visit({ analysis: analysis as AnalysisDescriptor<unknown>, file, params, ...shapedWhole });
      continue;
    }
    if (bytes) {
      const byLines = shaper && readByLines(analysis as AnalysisDescriptor<unknown>, bytes, part, shaper, options.lines!.cache);
      if (byLines) {
        visit({ analysis: analysis as AnalysisDescriptor<unknown>, file, params, value: byLines.value, shaped: byLines.shaped });
        continue;
      }
      try {
        read = part ? parseArtifactPart(result, bytes, part) : parseArtifact(result, bytes.toString("utf8"));
      } catch (error) {
        read = { status: "invalid" as const, problem: `not readable (${errorMessage(error)})` };
      }
    }
    if (!read) continue;
    if (read.status === "invalid")
      warnings.push(
        `${analysis.result.relative(...params)}: ${read.problem} (${analysis.title} left out); re-run \`colloquy ${analysis.stage}\` to refresh it`,
      );
    if (read.status !== "ok") continue;
    visit({ analysis: analysis as AnalysisDescriptor<unknown>, file, params, value: read.value });
  }
}

/**
 * A `shown` part of an analysis file whose array the shaper takes is written one entry per line:
 * the other members read and checked, and each line's entries as text, from the cache when an
 * earlier build met the same line (its bytes, under the same code), else read, checked and shaped
 * now. Undefined when the file is not laid out so, or any of it is not valid: parseArtifactPart
 * then reads it whole and names the problem as it always has.
 */
function readByLines(
  analysis: AnalysisDescriptor<unknown>,
  source: Buffer | SplitLineArray,
  part: ArtifactPart,
  shaper: LineShaper,
  cache: LineCache,
  /** Each line's sha256, as its writer kept it (else hashed here). */
  hashes?: readonly string[],
) {
  const lines = parseArtifactLines(analysis.result, source, part, shaper.member);
  if (!lines || (hashes && hashes.length !== lines.lines.length)) return undefined;
  const shaped: ShapedLines = { path: shaper.path, texts: [], entries: 0 };
  for (const [i, line] of lines.lines.entries()) {
    const key = `${analysis.id} ${hashes?.[i] ?? sha256(line)}`;
    let entry = cache.get(key);
    if (!entry) {
      const read = lines.read(i);
      if (!read) return undefined;
      cache.set(key, (entry = shaper.shape(read.value)));
    }
    shaped.texts.push(entry.text);
    shaped.entries += entry.entries;
  }
  return { value: lines.value, shaped };
}

/**
 * A file the build shapes whole: its entries from the cache when an earlier build shaped a file of
 * that name whose `shown` members other than its provenance (when and from how many records it
 * was made) had the same bytes, under the same code; only its provenance is then read and checked.
 * An agreement file is written again by every run that adds a session, with the same sets when no
 * human codes were added: reading, checking and shaping it took 90 ms at 100,000 turns. Else its
 * shown part is read, checked and shaped now. Undefined when the file is not valid or has nothing
 * to draw: the caller reads it as it always has, and names the problem.
 */
function readWhole(analysis: AnalysisDescriptor<unknown>, file: string, bytes: Buffer, part: ArtifactPart, shaper: WholeShaper, cache: LineCache) {
  const result = analysis.result as Artifact<string[], unknown>;
  let spans;
  try {
    spans = jsonMembers(bytes, undefined, { wanted: new Set(part.members) });
  } catch {
    return undefined;
  }
  const hash = createHash("sha256").update(JSON.stringify(file));
  for (const member of part.members) {
    const span = spans.get(member);
    if (member !== "provenance") hash.update(`\u0000${member}\u0000`).update(span ? bytes.subarray(span.start, span.end) : "-");
  }
  const key = `${analysis.id} whole ${hash.digest("hex")}`;
  const known = cache.get(key);
  const read = parseArtifactPart(result, bytes, known ? { members: ["provenance"] } : part);
  if (read.status !== "ok") return undefined;
  if (known) return { value: read.value, shapedWhole: known };
  let shaped: ShapedLine;
  try {
    shaped = shaper.shape(file, read.value);
  } catch {
    return undefined;
  }
  cache.set(key, shaped);
  return { value: read.value, shapedWhole: shaped };
}

/** "re-run `colloquy agree` to refresh it": the hint of a file that could not be used. */
export function rerun(artifact: Pick<Artifact, "writtenBy">): string {
  return `re-run \`${artifact.writtenBy}\` to refresh it`;
}
