// Public surface of `colloquy stats` for library users and the dashboard (re-exported by
// ../index.ts). StatsReport is the type of the JSON file it writes.
export {
  cumulativeWords,
  followsBySpeaker,
  participationBySpeaker,
  speakerName,
  type CumulativeWords,
  type SpeakerFollows,
  type SpeakerParticipation,
} from "./participation.js";
export {
  sessionMetrics,
  summariseByCondition,
  summariseByRole,
  followsByRole,
  normalisedEntropy,
  gini,
  EXCLUDED_TURN_TYPES,
  type SessionMetrics,
  type MemberMetrics,
  type Balance,
  type SpeakerMatrix,
  type ConditionSummary,
  type RoleSummary,
  type RoleFollows,
} from "./metrics.js";
export {
  balesProfiles,
  profilesBySpeaker,
  phaseMovement,
  transitions,
  profileFrame,
  profileOf,
  BALES_RATIOS,
  type InteractionProfile,
  type Ratio as BalesRatio,
  type ProfileFrame,
  type MemberProfile,
  type BalesProfiles,
  type SpeakerProfile,
  type PhaseMovement,
  type PhaseThird,
  type TransitionMatrix,
} from "./bales.js";
export { codeSequences, segmentDistributions, binCodes, type SessionSequence, type Segment, type SegmentDistributions } from "./sequences.js";
export { buildStats, STATS_DEFINITIONS, type StatsResult, type StatsReport, type StatsCodes } from "./report.js";
export { statsCsvs, statsSummary } from "./output.js";
