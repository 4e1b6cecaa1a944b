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
  type SessionMetrics,
} from "./metrics.js";
import {
  combinePhases,
  combineProfiles,
  combineTransitions,
  phasesUnder,
  profileFrame,
  profilesUnder,
  sessionPhases,
  sessionProfiles,
  sessionTransitions,
  transitionsUnder,
  type BalesProfiles,
  type PhaseMovement,
  type ProfileFrame,
  type SessionPhases,
  type SessionProfiles,
  type TransitionMatrix,
} from "./bales.js";
import {
  combineSegments,
  segmentsUnder,
  sequenceUnder,
  sessionSegments,
  sessionSequence,
  type SegmentDistributions,
  type SessionSegments,
  type SessionSequence,
} from "./sequences.js";
import { ownCodes, studyCodes } from "../compare/session-parts.js";
import { knownLabels, type CodedSession, type CodedTurns } from "../shared/table.js";

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
  perMinute: "count / (durationSeconds / 60); null when the duration is null",
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

/**
 * What one session contributes to the Bales and sequence parts of stats.json (the study-level
 * profiles, phases, transitions and segments are sums of these). Counted in the session's own
 * numbering of codes (compare/session-parts.ts ownCodes: the codebook's labels, then its own codes
 * outside the codebook), so a part holds whatever codes outside the codebook other sessions bring;
 * {@link statsPartUnder} puts it under the study's labels.
 */
export interface StatsCodesPart {
  profiles: SessionProfiles;
  phases: SessionPhases | null;
  transitions: Float64Array;
  sequence: SessionSequence;
  segments: SessionSegments;
  /** The session's codes outside the codebook (OwnCodes.unknown). */
  unknown: string[];
}

/** One session's {@link StatsCodesPart}; `labels` are the join's, the first `known` of them the codebook's. */
export function statsCodesPart(cs: CodedSession, labels: readonly string[], known: number, codebook: NominalCodebook): StatsCodesPart {
  const own = ownCodes(cs, labels, known);
  const frame = profileFrame([...labels.slice(0, known), ...own.unknown], codebook);
  return {
    profiles: sessionProfiles(own.session, frame),
    phases: frame.groups.size > 0 ? sessionPhases(own.session, frame) : null,
    transitions: sessionTransitions(own.session, frame.labels.length),
    sequence: sessionSequence(own.session),
    segments: sessionSegments(own.session, frame.labels),
    unknown: own.unknown,
  };
}

/** A session's part under the study's labels (`frame`, the first `known` of them the codebook's): what its part would be, counted in the study's numbering. */
export function statsPartUnder(part: StatsCodesPart, cs: CodedSession, frame: ProfileFrame, known: number): StatsCodesPart {
  const study = studyCodes(part.unknown, frame.labels, known);
  if (!study) return part;
  return {
    profiles: profilesUnder(part.profiles, cs, study, frame),
    phases: part.phases && phasesUnder(part.phases, study, frame),
    transitions: transitionsUnder(part.transitions, study, frame.labels.length),
    sequence: sequenceUnder(part.sequence, study),
    segments: segmentsUnder(part.segments, study, frame.labels),
    unknown: frame.labels.slice(known),
  };
}

/**
 * Compute stats; pass `coded` (the join of sessions and one coder's codes) for the Bales and
 * sequence parts. `measure` gives one session's metrics and `coded.part` one session's
 * StatsCodesPart: computed, or the result kept from an earlier run (src/stages/stats.ts memoises
 * both per session); the study-level figures are always recombined from all sessions' parts.
 */
export function buildStats(
  sessions: readonly Session[],
  coded?: {
    data: CodedTurns;
    codebook: NominalCodebook;
    coder: string;
    part?: (cs: CodedSession, compute: () => StatsCodesPart) => StatsCodesPart;
  },
  measure: (session: Session) => SessionMetrics = sessionMetrics,
): StatsResult {
  const metrics = sessions.map((s) => measure(s));
  const notes: string[] = [];
  const untimed = metrics.filter((m) => m.durationSeconds === null).length;
  if (untimed > 0) notes.push(`${untimed} of ${metrics.length} sessions have no usable turn times: their duration and per-minute rates are null`);
  let codes: StatsCodes | null = null;
  if (coded) {
    const { data, codebook, coder } = coded;
    const frame = profileFrame(data.labels, codebook);
    if (frame.ratios.size === 0) notes.push(`codebook ${codebook.id} lacks the bales-ipa categories, so no Bales ratios are reported`);
    if (frame.groups.size === 0) notes.push(`codebook ${codebook.id} has no category groups, so no phase movement is reported`);
    if (data.unknownLabels.length > 0) notes.push(`codes not in the codebook were counted as found: ${data.unknownLabels.join(", ")}`);
    if (data.orphanRecords > 0)
      notes.push(
        `${data.orphanRecords} code records name a session or turn the study does not have and were not counted (e.g. ${data.orphanExamples.join(", ")})`,
      );
    const part = coded.part ?? ((_cs, compute) => compute());
    const known = knownLabels(data);
    const parts = data.sessions.map((cs) =>
      statsPartUnder(
        part(cs, () => statsCodesPart(cs, data.labels, known, codebook)),
        cs,
        frame,
        known,
      ),
    );
    const conditions = data.sessions.map((cs) => cs.condition);
    codes = {
      codebook: { id: codebook.id, version: codebook.version },
      coder,
      labels: data.labels,
      codedTurns: data.codedTurns,
      uncodedTurns: data.uncodedTurns,
      profiles: combineProfiles(
        conditions,
        parts.map((p) => p.profiles),
        frame,
      ),
      phases:
        frame.groups.size > 0
          ? combinePhases(
              conditions,
              parts.map((p) => p.phases!),
              frame,
            )
          : null,
      transitions: combineTransitions(
        conditions,
        parts.map((p) => p.transitions),
        data.labels,
      ),
      sequences: parts.map((p) => p.sequence),
      segments: combineSegments(
        conditions,
        parts.map((p) => p.segments),
        data.labels,
      ),
    };
  }
  return {
    definitions: STATS_DEFINITIONS,
    sessions: metrics,
    conditions: summariseByCondition(metrics),
    roles: summariseByRole(metrics),
    followsByRole: followsByRole(metrics),
    codes,
    notes,
  };
}
