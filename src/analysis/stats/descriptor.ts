import { defineArtifact, fixed, STUDY_FOLDERS } from "../../util/artifact.js";
import { statsReportSchema } from "./schema.js";
import type { AnalysisDescriptor } from "../descriptor.js";
import type { StatsReport } from "./report.js";

/** The files its stage writes (registry entries: name, place, schema). */
export const statsFiles = {
  stats: defineArtifact<[], StatsReport>({
    name: "stats",
    description: "session metrics, participation, Bales profiles, phases, transitions, sequences",
    writtenBy: "colloquy stats",
    folder: STUDY_FOLDERS.analysis,
    format: "json",
    schema: statsReportSchema,
    lineArrays: ["sessions", "codes.profiles.members", "codes.phases.sessions", "codes.segments.sessions", "codes.sequences"],
    ...fixed("stats.json"),
  }),
  statsSessions: defineArtifact<[], string>({
    name: "statsSessions",
    description: "one row per session of stats",
    writtenBy: "colloquy stats",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...fixed("stats-sessions.csv"),
  }),
  statsParticipants: defineArtifact<[], string>({
    name: "statsParticipants",
    description: "one row per member of a session of stats",
    writtenBy: "colloquy stats",
    folder: STUDY_FOLDERS.analysis,
    format: "csv",
    schema: null,
    ...fixed("stats-participants.csv"),
  }),
} as const;

/**
 * Session metrics, participation, Bales profiles, phases, transitions and sequences:
 * `stats.json` and its tables, computed by {@link buildStats} (src/analysis/stats/report.ts). The dashboard draws
 * its views from the sessions with the same functions (metrics.ts, participation.ts,
 * bales.ts, sequences.ts); the study report copies stats.json.
 */
export const statsAnalysis: AnalysisDescriptor<StatsReport> = {
  id: "stats",
  title: "session metrics and Bales analyses",
  stage: "stats",
  result: statsFiles.stats,
  artifacts: [statsFiles.stats, statsFiles.statsSessions, statsFiles.statsParticipants],
  views: ["Participation", "Bales profile", "Interaction sequences"],
};
