/**
 * The dashboard's data bundle: everything the static site draws, shaped in Node at build time
 * (where it is unit-tested) so the charts in web/ only map data to marks.
 *
 * The site splits it by view (issue 40): the page loads `data.<hash>.json` (the `SiteIndex`:
 * what every view shares) at start, each view's members (`VIEW_DATA`) from
 * `views/<view>.<hash>.json` when that view is first shown, and one `SessionChunk` per session on
 * demand (timeline, transcript, hover texts). Shared by src/report (writer) and web/ (reader):
 * types and these two constants only.
 */

import type { RatingSummary } from "../analysis/shared/scales.js";

export const REPORT_SCHEMA_VERSION = 2;

/**
 * The bundle's members each view draws alone, written to that view's file in this order; every
 * other member is in the index. A view not listed (the timeline) draws from the index and the
 * session chunks only.
 */
export const VIEW_DATA = {
  overview: ["overview"],
  who: ["distributions"],
  compare: ["compare"],
  sequences: ["sequenceSessions", "sequences"],
  agreement: ["agreement"],
  style: ["styles"],
  topics: ["topics", "concepts"],
  participation: ["participation"],
  bales: ["bales"],
} as const satisfies Record<string, readonly (keyof ReportBundle)[]>;

/** A member of the bundle that lives in a view's file. */
export type ViewMember = (typeof VIEW_DATA)[keyof typeof VIEW_DATA][number];

/** Counts per code id (or scale value) — plain object so it survives JSON. */
export type Counts = Record<string, number>;

export interface SpeakerInfo {
  /** Study-wide key: the participant's name (same name in several sessions = same speaker). */
  key: string;
  kind: "human" | "ai" | "simulated" | "system";
  role?: string;
  /** Sessions this speaker appears in. */
  sessions: number;
  turns: number;
  words: number;
}

export interface CategoryInfo {
  id: string;
  label: string;
  groups: string[];
}

export interface CodebookInfo {
  id: string;
  title: string;
  version?: string;
  kind: "nominal" | "scales";
  /** Categories in codebook order (nominal); codes seen in the data but unknown to the codebook are appended. */
  categories: CategoryInfo[];
  groups: { id: string; label: string; kind?: string }[];
  scales: { id: string; label: string; points: number }[];
  /** Coders with codes for this codebook, e.g. ["human:alice", "llm", "rules"]. */
  coders: string[];
  /**
   * Each coder's validation on the study in words (validationLabel: "BELOW FLOOR, kappa 0.17: check
   * before use"), in the index so every view that shows a coder's codes can say it, not only the overview.
   */
  validation?: Record<string, string>;
  /** False when the codebook definition could not be loaded (labels then equal ids). */
  defined: boolean;
}

export interface SessionSummary {
  id: string;
  title?: string;
  condition: string;
  run?: string;
  turns: number;
  words: number;
  /** Seconds from first turn start to last turn end; null without times. */
  duration: number | null;
  participants: { key: string; kind: string; role?: string }[];
  incomplete: boolean;
  /** File of this session's SessionChunk, relative to the site root. */
  chunk: string;
}

/** Whether a code set's coder was validated against the study's human codes (src/report/shape/validation.ts). */
export interface CoderValidationSummary {
  status: "human" | "validated" | "below-floor" | "unvalidated" | "not recorded";
  kappa?: number;
  /** A learned coder's codes learned from other codes than the human coders it trained on have now. */
  outOfDate?: boolean;
}

export interface Overview {
  sessions: number;
  conditions: { id: string; sessions: number; turns: number }[];
  participants: { human: number; ai: number; simulated: number; system: number };
  turns: number;
  words: number;
  turnTypes: Counts;
  /** codebook id -> coder ids. */
  coders: Record<string, string[]>;
  /** Coded turn counts per "codebook\tcoder", and whether that coder was checked against the study's human codes. */
  coded: { codebook: string; coder: string; turns: number; validation: CoderValidationSummary; label: string }[];
  /** Models, coders and dates found in session metadata and code provenance. */
  models: string[];
  dates: { first?: string; last?: string };
  analysisFiles: { file: string; createdAt?: string; version?: string }[];
}

/** Who does what: code counts for one nominal codebook and one coder. */
export interface Distribution {
  codebook: string;
  coder: string;
  bySpeaker: { key: string; kind: string; role?: string; total: number; counts: Counts }[];
  byCondition: { condition: string; total: number; counts: Counts }[];
}

/** Interaction sequences: per session, the code index of every turn (or bin of turns). */
export interface SequenceSet {
  codebook: string;
  coder: string;
  /** Parallel to ReportBundle.sequenceSessions; cells[i][j] = category index, -1 = not coded. */
  cells: number[][];
}

export interface SequenceSession {
  id: string;
  condition: string;
  turns: number;
  /** Turns per cell: 1 normally; >1 when a long session is binned (cell = most frequent code). */
  binSize: number;
  /** Speaker index (into ReportBundle.speakers) of the first turn of each cell. */
  speakers: number[];
}

export interface ParticipationSession {
  session: string;
  condition: string;
  /** `seconds`: spoken seconds (src/analysis/stats/participation.ts speakingSeconds); null when the session has no turn with start and end. */
  speakers: { key: string; turns: number; words: number; turnShare: number; wordShare: number; seconds: number | null }[];
  /** Who follows whom in this session: follows[i][j] = turns by speakers[j] right after one by speakers[i]. */
  follows: number[][];
  /** Normalised entropy of word shares (0 = one speaker, 1 = perfectly even); null for < 2 speakers. */
  balance: number | null;
  /** Cumulative words per speaker over time (seconds, or turn index when the session has no times). */
  cumulative: { key: string; points: [number, number][] }[];
  timeAxis: "seconds" | "turn";
}

export interface FollowMatrix {
  /** Speaker keys (rows = previous speaker, columns = next speaker). */
  keys: string[];
  counts: number[][];
}

/** Summary of ratings 1..points for one group (computed by src/analysis/shared/scales.ts). */
export type ScaleSummary = RatingSummary;

export interface StyleSet {
  codebook: string;
  coder: string;
  scales: { id: string; label: string; points: number }[];
  bySpeaker: { key: string; kind: string; summaries: Record<string, ScaleSummary> }[];
  byCondition: { condition: string; summaries: Record<string, ScaleSummary> }[];
}

export interface BalesSet {
  codebook: string;
  coder: string;
  /** Area groups, in codebook order, with their category ids. */
  areas: { id: string; label: string; categories: string[] }[];
  /**
   * Per speaker over all sessions (src/analysis/stats/bales.ts profilesBySpeaker): `total` = acts (every
   * code of a turn, the codebook's fallback category excluded), `counts` per code (fallback included),
   * `percent` = 0-100 of acts per category (fallback excluded; null when the member has no acts).
   */
  members: { key: string; kind: string; total: number; counts: Counts; percent: Record<string, number | null> }[];
  /**
   * Session thirds (src/analysis/stats/bales.ts phaseMovement, pooled over sessions): `total` = acts in
   * the third, `counts` = acts per category, `shares` = acts per codebook group / total (null when
   * the third has no acts).
   */
  phases: { phase: "early" | "middle" | "late"; total: number; counts: Counts; shares: Record<string, number | null> }[];
  /** Bales' phase-movement groups (problem kind) in codebook order, with category ids. */
  problems: { id: string; label: string; categories: string[] }[];
}

export interface CompareCell {
  condition: string;
  code: string;
  count: number;
  controlCount: number;
  /** (count - control) / control * 100 on the (optionally run-normalised) counts; null when control is 0. */
  pctDiff: number | null;
}

export interface CompareSet {
  codebook: string;
  coder: string;
  control: string;
  conditions: string[];
  codes: { id: string; label: string }[];
  /** Runs (sessions) per condition, and whether counts were divided by them. */
  runs: Record<string, number>;
  /** Sessions per condition contributing codes (a run can hold several sessions). */
  sessions: Record<string, number>;
  normalised: boolean;
  /** Raw counts per condition (incl. control) per code, after collapsing. */
  counts: Record<string, Counts>;
  cells: CompareCell[];
  collapse: Record<string, string[]>;
  dropped: string[];
  /** Test results from analysis/compare-<codebook>.json when present (as reported there). */
  tests: { label: string; test: string; n?: number; statistic?: number; p?: number; pAdjusted?: number; apa?: string; note?: string }[];
  source: "codes" | "analysis";
  /** The design the tests assumed and where it came from ("within-subject (paired by participant); declared in colloquy.json …"). */
  design?: string;
}

export interface AgreementPair {
  a: string;
  b: string;
  n: number;
  percent?: number;
  kappa?: number;
  kappaCI?: [number, number];
  alpha?: number;
  alphaCI?: [number, number];
  ac1?: number;
}

export interface AgreementSet {
  codebook: string;
  file: string;
  coders: string[];
  pairs: AgreementPair[];
  /** Krippendorff's alpha over all coders (shown as its own bar when 3+ coders). */
  overall?: { level: string; alpha: number; alphaCI?: [number, number]; fleiss?: number };
  confusion?: { reference: string; other: string; labels: string[]; matrix: number[][] };
  perCategory: { code: string; precision: number | null; recall: number | null; f1: number | null; support?: number }[];
  /** Whose codes perCategory scores against whose (the first pair the report scored; the view names it). */
  perCategoryPair?: { coder: string; reference: string };
  disagreements: { session: string; turn: string; speaker?: string; text: string; codes: Record<string, string> }[];
}

export interface TopicNode {
  id: string;
  label: string;
  children: TopicNode[];
  turns?: number;
}

export interface TopicsSet {
  trees: { scope: string; id: string; condition?: string; root: TopicNode }[];
  branching: { condition: string; mean: number; sd?: number; ci?: [number, number]; n: number }[];
  tests?: MeasureTestLine[];
}

/**
 * Every comparison's test of one measure, in the report's words (apaConditionTest: adjusted and
 * unadjusted p named as such, or why p cannot reach .05), so the views say what the report says.
 */
export interface MeasureTestLine {
  /** "asks_opinion vs control" */
  comparison: string;
  /** The test in plain words: "permutation test of the difference in means (two-sided)". */
  test: string;
  apa: string;
}

export interface ConceptsSet {
  rates: { condition: string; mean: number; sd?: number; n: number }[];
  firstMentions: { session: string; condition?: string; concept: string; time: number }[];
  tests?: MeasureTestLine[];
}

export interface ReportBundle {
  schemaVersion: typeof REPORT_SCHEMA_VERSION;
  provenance: { tool: string; version: string; createdAt: string; [k: string]: unknown };
  study: { name: string; title?: string; description?: string; control?: string };
  overview: Overview;
  speakers: SpeakerInfo[];
  conditions: string[];
  codebooks: CodebookInfo[];
  sessions: SessionSummary[];
  distributions: Distribution[];
  sequenceSessions: SequenceSession[];
  sequences: SequenceSet[];
  participation: {
    sessions: ParticipationSession[];
    follows: FollowMatrix;
    /**
     * Per speaker over all sessions (src/analysis/stats/participation.ts participationBySpeaker): counted
     * turns and words, and shares (0..1) of the study's totals.
     */
    speakers: { key: string; turns: number; words: number; turnShare: number; wordShare: number }[];
  };
  styles: StyleSet[];
  bales: BalesSet[];
  compare: CompareSet[];
  agreement: AgreementSet[];
  topics: TopicsSet | null;
  concepts: ConceptsSet | null;
  /** Empty-state messages per view id (present when that view has nothing to draw). */
  empty: Record<string, string>;
  /** Problems met while reading analysis files (shown on the overview, never fatal). */
  warnings: string[];
}

/** The file the page loads first (`data.<hash>.json`): the members every view shares, and where each view's file is. */
export type SiteIndex = Omit<ReportBundle, ViewMember> & {
  /** View id -> its data file (`views/<view>.<hash>.json`), relative to the site root. */
  views: Record<string, string>;
};

/** One session's turns and code badges, loaded on demand by the timeline/transcript and hovers. */
export interface SessionChunk {
  id: string;
  condition: string;
  /** Study speaker keys, indexed by the `s` of each turn. */
  speakers: string[];
  turns: {
    id: string;
    /** speaker index into `speakers` */
    s: number;
    text: string;
    type: string;
    start?: number;
    end?: number;
    timestamp?: string;
  }[];
  /** Badges per turn id: [codebook, coder, label]. */
  badges: Record<string, [string, string, string][]>;
}
