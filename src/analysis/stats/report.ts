import type { NominalCodebook } from "../../coding/codebook/schema.js";
import type { Session } from "../../transcript/schema.js";
import type { Provenance } from "../../util/provenance.js";
import {
  followsByRole,
  sessionMetrics,
  summariseByCondition,
  summariseByRole,
  type ConditionSummary,
  type RoleFollows,
  type RoleSummary,
  type SessionFigures,
  type SessionMetrics,
} from "./metrics.js";
import {
  combineTransitions,
  poolPhases,
  poolProfiles,
  profileFrame,
  sessionPhases,
  sessionProfiles,
  sessionTransitions,
  type BalesProfiles,
  type MemberProfile,
  type PhaseMovement,
  type PooledPhases,
  type PooledProfiles,
  type ProfileFrame,
  type SessionPhases,
  type SessionProfiles,
  type TransitionMatrix,
} from "./bales.js";
import {
  poolSegments,
  sessionSegments,
  sessionSequence,
  type PooledSegments,
  type SegmentDistributions,
  type SessionSegments,
  type SessionSequence,
} from "./sequences.js";
import type { CodedSession, CodedTurns } from "../shared/table.js";

/**
 * `colloquy stats`: session metrics and participation for every session, and, when a nominal
 * codebook's codes are given, Bales profiles, ratios, phase movement, transitions and sequences.
 */

/** The definitions a reader of stats.json needs to reproduce every number. */
export const STATS_DEFINITIONS: Record<string, string> = {
  words:
    "maximal runs of letters, marks and digits in any script; an apostrophe or hyphen between runs joins them, as does '.' or ',' before a digit; each Han, Hiragana or Katakana character is one word; punctuation, symbols and emoji are not words",
  countedTurns: "turns whose type is not system or reasoning, spoken by a participant whose kind is not system; the rest are excludedTurns",
  members: "participants whose kind is not system, including those who never spoke",
  durationSeconds: "latest end (or start when a turn has no end) minus earliest start over turns with a start time; null when no turn has one",
  perMinute:
    "count / (durationSeconds / 60); null when the duration is null, or when every time falls on a whole minute (three or more times) and they span one minute (durationNote says so)",
  entropy:
    "normalised Shannon entropy of members' shares, -Σ p ln p / ln k over the k members (1 = perfectly balanced, 0 = one member did everything); null with fewer than 2 members",
  oneMinusGini: "1 - Gini coefficient of members' counts, Gini = Σi Σj |xi - xj| / (2 k² mean) (1 = perfectly balanced; minimum 1/k)",
  summaries: "mean, sample SD (n - 1) and n over sessions (conditions) or members (roles); null values are left out",
  follows: "counts[a][b] = number of counted turns by b that directly follow a counted turn by a (same session)",
  addresses: "counts[a][b] = number of counted turns by a that name b among their addressees",
  acts: "every code of a turn is one act; the codebook's fallback category (bales-ipa: none) is not an act and is left out of percentages and phases",
  phases: "each session's acts split into thirds by position (act k of n in third floor(3k/n)); share = group acts / acts in that third",
  transitions:
    "counts[a][b] = consecutive coded turns in a session with first codes a then b (uncoded turns skipped, fallback included); proportions are row shares",
  segments: "each session's coded turns split into thirds by position; counts of first codes per third",
  sequences: "per session, turn by turn: speakers[i] indexes participants, codes[i] indexes codes.labels (-1 = turn not coded)",
};

/** Bales and sequence analyses of one nominal codebook and coder. */
export interface StatsCodes {
  codebook: { id: string; version: string };
  coder: string;
  labels: string[];
  codedTurns: number;
  uncodedTurns: number;
  profiles: BalesProfiles;
  /** Null when the codebook has no groups (phases need e.g. bales-ipa's problem groups). */
  phases: PhaseMovement | null;
  transitions: { overall: TransitionMatrix; conditions: { condition: string; matrix: TransitionMatrix }[] };
  /** Every session's code sequence as indices: codes index `labels` (-1 = uncoded), speakers index its `participants`. */
  sequences: SessionSequence[];
  segments: SegmentDistributions;
}

/** Everything buildStats computes (the file adds provenance). */
export interface StatsResult {
  definitions: Record<string, string>;
  /** One entry per session: metrics, balance, matrices and the per-member rows. */
  sessions: SessionMetrics[];
  conditions: ConditionSummary[];
  roles: RoleSummary[];
  /** Who-follows-whom pooled by role within each condition. */
  followsByRole: RoleFollows[];
  /** Null when no codes were given (see notes). */
  codes: StatsCodes | null;
  notes: string[];
}

/** `analysis/stats.json`. */
export interface StatsReport extends StatsResult {
  provenance: Provenance;
}

/** The join of sessions and one coder's codes that the Bales and sequence parts are computed from. */
export interface StatsCoded {
  data: CodedTurns;
  codebook: NominalCodebook;
  coder: string;
}

/** What one session contributes to the Bales and sequence parts of stats.json, counted under `frame`'s labels. */
export interface SessionCodeStats {
  profiles: SessionProfiles;
  /** Null when the codebook has no groups. */
  phases: SessionPhases | null;
  transitions: Float64Array;
  sequence: SessionSequence;
  segments: SessionSegments;
}

/** One session's {@link SessionCodeStats}: its codes (`cs.codes`, `cs.primary`) index `frame.labels`. */
export function sessionCodeStats(cs: CodedSession, frame: ProfileFrame): SessionCodeStats {
  return {
    profiles: sessionProfiles(cs, frame),
    phases: frame.groups.size > 0 ? sessionPhases(cs, frame) : null,
    transitions: sessionTransitions(cs, frame.labels.length),
    sequence: sessionSequence(cs),
    segments: sessionSegments(cs, frame.labels),
  };
}

/** What one session adds to the study's pooled Bales, transition and segment figures: its counts. */
export interface SessionCodeCounts {
  /** Per member of the session: role and counts (SessionProfiles.counts). */
  members: SessionProfiles["counts"];
  /** Per third (SessionPhases.counts); null when the codebook has no groups. */
  phases: Float64Array | null;
  transitions: Float64Array;
  /** Per third (SessionSegments.counts). */
  segments: Float64Array;
}

/** What pooling reads of a session's {@link SessionCodeStats}: its counts. */
export function sessionCodeCounts(stats: SessionCodeStats): SessionCodeCounts {
  return {
    members: stats.profiles.counts,
    phases: stats.phases && stats.phases.counts,
    transitions: stats.transitions,
    segments: stats.segments.counts,
  };
}

/**
 * The entries of stats.json each session has of its own, in session order: the arrays the
 * artifact registry writes one entry per line (statsFiles.stats.lineArrays).
 */
export interface SessionEntries {
  sessions: SessionMetrics[];
  members: MemberProfile[];
  phases: PhaseMovement["sessions"];
  segments: SegmentDistributions["sessions"];
  sequences: SessionSequence[];
}

/** The codes part of stats.json pooled over sessions: {@link StatsCodes} but the sessions' own entries. */
interface PooledCodes extends Omit<StatsCodes, "profiles" | "phases" | "sequences" | "segments"> {
  profiles: PooledProfiles;
  phases: PooledPhases | null;
  segments: PooledSegments;
}

/**
 * stats.json's figures over sessions (summaries, pooled profiles, phases, transitions and
 * segments) and its notes: everything but the sessions' own entries ({@link SessionEntries}).
 * Always computed from every session's figures and counts, never kept.
 */
export interface PooledStats {
  conditions: ConditionSummary[];
  roles: RoleSummary[];
  followsByRole: RoleFollows[];
  codes: PooledCodes | null;
  notes: string[];
}

/** The coded study pooled: its join, its profile frame and each session's counts under that frame's labels. */
export interface CodedCounts {
  coded: StatsCoded;
  frame: ProfileFrame;
  counts: readonly SessionCodeCounts[];
}

/** Pool every session's figures, and with `codes` their Bales and sequence counts, into the study's. */
export function poolStats(figures: readonly SessionFigures[], codes?: CodedCounts): PooledStats {
  const notes: string[] = [];
  const untimed = figures.filter((m) => m.durationSeconds === null).length;
  if (untimed > 0) notes.push(`${untimed} of ${figures.length} sessions have no usable turn times: their duration and per-minute rates are null`);
  return {
    conditions: summariseByCondition(figures),
    roles: summariseByRole(figures),
    followsByRole: followsByRole(figures),
    codes: codes ? poolCodes(codes, notes) : null,
    notes,
  };
}

function poolCodes({ coded, frame, counts }: CodedCounts, notes: string[]): PooledCodes {
  const { data, codebook, coder } = coded;
  if (frame.ratios.size === 0) notes.push(`codebook ${codebook.id} lacks the bales-ipa categories, so no Bales ratios are reported`);
  if (frame.groups.size === 0) notes.push(`codebook ${codebook.id} has no category groups, so no phase movement is reported`);
  if (data.unknownLabels.length > 0) notes.push(`codes not in the codebook were counted as found: ${data.unknownLabels.join(", ")}`);
  if (data.orphanRecords > 0)
    notes.push(
      `${data.orphanRecords} code records name a session or turn the study does not have and were not counted (e.g. ${data.orphanExamples.join(", ")})`,
    );
  const conditions = data.sessions.map((cs) => cs.condition);
  return {
    codebook: { id: codebook.id, version: codebook.version },
    coder,
    labels: data.labels,
    codedTurns: data.codedTurns,
    uncodedTurns: data.uncodedTurns,
    profiles: poolProfiles(
      conditions,
      counts.map((c) => c.members),
      frame,
    ),
    phases:
      frame.groups.size > 0
        ? poolPhases(
            conditions,
            counts.map((c) => c.phases!),
            frame,
          )
        : null,
    transitions: combineTransitions(
      conditions,
      counts.map((c) => c.transitions),
      data.labels,
    ),
    segments: poolSegments(
      conditions,
      counts.map((c) => c.segments),
      data.labels,
    ),
  };
}

/**
 * The report of `pooled` with the sessions' own `entries` in their places: the one place that
 * lays out stats.json's members, so that the report built at once (buildStats) and the one
 * written from kept parts (parts.ts) are the same text.
 */
export function statsResult(pooled: PooledStats, entries: SessionEntries): StatsResult {
  const { codes } = pooled;
  return {
    definitions: STATS_DEFINITIONS,
    sessions: entries.sessions,
    conditions: pooled.conditions,
    roles: pooled.roles,
    followsByRole: pooled.followsByRole,
    codes: codes && {
      codebook: codes.codebook,
      coder: codes.coder,
      labels: codes.labels,
      codedTurns: codes.codedTurns,
      uncodedTurns: codes.uncodedTurns,
      profiles: { members: entries.members, ...codes.profiles },
      phases: codes.phases && { groups: codes.phases.groups, sessions: entries.phases, conditions: codes.phases.conditions, overall: codes.phases.overall },
      transitions: codes.transitions,
      sequences: entries.sequences,
      segments: { labels: codes.segments.labels, sessions: entries.segments, conditions: codes.segments.conditions, overall: codes.segments.overall },
    },
    notes: pooled.notes,
  };
}

/**
 * Compute stats; pass `coded` (the join of sessions and one coder's codes) for the Bales and
 * sequence parts. `measure` gives one session's metrics. The study pipeline computes the same
 * report from parts it keeps per session (parts.ts buildStatsParts), and writes the same files.
 */
export function buildStats(sessions: readonly Session[], coded?: StatsCoded, measure: (session: Session) => SessionMetrics = sessionMetrics): StatsResult {
  const metrics = sessions.map((s) => measure(s));
  if (!coded) return statsResult(poolStats(metrics), { sessions: metrics, members: [], phases: [], segments: [], sequences: [] });
  const frame = profileFrame(coded.data.labels, coded.codebook);
  const stats = coded.data.sessions.map((cs) => sessionCodeStats(cs, frame));
  return statsResult(poolStats(metrics, { coded, frame, counts: stats.map(sessionCodeCounts) }), {
    sessions: metrics,
    members: stats.flatMap((s) => s.profiles.members),
    phases: stats.flatMap((s) => (s.phases ? [s.phases.session] : [])),
    segments: stats.map((s) => s.segments.session),
    sequences: stats.map((s) => s.sequence),
  });
}
