import { provenance } from "../util/provenance.js";
import { summariseRecords } from "../coding/records.js";
import type { AnalysisFile, CodeSet, StudyData } from "./load.js";
import type { Codebook } from "../coding/codebook/schema.js";
import type { StudyConfig } from "../study/config.js";
import type { Session } from "../transcript/schema.js";
import {
  REPORT_SCHEMA_VERSION,
  type AgreementSet,
  type BalesSet,
  type CodebookInfo,
  type CompareSet,
  type ConceptsSet,
  type Distribution,
  type Overview,
  type ReportBundle,
  type SequenceSet,
  type SessionChunk,
  type SessionSummary,
  type SiteIndex,
  type StyleSet,
  type TopicsSet,
} from "./types.js";
import { codebookInfo, conditionsOf } from "./shape/common.js";
import { chunkOf, codeSetFacts, finishOverview, mergeOverview, type CodeSetFacts, type SessionBadges, type SessionsOverview } from "./shape/overview.js";
import { buildFollows, buildSpeakerParticipation } from "./shape/participation.js";
import { styleSetOf } from "./shape/styles.js";
import {
  codebookSessionPart,
  mergeBadges,
  sessionPart,
  mergeCoded,
  mergeDistribution,
  mergeSpeakers,
  mergeStyleValues,
  type CodebookSessionPart,
  type SessionCounts,
  type SessionPart,
} from "./shape/parts.js";
import { balesFrame, buildBalesSet, isBalesLike } from "./shape/bales.js";
import { buildCompareSet } from "./shape/compare.js";
import type { CompareReport } from "../analysis/compare/compare.js";
import { readAgreement, readConcepts, readTopics } from "./shape/analysis.js";
import type { CodedTurns } from "../analysis/shared/table.js";

/** The commands that fill each view, named in its empty state. */
function hints(name: string) {
  const s = /^[\w./-]+$/.test(name) ? name : JSON.stringify(name);
  return {
    codes: `No codes yet. Run \`colloquy code ${s} --codebook bales-ipa --coder rules\` (or \`colloquy study ${s}\`).`,
    scales: `No scale codes yet. Run \`colloquy code ${s} --codebook pragmatic-style --coder rules\`.`,
    bales: `No Bales codes yet. Run \`colloquy code ${s} --codebook bales-ipa --coder rules\`.`,
    agreement: `No agreement report yet. Run \`colloquy agree ${s} --codebook bales-ipa --coders rules,human:<name>\` (needs codes from two coders).`,
    topics: `No topics yet. Run \`colloquy topics ${s}\`.`,
    concepts: `No concepts yet. Run \`colloquy concepts ${s}\`.`,
    sessions: `No sessions yet. Import transcripts with \`colloquy import ${s} <files>\` or run \`colloquy run\`.`,
  };
}

/**
 * The bundle is put together in three parts, so the build can read one codebook's code files,
 * shape them and let them go before reading the next (memory bounded by the largest codebook,
 * not the sum): what the sessions alone give, each codebook's part, and the analysis files' part.
 */

/** What the views draw from the analysis files (shaped as each file is read). */
export interface AnalysisShapes {
  agreement: AgreementSet[];
  topics: TopicsSet | null;
  concepts: ConceptsSet | null;
  /** compare-<codebook>.json by codebook id (its tests and numbers replace the computed ones). */
  compare: Map<string, AnalysisFile<CompareReport>>;
  files: StudyData["analysis"]["files"];
  /** Problems met shaping them (after the problems met reading them). */
  warnings: string[];
}

/** What the sessions alone give. */
export interface SessionShapes {
  summaries: SessionSummary[];
  overview: SessionsOverview;
  speakers: ReportBundle["speakers"];
  conditions: string[];
  sequenceSessions: ReportBundle["sequenceSessions"];
  participation: ReportBundle["participation"];
}

/** One codebook's part: its description and, per coder (in coder order), what each view shows of it. */
export interface CodebookShapes {
  info: CodebookInfo;
  facts: CodeSetFacts[];
  distributions: Distribution[];
  sequences: SequenceSet[];
  compare: CompareSet[];
  /** Why compare has nothing for a coder (the first reason met). */
  compareEmpty?: string;
  bales: BalesSet[];
  styles: StyleSet[];
}

/**
 * The compare and Bales views of one coder: study-level analysis functions (compareFrequencies,
 * profilesBySpeaker, phaseOverall) over every session's coded turns (`coded`: one join for both
 * views, whole or put together from the sessions' parts), pooling each session's kept counts
 * (`counts`, parts.ts SessionCounts) when the parts keep them, else counting the turns; for the
 * coder `colloquy compare` ran for, its file's numbers instead of compareFrequencies'.
 */
function addComparisons(
  out: CodebookShapes,
  sessions: Session[],
  set: CodeSet,
  definition: Codebook | null,
  base: Pick<SessionShapes, "conditions">,
  config: StudyConfig,
  compareFile: AnalysisFile<CompareReport> | undefined,
  coded: CodedTurns,
  /** Each session's counts, when its part keeps them (parts.ts SessionCounts). */
  counts?: readonly SessionCounts[],
): void {
  const info = out.info;
  const result = buildCompareSet(sessions, set, info, config.compare, base.conditions, coded, compareFile, counts);
  if ("empty" in result) out.compareEmpty ??= result.empty;
  else out.compare.push(result);
  if (isBalesLike(info)) out.bales.push(buildBalesSet(sessions, set, info, definition?.kind === "nominal" ? definition : null, coded, counts));
}

/** What the sessions alone give, from each session's part (in session order). */
export function shapeSessionParts(parts: readonly SessionPart[], control: string | undefined): SessionShapes {
  const speakers = mergeSpeakers(parts);
  const index = new Map(speakers.map((s, i) => [s.key, i]));
  const members = speakers.filter((s) => s.kind !== "system").map((s) => s.key);
  const pooling = parts.map((p) => p.pooling);
  return {
    summaries: parts.map((p) => p.summary),
    overview: mergeOverview(parts.map((p) => p.overview)),
    speakers,
    conditions: conditionsOf(
      parts.map((p) => p.overview.condition),
      control,
    ),
    sequenceSessions: parts.map((p) => ({
      id: p.summary.id,
      condition: p.overview.condition,
      turns: p.overview.turns,
      binSize: p.sequence.binSize,
      speakers: cellSpeakers(p, index),
    })),
    participation: {
      sessions: parts.map((p) => p.participation),
      follows: buildFollows(pooling, members),
      speakers: buildSpeakerParticipation(pooling, members),
    },
  };
}

/** A session's sequence cells' speakers as indexes into the study's speakers (looked up once per speaker, not per cell). */
function cellSpeakers(part: SessionPart, index: ReadonlyMap<string, number>): number[] {
  const study = part.speakers.map((s) => index.get(s.key) ?? -1);
  const out: number[] = [];
  for (const touch of part.sequence.speakers) out.push(study[touch] ?? -1);
  return out;
}

/**
 * One codebook's part from each session's part of it (in session order, coders in `sets` order):
 * badges aside (each session's chunk takes them from its codebookSessionPart).
 */
export function shapeCodebookParts(
  info: CodebookInfo,
  definition: Codebook | null,
  sets: CodeSet[],
  /** The facts of each set's records (codeSetFacts; a scales codebook's sets may hold only some sessions' records). */
  facts: CodeSetFacts[],
  sessions: Session[],
  parts: readonly CodebookSessionPart[],
  base: Pick<SessionShapes, "conditions">,
  config: StudyConfig,
  compareFile: AnalysisFile<CompareReport> | undefined,
): CodebookShapes {
  const out: CodebookShapes = { info, facts, distributions: [], sequences: [], compare: [], bales: [], styles: [] };
  sets.forEach((set, k) => {
    const mine = parts.map((p) => p.coders[k]);
    if (info.kind === "nominal") {
      out.distributions.push(mergeDistribution(set.codebook, set.coder, parts, k));
      out.sequences.push({ codebook: set.codebook, coder: set.coder, cells: mine.map((p) => Array.from(p.cells ?? [])) });
      const counts = mine.every((p) => p.counts !== undefined) ? mine.map((p) => p.counts!) : undefined;
      addComparisons(out, sessions, set, definition, base, config, compareFile, mergeCoded(sessions, mine, info), counts);
    } else {
      const { bySpeaker, byCondition } = mergeStyleValues(mine);
      out.styles.push(styleSetOf(set, info, bySpeaker, byCondition));
    }
  });
  return out;
}

/** What the index needs of a codebook's part once its views' entries are written. */
export type CodebookSummary = Pick<CodebookShapes, "info" | "facts" | "compareEmpty"> & { bales: number };

export const codebookSummary = (part: CodebookShapes): CodebookSummary => ({
  info: part.info,
  facts: part.facts,
  compareEmpty: part.compareEmpty,
  bales: part.bales.length,
});

/** What the index needs of the analysis files' shapes once their views are written. */
export interface AnalysisSummary {
  files: StudyData["analysis"]["files"];
  agreement: boolean;
  topics: boolean;
  warnings: string[];
}

export const analysisSummary = (analysis: AnalysisShapes): AnalysisSummary => ({
  files: analysis.files,
  agreement: analysis.agreement.length > 0,
  topics: analysis.topics !== null || analysis.concepts !== null,
  warnings: analysis.warnings,
});

/** The index (what every view shares) and the overview view's data, from the parts' summaries; `books` in code set order. */
export function finishIndex(
  name: string,
  config: StudyConfig,
  base: Pick<SessionShapes, "summaries" | "overview" | "speakers" | "conditions">,
  books: readonly CodebookSummary[],
  analysis: AnalysisSummary,
  readWarnings: readonly string[],
): { index: Omit<SiteIndex, "views">; overview: Overview } {
  const h = hints(name);
  const control = config.compare.control;
  const sessions = base.summaries;
  const nominal = books.filter((p) => p.info.kind === "nominal" && p.facts.length > 0);
  const scales = books.filter((p) => p.info.kind === "scales" && p.facts.length > 0);
  const compareEmpty = books.find((p) => p.compareEmpty !== undefined)?.compareEmpty;
  const empty: Record<string, string> = {};
  if (sessions.length === 0) for (const view of ["who", "sequences", "timeline", "participation", "compare", "style", "bales"]) empty[view] = h.sessions;
  if (nominal.length === 0) for (const view of ["who", "sequences", "compare"]) empty[view] ??= h.codes;
  // Most basic missing piece first: sessions, then codes, then a second condition, then the control.
  if (base.conditions.length < 2)
    empty.compare ??= `Only one condition (${base.conditions[0] ?? "none"}): comparisons need sessions from two or more conditions (session metadata "condition").`;
  if (compareEmpty) empty.compare ??= compareEmpty;
  if (scales.length === 0) empty.style ??= h.scales;
  if (books.every((p) => p.bales === 0)) empty.bales ??= h.bales;
  if (!analysis.agreement) empty.agreement = h.agreement;
  if (!analysis.topics) empty.topics = `${h.topics} ${h.concepts}`;
  const overview = finishOverview(
    base.overview,
    sessions.length,
    books.flatMap((p) => p.facts),
    analysis.files,
  );
  // Every view showing a coder's codes says whether that coder was checked (the overview's words).
  const validation = (id: string) => Object.fromEntries(overview.coded.filter((c) => c.codebook === id).map((c) => [c.coder, c.label]));
  const index: Omit<SiteIndex, "views"> = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    provenance: provenance({ study: name, sessions: sessions.length }),
    study: { name, title: config.title, description: config.description, control },
    speakers: base.speakers,
    conditions: base.conditions,
    codebooks: books.map((p) => ({ ...p.info, validation: validation(p.info.id) })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    sessions,
    empty,
    warnings: [...readWarnings, ...analysis.warnings],
  };
  return { index, overview };
}

/** The whole bundle from its parts (what the page has once every view was shown); `parts` in code set order. */
export function finishBundle(
  name: string,
  config: StudyConfig,
  base: SessionShapes,
  parts: readonly CodebookShapes[],
  analysis: AnalysisShapes,
  readWarnings: readonly string[],
): ReportBundle {
  const { index, overview } = finishIndex(name, config, base, parts.map(codebookSummary), analysisSummary(analysis), readWarnings);
  return {
    ...index,
    overview,
    distributions: parts.flatMap((p) => p.distributions),
    sequenceSessions: base.sequenceSessions,
    sequences: parts.flatMap((p) => p.sequences),
    participation: base.participation,
    styles: parts.flatMap((p) => p.styles),
    bales: parts.flatMap((p) => p.bales),
    compare: parts.flatMap((p) => p.compare),
    agreement: analysis.agreement,
    topics: analysis.topics,
    concepts: analysis.concepts,
  };
}

/** Code sets grouped by codebook, codebooks in order of first appearance (code set order). */
export function byCodebook<T extends { codebook: string }>(sets: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const set of sets) {
    const list = groups.get(set.codebook);
    if (list) list.push(set);
    else groups.set(set.codebook, [set]);
  }
  return groups;
}

/**
 * Shape a study held in memory into the dashboard's data: the bundle every view reads, plus one
 * chunk per session (turn texts and code badges). The same parts, merged the same way, as the
 * build (src/report/build.ts), which keeps each session's parts in the study's memo: one path
 * from the sessions and codes to every number the dashboard shows.
 */
export function assembleReport(data: StudyData): { bundle: ReportBundle; chunks: SessionChunk[] } {
  const sessionParts = data.sessions.map(sessionPart);
  const base = shapeSessionParts(sessionParts, data.config.compare.control);
  const badges = data.sessions.map((): SessionBadges[] => []);
  const parts = [...byCodebook(data.codeSets)].map(([id, sets]) => {
    const definition = data.codebooks.get(id) ?? null;
    const info = codebookInfo(id, definition, sets);
    const frame = balesFrame(info, definition);
    const codebookParts = data.sessions.map((session, i) => {
      const { badges: made, ...part } = codebookSessionPart(session, sets, info, sessionParts[i].sequence.binSize, frame);
      badges[i].push(made);
      return part;
    });
    return shapeCodebookParts(
      info,
      definition,
      sets,
      sets.map((set) => codeSetFacts(set, summariseRecords(set.records))),
      data.sessions,
      codebookParts,
      base,
      data.config,
      data.analysis.compare.get(id),
    );
  });
  const warnings: string[] = [];
  const agreement = readAgreement(data.analysis.agreement, warnings);
  const topics = readTopics(data.analysis.topics, warnings);
  const concepts = readConcepts(data.analysis.concepts, warnings);
  const analysis: AnalysisShapes = { agreement, topics, concepts, compare: data.analysis.compare, files: data.analysis.files, warnings };
  const bundle = finishBundle(data.name, data.config, base, parts, analysis, data.warnings);
  const chunks = data.sessions.map((s, i) => chunkOf(s, mergeBadges(badges[i])));
  return { bundle, chunks };
}
