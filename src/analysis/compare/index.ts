// Public surface of `colloquy compare` and `colloquy stats` for library users and the dashboard
// (re-exported by ./index.ts). CompareReport and StatsReport are the types of the JSON files they write.
export { codedTurns, summarise, UNCODED, NO_CONDITION, type CodedTurns, type CodedSession, type Summary as MetricSummary } from "../shared/table.js";
export { countWords } from "../shared/words.js";
export { timeSpan, thirdOf, THIRDS, type TimeSpan, type Third } from "../shared/measures.js";
export {
  cumulativeWords,
  followsBySpeaker,
  participationBySpeaker,
  speakerName,
  type CumulativeWords,
  type SpeakerFollows,
  type SpeakerParticipation,
} from "../stats/participation.js";
export { summariseRatings, quantileSorted, type RatingSummary } from "../shared/scales.js";
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
} from "../stats/metrics.js";
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
} from "../stats/bales.js";
export { codeSequences, segmentDistributions, binCodes, type SessionSequence, type Segment, type SegmentDistributions } from "../stats/sequences.js";
export {
  compareConditions,
  compareFrequencies,
  differencesFrom,
  type CompareFrequencies,
  type CompareOptions,
  type CompareResult,
  type CompareReport,
  type FrequencyRow,
  type Difference,
  type UnitRow,
} from "./compare.js";
export { mapCodes, mapConditions, parseMergeList, type CodeMapping, type ConditionMapping } from "./mapping.js";
export { runTests as runCompareTests, type Comparison, type TestResult as CompareTestResult } from "./tests.js";
export { loadCodedStudy, chooseCoder, type LoadedCodes } from "./load.js";
export { compareCsvs, compareSummary, writeCompareReport } from "./output.js";
export { buildStats, STATS_DEFINITIONS, type StatsResult, type StatsReport, type StatsCodes } from "../stats/report.js";
export { statsCsvs, statsSummary, writeStatsReport } from "../stats/output.js";
